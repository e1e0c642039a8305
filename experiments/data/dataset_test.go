package data

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDatasetValidate(t *testing.T) {
	good := func() *Dataset {
		return &Dataset{Name: "toy", X: []float32{0, 0.5, 1, 0.25}, Y: []int{1, 0}, N: 2, D: 2, NumClasses: 2, Channels: 1, Height: 1, Width: 2}
	}
	require.NoError(t, good().Validate())
	for _, c := range []struct {
		name   string
		mutate func(d *Dataset)
		want   string
	}{
		{"X length", func(d *Dataset) { d.X = d.X[:3] }, "len(X) = 3, want N·D = 2·2"},
		{"Y length", func(d *Dataset) { d.Y = d.Y[:1] }, "len(Y) = 1, want N = 2"},
		{"label", func(d *Dataset) { d.Y[1] = 2 }, "instance 1 has label 2, want 0…1"},
		{"classes", func(d *Dataset) { d.NumClasses = 0 }, "NumClasses = 0"},
		{"NaN", func(d *Dataset) { d.X[3] = float32(math.NaN()) }, "instance 1 feature 1 is NaN"},
		{"pixel", func(d *Dataset) { d.X[2] = 1.5 }, "instance 1 pixel 0 is 1.5, want [0,1]"},
		{"shape", func(d *Dataset) { d.Width = 3 }, "image shape 1×1×3 does not give D = 2"},
		{"D", func(d *Dataset) { d.D = 0 }, "shape 2×0"},
	} {
		d := good()
		c.mutate(d)
		wantErr(t, d.Validate(), "toy", c.want)
	}
	// Tabular data may hold any finite value.
	d := good()
	d.Channels, d.Height, d.Width = 0, 0, 0
	d.X[0] = -7
	assert.NoError(t, d.Validate(), "tabular")
}
