package estimators

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bags file is one JSON object; two concatenated files,
// or any trailing token, are refused naming the offset, while trailing
// white space is fine.
func TestReadBagSetRejectsTrailingData(t *testing.T) {
	set := &BagSet{NumClasses: 2, Bags: []Bag{{ID: 0, Size: 2, Proportions: []float64{0.5, 0.5}, Indices: []int{0, 1}}}}
	var b bytes.Buffer
	require.NoError(t, set.Write(&b))
	one := b.String()
	_, err := ReadBagSet(strings.NewReader(one + "\n\t "))
	assert.NoError(t, err)
	for _, tail := range []string{one, "x", "{}", "]"} {
		_, err := ReadBagSet(strings.NewReader(one + tail))
		assert.ErrorContains(t, err, "trailing data", "tail %q", tail)
	}
}
