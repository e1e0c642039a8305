package grid

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// TestSpecPVCLikelihood: a spec's llppvc cells train the exact
// likelihood unless it says "fft", and the FFT's cells are written with the
// setting empty, the configuration (and key) of every llppvc cell trained
// before the setting existed; the built-in tables keep the authors' FFT
// (newerOverrides), so their committed cells keep their keys; other
// methods' cells carry no likelihood.
func TestSpecPVCLikelihood(t *testing.T) {
	s, ok := BuiltinSpec("fashion-mnist")
	require.True(t, ok)
	cells, err := s.Cells()
	require.NoError(t, err)
	n := 0
	for _, c := range cells {
		assert.Empty(t, c.Config.Hyper.PVCLikelihood, "%s: the authors' FFT, written empty", c.Config.Method)
		if c.Config.Method == training.MethodLLPPVC {
			n++
		}
	}
	require.Positive(t, n)

	// without the authors' preset: the default
	s.Methods = []string{training.MethodKL, training.MethodLLPPVC}
	batches := []Override{{When: Match{Methods: s.Methods}, Set: set(obj{"hyper": obj{"batch_size": 2}})}}
	s.Overrides = batches
	exact, err := s.Cells()
	require.NoError(t, err)
	for _, c := range exact {
		if c.Config.Method == training.MethodLLPPVC {
			assert.Equal(t, training.PVCExact, c.Config.Hyper.PVCLikelihood)
		} else {
			assert.Empty(t, c.Config.Hyper.PVCLikelihood, c.Config.Method)
		}
	}
	s.Overrides = append(batches, Override{When: Match{Methods: []string{training.MethodLLPPVC}}, Set: set(obj{"hyper": obj{"pvc_likelihood": "fft"}})})
	fft, err := s.Cells()
	require.NoError(t, err)
	for i, c := range fft {
		if c.Config.Method == training.MethodLLPPVC {
			assert.Empty(t, c.Config.Hyper.PVCLikelihood)
			assert.NotEqual(t, exact[i].Key, c.Key, "exact and fft share a key")
		}
	}
	s.Overrides = append(batches, Override{When: Match{Methods: []string{training.MethodKL}}, Set: set(obj{"hyper": obj{"pvc_likelihood": "exact"}})})
	_, err = s.Cells()
	assert.ErrorContains(t, err, "hyper.pvc_likelihood")
}

// TestPVCLikelihoodComparable: a table may set llppvc's exact cells beside
// another method's (the likelihood is llppvc's own setting), but not two
// llppvc cells of different likelihoods.
func TestPVCLikelihoodComparable(t *testing.T) {
	s, ok := BuiltinSpec("fashion-mnist")
	require.True(t, ok)
	s.Methods = []string{training.MethodKL, training.MethodLLPPVC}
	s.Overrides = []Override{{When: Match{Methods: s.Methods}, Set: set(obj{"hyper": obj{"batch_size": 2}})}}
	s.BagSizes, s.Seeds = []int{32}, []int64{0, 1}
	cells, err := s.Cells()
	require.NoError(t, err)
	var rs []*Result
	for _, c := range cells {
		rs = append(rs, &Result{Key: c.Key, Config: c.Config})
	}
	k := TableKey{Spec: s.Name}
	require.NoError(t, checkComparable(k, rs, nil))
	for _, r := range rs {
		if r.Config.Method == training.MethodLLPPVC && r.Config.Seed == 1 {
			r.Config.Hyper.PVCLikelihood = 0
		}
	}
	assert.ErrorContains(t, checkComparable(k, rs, nil), "hyper.pvc_likelihood")
}

// TestOwnSettingComparable: a method's own setting declared without a field
// (hyper.settings.NAME) is per-method, as LLP-PVC's likelihood is: a table
// may set it for its method beside another method's cells, which cannot
// state it, but not two values among one method's cells.
func TestOwnSettingComparable(t *testing.T) {
	gain := &methods.Setting{Name: "test_gain", Kind: methods.KindFloat, Default: "1", Min: 0, Max: 10, Help: "a test's"}
	methods.Register(methods.Descriptor{Name: "test-gain", Label: "Test-Gain", Order: 78, Family: methods.FamilyBag, Batch: methods.Bags,
		DefaultBatch: 2, Help: "a test's", Search: methods.DefaultSearch, Settings: []*methods.Setting{gain},
		New: func(*methods.Env) (methods.Method, error) { return nil, nil }})
	t.Cleanup(func() { methods.Unregister("test-gain") })
	s, ok := BuiltinSpec("fashion-mnist")
	require.True(t, ok)
	s.Methods = []string{training.MethodKL, "test-gain"}
	s.Overrides = []Override{{When: Match{Methods: s.Methods}, Set: set(obj{"hyper": obj{"batch_size": 2}})},
		{When: Match{Methods: []string{"test-gain"}}, Set: set(obj{"hyper": obj{"settings": obj{"test_gain": 2}}})}}
	s.BagSizes, s.Seeds = []int{32}, []int64{0, 1}
	cells, err := s.Cells()
	require.NoError(t, err)
	var rs []*Result
	for _, c := range cells {
		rs = append(rs, &Result{Key: c.Key, Config: c.Config})
	}
	k := TableKey{Spec: s.Name}
	require.NoError(t, checkComparable(k, rs, nil))
	for _, r := range rs {
		if r.Config.Method == "test-gain" && r.Config.Seed == 1 {
			r.Config.Hyper.Settings = methods.Values{"test_gain": methods.NumValue(3)}
		}
	}
	assert.ErrorContains(t, checkComparable(k, rs, nil), "hyper.settings.test_gain")
}

// TestMinibatchPerBagSizeComparable: a step-matched grid gives a bag
// method's minibatch per bag size (stepsSpec), so one method's cells may
// differ in it between bag sizes — but not within one bag size, which the
// paired comparisons hold side by side, and no other per-method setting
// may differ between bag sizes.
func TestMinibatchPerBagSizeComparable(t *testing.T) {
	s, ok := BuiltinSpec("fashion-mnist-shuffle-steps")
	require.True(t, ok)
	s.Methods = []string{training.MethodKL, training.MethodLLPFCUniform}
	s.BagSizes, s.Seeds = []int{64, 256}, []int64{0, 1}
	cells, err := s.Cells()
	require.NoError(t, err)
	fresh := func() []*Result {
		var rs []*Result
		for _, c := range cells {
			rs = append(rs, &Result{Key: c.Key, Config: c.Config})
		}
		return rs
	}
	k := TableKey{Spec: s.Name}
	batches := map[int]int{}
	for _, r := range fresh() {
		if r.Config.Method == training.MethodKL {
			batches[r.Config.BagSize] = r.Config.Hyper.BatchSize
		}
	}
	require.Equal(t, map[int]int{64: 2, 256: 1}, batches, "the grid's minibatches of bags")
	require.NoError(t, checkComparable(k, fresh(), nil))

	for _, c := range []struct {
		what  string
		edit  func(*Result)
		field string
	}{
		{"one seed's minibatch at one bag size", func(r *Result) {
			if r.Config.Method == training.MethodKL && r.Config.BagSize == 64 && r.Config.Seed == 1 {
				r.Config.Hyper.BatchSize = 3
			}
		}, "hyper.batch_size"},
		{"another per-method setting at one bag size", func(r *Result) {
			if r.Config.Method == training.MethodLLPFCUniform && r.Config.BagSize == 256 {
				r.Config.Hyper.RegroupEvery = 7
			}
		}, "hyper.regroup_every"},
	} {
		rs := fresh()
		for _, r := range rs {
			c.edit(r)
		}
		assert.ErrorContains(t, checkComparable(k, rs, nil), c.field, c.what)
	}
}
