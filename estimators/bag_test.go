package estimators

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
)

// TestBagSetRoundTrip: Write then ReadBagSet returns the same set, Write
// is deterministic, and ReadBagSet rejects unknown keys and invalid sets
// with the error naming the bag.
func TestBagSetRoundTrip(t *testing.T) {
	set := randomBagSet(rng.New(1, "rt"), 4, 9, 0.3)
	var a, b bytes.Buffer
	if err := set.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := set.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("Write is not deterministic")
	}
	got, err := ReadBagSet(&a)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, set) {
		t.Error("round trip changed the set")
	}
	for _, c := range []struct{ body, want string }{
		{`{"num_classes": 2, "bags": [], "extra": 1}`, `unknown field "extra"`},
		{`{"num_classes": 2, "bags": [{"id": 3, "size": 2, "proportions": [0.7, 0.7]}]}`, "bag 3: proportions sum to 1.4"},
		{`not json`, "bags file:"},
	} {
		if _, err := ReadBagSet(strings.NewReader(c.body)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
}
