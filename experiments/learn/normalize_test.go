package learn

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"

	"github.com/llpfc/llpfc/experiments/data"
)

// A standardized problem has training data of mean 0 and std 1 per feature
// (the constants of the whole training split), the test split mapped with the
// same constants, and the learner records the normalization, the optimizer
// steps per epoch and the instance-epochs.
func TestProblemAndMetricsCarryNormalization(t *testing.T) {
	cell := miniCell("llpfc-uniform")
	p, err := LoadProblem(cell)
	require.NoError(t, err)
	require.Equal(t, data.Standardize, p.Norm.Mode)
	for j := 0; j < p.Train.D; j++ {
		col := make([]float64, p.Train.N)
		for i := range col {
			col[i] = float64(p.Train.X[i*p.Train.D+j])
		}
		m, sd := stat.PopMeanStdDev(col, nil)
		assert.InDelta(t, 0, m, 1e-5, "feature %d mean", j)
		assert.InDelta(t, 1, sd, 1e-5, "feature %d std", j)
	}
	rawTrain, rawTest, err := GaussianMixture(cell.Config.Dataset)
	require.NoError(t, err)
	assert.InDelta(t, (float64(rawTest.X[0])-p.Norm.Mean[0])/p.Norm.Std[0], float64(p.Test.X[0]), 1e-6, "test split, training constants")
	fit, err := data.Fit(data.Standardize, rawTrain)
	require.NoError(t, err)
	assert.Equal(t, fit, p.Norm)

	m, err := Gorgonia{}.Train(context.Background(), cell, nil)
	require.NoError(t, err)
	require.NotNil(t, m.Normalization)
	assert.Equal(t, p.Norm, *m.Normalization)
	assert.Equal(t, (126*16+63)/64, m.StepsPerEpoch, "2016 grouped instances in minibatches of 64")
	assert.Equal(t, int64(4*126*16), m.InstanceEpochs, "4 epochs of the 126 grouped bags of 16 (128 bags, groups of C = 3: 2 left over)")
	kl, err := Gorgonia{}.Train(context.Background(), miniCell("kl"), nil)
	require.NoError(t, err)
	assert.Equal(t, 2048/16/2, kl.StepsPerEpoch, "128 bags in minibatches of 2")
}

// The supervised ceiling trains through the grid on the same bagged
// instances, counting its batch in instances, and beats chance by far.
func TestGorgoniaLearnerSupervised(t *testing.T) {
	cell := miniCell("supervised")
	require.NoError(t, cell.Config.Validate())
	m, err := Gorgonia{}.Train(context.Background(), cell, nil)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, m.TestAccuracy, 0.9, "chance is 1/3")
	assert.Equal(t, 2048/64, m.StepsPerEpoch, "all 2048 bagged instances in minibatches of 64")
	assert.Empty(t, m.Regroupings)
}
