package estimators

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBagSetRoundTrip: Write then ReadBagSet returns the same set, Write
// is deterministic, and ReadBagSet rejects unknown keys and invalid sets
// with the error naming the bag.
func TestBagSetRoundTrip(t *testing.T) {
	set := randomBagSet(rng.New(1, "rt"), 4, 9, 0.3)
	var a, b bytes.Buffer
	require.NoError(t, set.Write(&a))
	require.NoError(t, set.Write(&b))
	assert.Equal(t, a.Bytes(), b.Bytes(), "Write is not deterministic")
	got, err := ReadBagSet(&a)
	require.NoError(t, err)
	assert.Equal(t, set, got, "round trip changed the set")
	for _, c := range []struct{ body, want string }{
		{`{"num_classes": 2, "bags": [], "extra": 1}`, `unknown field "extra"`},
		{`{"num_classes": 2, "bags": [{"id": 3, "size": 2, "proportions": [0.7, 0.7]}]}`, "bag 3: proportions sum to 1.4"},
		{`not json`, "bags file:"},
		{`{"num_classes": 2, "bags": [{"id": 3, "size": 2, "proportions": [0.5, 0.5], "indices": [0, 1], "indices": [1, 2]}]}`,
			`bags file: the key "indices" appears twice in the object at /bags/0`},
		{`{"num_classes": 2, "bags": [{"ID": 3, "size": 2, "proportions": [0.5, 0.5]}]}`,
			`bags file: the key "ID" in the object at /bags/0 is not spelled as documented`},
	} {
		_, err := ReadBagSet(strings.NewReader(c.body))
		assert.ErrorContainsf(t, err, c.want, "%s: error %v, want %q", c.body, err, c.want)
	}
}
