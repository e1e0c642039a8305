package loss

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSqPropByHand: the squared proportion loss and its gradient on cases
// worked by hand. One bag of two instances predicting (0.8, 0.2) and
// (0.4, 0.6) has mean (0.6, 0.4); against proportions (½, ½) the loss is
// 0.1² + 0.1² = 0.02 and each instance's gradient 2·(±0.1)/2 = ±0.1. Beside
// a second bag of one instance predicting (0, 1) against (1, 0), loss
// (1 + 1) = 2, the minibatch's loss is the mean (0.02 + 2)/2 = 1.01 and
// every gradient halves. A bag predicting its proportions exactly costs 0.
func TestSqPropByHand(t *testing.T) {
	bag := BagRef{Indices: []int{0, 1}, Proportions: []float64{0.5, 0.5}}
	out := []float64{0.8, 0.2, 0.4, 0.6}
	grad := make([]float64, 4)
	l, err := (&SqProp{}).Loss(out, 2, []BagRef{bag}, grad)
	require.NoError(t, err)
	assert.InDelta(t, 0.02, l, 1e-15)
	assert.InDeltaSlice(t, []float64{0.1, -0.1, 0.1, -0.1}, grad, 1e-15)

	two := []BagRef{bag, {Indices: []int{2}, Proportions: []float64{1, 0}}}
	out = append(out, 0, 1)
	grad = make([]float64, 6)
	l, err = (&SqProp{}).Loss(out, 2, two, grad)
	require.NoError(t, err)
	assert.InDelta(t, 1.01, l, 1e-15)
	assert.InDeltaSlice(t, []float64{0.05, -0.05, 0.05, -0.05, -1, 1}, grad, 1e-15)

	exact := []float64{0.3, 0.7, 0.3, 0.7}
	l, err = (&SqProp{}).Loss(exact, 2, []BagRef{{Indices: []int{0, 1}, Proportions: []float64{0.3, 0.7}}}, make([]float64, 4))
	require.NoError(t, err)
	assert.Zero(t, l)
}

// TestSqPropRefusesMismatchedBags: bags that hold more instances than the
// outputs, or proportions of another number of classes, are errors naming
// the bag.
func TestSqPropRefusesMismatchedBags(t *testing.T) {
	_, err := (&SqProp{}).Loss([]float64{0.5, 0.5}, 2, []BagRef{{Indices: []int{0, 1}, Proportions: []float64{1, 0}}}, make([]float64, 2))
	assert.ErrorContains(t, err, "bag 0")
	_, err = (&SqProp{}).Loss([]float64{0.5, 0.5}, 2, []BagRef{{Indices: []int{0}, Proportions: []float64{1, 0, 0}}}, make([]float64, 2))
	assert.ErrorContains(t, err, "3 proportions for 2 classes")
}
