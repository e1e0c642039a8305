package choice

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type level uint16

var levels = Set[level]{What: "level", Names: []string{"", "low", "high"}, Want: "low or high"}

// TestSetRoundTrips: every named value marshals to its name and back; the
// zero value is the empty text; the empty name is not a value Parse takes;
// a value outside the set cannot be written; names are matched exactly
// ("High" is not "high").
func TestSetRoundTrips(t *testing.T) {
	for v := level(1); int(v) < len(levels.Names); v++ {
		b, err := levels.Marshal(v)
		assert.NoError(t, err)
		var back level
		assert.NoError(t, levels.Unmarshal(&back, b))
		assert.Equal(t, v, back)
		assert.Equal(t, levels.Names[v], levels.String(v))
	}
	b, err := levels.Marshal(0)
	assert.NoError(t, err)
	assert.Empty(t, b)
	_, err = levels.Parse("")
	assert.EqualError(t, err, `level "": want low or high`)
	_, err = levels.Marshal(7)
	assert.EqualError(t, err, "level: no value 7")
	assert.Equal(t, "level(7)", levels.String(7))
	_, err = levels.Parse("High")
	assert.Error(t, err)
}
