package training

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
)

// An LLPFC run records the diagnostics of every regrouping (epochs 0, r, 2r,
// …): the summary of the groups of the stream "llpfc-groups/epoch-e"
// (rebuilt here independently), with the uniform-prior summary of the same
// groups for approx; a resumed run records the same list; KL records none.
func TestTrainRecordsRegroupings(t *testing.T) {
	data := synthLLP(t, 3, 5, 12, 10, 30, 3)
	cfg := baseConfig("llpfc-approx")
	cfg.RegroupEvery = 2
	res, err := Train(context.Background(), cfg, data, nil)
	require.NoError(t, err)
	require.Len(t, res.Regroupings, 2, "epochs 3, regroup every 2: groupings at epochs 0 and 2")
	for i, e := range []int{0, 2} {
		name := "llpfc-groups/epoch-" + strconv.Itoa(e)
		red, err := estimators.Build(data.Bags, estimators.Options{Mode: estimators.ModeApprox}, rng.New(cfg.Seed, name))
		require.NoError(t, err)
		ured, err := estimators.Build(data.Bags, estimators.Options{Mode: estimators.ModeUniform}, rng.New(cfg.Seed, name))
		require.NoError(t, err)
		for g := range red.Groups {
			assert.Equal(t, red.Groups[g].Members, ured.Groups[g].Members, "uniform summary over the same groups")
		}
		rg := res.Regroupings[i]
		assert.Equal(t, e, rg.Epoch)
		assert.Equal(t, estimators.Summarize(red), rg.Groups)
		require.NotNil(t, rg.Uniform)
		assert.Equal(t, estimators.Summarize(ured), *rg.Uniform)
		assert.Equal(t, 4, rg.Groups.Groups, "12 bags, C = 3")
	}
	assert.NotEqual(t, res.Regroupings[0].Groups, res.Regroupings[1].Groups, "each regrouping draws new groups")

	ck := filepath.Join(t.TempDir(), "run.ckpt")
	first := cfg
	first.Epochs, first.Checkpoint = 1, ck
	_, err = Train(context.Background(), first, data, nil)
	require.NoError(t, err)
	rest := cfg
	rest.Checkpoint, rest.Resume = ck, true
	resumed, err := Train(context.Background(), rest, data, nil)
	require.NoError(t, err)
	assert.Equal(t, res.Regroupings, resumed.Regroupings)

	uni := baseConfig("llpfc-uniform")
	ures, err := Train(context.Background(), uni, data, nil)
	require.NoError(t, err)
	require.Len(t, ures.Regroupings, 3)
	assert.Nil(t, ures.Regroupings[0].Uniform, "uniform mode: its own summary is the uniform one")

	kl := baseConfig("kl")
	kl.BatchSize = 2
	kres, err := Train(context.Background(), kl, data, nil)
	require.NoError(t, err)
	assert.Empty(t, kres.Regroupings)
}
