package grid

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPresetsMatchAppendix spot-checks the table cells that `train --preset`
// applies against the appendix text (App. `suppsec: exp`): the settings are
// stated once, in the built-in specs.
func TestPresetsMatchAppendix(t *testing.T) {
	cell := func(name, ds, method string) experiments.Config {
		t.Helper()
		c, err := PresetCell(name, ds, method, 512, 7)
		require.NoError(t, err)
		assert.Equal(t, int64(7), c.Seed, "the seed is the caller's")
		return c
	}
	lrAt := func(c experiments.Config, e int) float64 {
		s, err := c.Hyper.Schedule.Training()
		require.NoError(t, err)
		return s.LR(c.Hyper.LR, e)
	}
	w := cell("wrn16-4-cifar", "", "llpfc-uniform")
	assert.Equal(t, "wrn-16-4", w.Model)
	assert.Equal(t, "nesterov", w.Hyper.Optimizer)
	assert.Equal(t, 0.01, w.Hyper.LR)
	assert.Equal(t, 5e-4, w.Hyper.WeightDecay)
	assert.Equal(t, 0.9, w.Hyper.Momentum)
	assert.Equal(t, 200, w.Hyper.Epochs)
	assert.Equal(t, 0.3, w.Hyper.Dropout)
	assert.Equal(t, 128, w.Hyper.BatchSize)
	assert.InDelta(t, 0.01/125, lrAt(w, 160), 1e-15, "lr ÷5 at 60, 120, 160")
	assert.True(t, w.Hyper.Augment)
	assert.Equal(t, PaperPointsColour, w.NumPoints)
	s := cell("wrn16-4-svhn", "", "llpfc-uniform")
	assert.Equal(t, 160, s.Hyper.Epochs)
	assert.Equal(t, 0.4, s.Hyper.Dropout)
	assert.InDelta(t, 1e-4, lrAt(s, 120), 1e-15)
	e := cell("wrn16-4", experiments.EMNISTLetters, "llpvat")
	assert.Equal(t, PaperPointsEMNIST, e.NumPoints)
	assert.Equal(t, 1.0, e.Hyper.VATEps)
	assert.Equal(t, 2, e.Hyper.BatchSize, "LLP-VAT: 2 bags")
	assert.Equal(t, 6.0, cell("wrn16-4", experiments.CIFAR10, "llpvat").Hyper.VATEps)
	r := cell("resnet18", experiments.SVHN, "kl")
	assert.Equal(t, 0.1, r.Hyper.LR)
	assert.Equal(t, 1e-4, r.Hyper.WeightDecay)
	assert.Equal(t, 500, r.Hyper.Epochs)
	assert.InDelta(t, 1e-3, lrAt(r, 375), 1e-15)
	assert.Equal(t, training.KLScaleAuthors, r.Hyper.KLScale)
	v := cell("vgg16", experiments.CIFAR10, "llpfc-approx")
	assert.Equal(t, 256, v.Hyper.BatchSize)
	assert.Equal(t, 5, v.Hyper.RegroupEvery)
	assert.Equal(t, 74, v.Hyper.Epochs)
	assert.InDelta(t, 1e-5, lrAt(v, 56), 1e-15)
	g := cell("llpgan", experiments.SVHN, "llpgan")
	assert.Equal(t, "adam", g.Hyper.Optimizer)
	assert.Equal(t, 3e-4, g.Hyper.LR)
	assert.Equal(t, 0.5, g.Hyper.Beta1)
	assert.Equal(t, 3000, g.Hyper.Epochs)
	assert.Equal(t, 1, g.Hyper.BatchSize)
	for _, name := range []string{"wrn16-4", "resnet18", "llpgan"} {
		c := cell(name, experiments.SVHN, "llpfc-uniform")
		assert.Equal(t, 20, c.Hyper.RegroupEvery, name)
	}
}

// TestPresetCellErrors: a preset names what it lacks.
func TestPresetCellErrors(t *testing.T) {
	for _, tc := range []struct {
		name, ds, method string
		bag              int
		want             string
	}{
		{"wrn16-5", experiments.CIFAR10, "kl", 32, "unknown"},
		{"wrn16-4", "mnist", "kl", 32, "no data set mnist"},
		{"wrn16-4", experiments.CIFAR10, "supervised", 32, "no method supervised"},
		{"wrn16-4", experiments.CIFAR10, "kl", 100, "no bag size 100"},
		{"wrn16-4-cifar", experiments.SVHN, "kl", 32, "is the cifar10 setting"},
		{"wrn16-4", "", "kl", 32, "name one"},
	} {
		_, err := PresetCell(tc.name, tc.ds, tc.method, tc.bag, 0)
		assert.ErrorContains(t, err, tc.want, "%+v", tc)
	}
}

// The appendix's WRN-16-4 CIFAR10 cell, as `llpfc train --preset
// wrn16-4-cifar` runs it: its learning rate at a few epochs.
func ExamplePresetCell() {
	c, err := PresetCell("wrn16-4-cifar", "", "llpfc-uniform", 512, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := c.Hyper.Schedule.Training()
	for _, e := range []int{0, 60, 120, 160} {
		fmt.Printf("epoch %d: %.5f\n", e, s.LR(c.Hyper.LR, e))
	}
	fmt.Println(c.Model, c.Hyper.Optimizer, c.Hyper.Epochs, "epochs", math.Round(c.Hyper.Dropout*10)/10, "dropout")
	// Output:
	// epoch 0: 0.01000
	// epoch 60: 0.00200
	// epoch 120: 0.00040
	// epoch 160: 0.00008
	// wrn-16-4 nesterov 200 epochs 0.3 dropout
}
