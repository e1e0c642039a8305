package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AlignColumns moves each one-hot feature to its category's place in the
// model's columns (by name, whatever the order of the columns), zeroes a
// category the model never saw and refuses a column whose kind changed.
func TestAlignColumns(t *testing.T) {
	model := []Column{{Name: "x", Offset: 0, Width: 1}, {Name: "colour", Categories: []string{"blue", "green", "red"}, Offset: 1, Width: 3}}
	// The table's own layout: colour first, over green, red, yellow; then x.
	d := &Dataset{Name: "t", N: 2, D: 4, NumClasses: 2, Y: []int{0, 1},
		Columns: []Column{{Name: "colour", Categories: []string{"green", "red", "yellow"}, Offset: 0, Width: 3}, {Name: "x", Offset: 3, Width: 1}},
		Raw:     []float64{0, 1, 0, 2.5 /* red */, 0, 0, 1, -1 /* yellow */}}
	d.X = []float32{0, 1, 0, 2.5, 0, 0, 1, -1}
	a, err := d.AlignColumns(model)
	require.NoError(t, err)
	assert.Equal(t, 4, a.D)
	assert.Equal(t, []float64{2.5, 0, 0, 1, -1, 0, 0, 0}, a.Raw, "x, then blue, green, red: red one-hot, yellow all-zero")
	assert.Equal(t, []float32{2.5, 0, 0, 1, -1, 0, 0, 0}, a.X)
	assert.Equal(t, model, a.Columns)

	numeric := &Dataset{Name: "t", N: 1, D: 2, NumClasses: 2, Y: []int{0}, X: []float32{1, 2},
		Columns: []Column{{Name: "x", Offset: 0, Width: 1}, {Name: "colour", Offset: 1, Width: 1}}}
	_, err = numeric.AlignColumns(model)
	assert.ErrorContains(t, err, `column "colour" is numeric here but was categorical in training`)
}
