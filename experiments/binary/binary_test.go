package binary

import (
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pool(n int, seed uint64) *data.BinarySet {
	r := rand.New(rand.NewPCG(seed, 0))
	s := &data.BinarySet{Name: "toy", Columns: []string{"a", "b"}, Continuous: []bool{true, true}}
	for i := 0; i < n; i++ {
		pos := r.IntN(2) == 0
		x := []float64{r.NormFloat64(), float64(i)} // column b identifies the pool row
		if pos {
			x[0] += 2
		}
		s.X = append(s.X, x)
		s.Positive = append(s.Positive, pos)
	}
	return s
}

// Bags have the requested size, their proportions are the true fraction of
// positives of their members, no pool row is used twice, proportions fall
// in the interval on average, and the same stream gives the same bags.
func TestMakeBagsFollowsUniformPropProtocol(t *testing.T) {
	p := pool(2000, 1)
	for _, iv := range []Interval{{0, 0.5}, {0.5, 1}} {
		d, err := MakeBags(p, 40, 16, iv.Lo, iv.Hi, rng.New(3, "bags"))
		require.NoError(t, err)
		used := map[float64]bool{}
		mean := 0.0
		for _, b := range d.Bags.Bags {
			require.Equalf(t, 16, b.Size, "bag %d size %d", b.ID, b.Size)
			require.Lenf(t, b.Indices, 16, "bag %d size %d", b.ID, b.Size)
			pos := 0
			for _, i := range b.Indices {
				id := d.X.At(i, 1)
				require.Falsef(t, used[id], "pool row %v used twice", id)
				used[id] = true
				if p.Positive[int(id)] {
					pos++
				}
			}
			require.Equalf(t, float64(pos)/16, b.Proportions[1], "bag %d: proportions %v, members have %d/16 positives", b.ID, b.Proportions, pos)
			require.Equalf(t, 1-b.Proportions[1], b.Proportions[0], "bag %d: proportions %v, members have %d/16 positives", b.ID, b.Proportions, pos)
			mean += b.Proportions[1] / 40
		}
		mid := (iv.Lo + iv.Hi) / 2
		assert.GreaterOrEqualf(t, mean, mid-0.08, "%v: mean proportion %.3f, want ≈ %.2f", iv, mean, mid)
		assert.LessOrEqualf(t, mean, mid+0.08, "%v: mean proportion %.3f, want ≈ %.2f", iv, mean, mid)
		d2, _ := MakeBags(p, 40, 16, iv.Lo, iv.Hi, rng.New(3, "bags"))
		for k := range d.Bags.Bags {
			require.Equal(t, d.Bags.Bags[k].Proportions[1], d2.Bags.Bags[k].Proportions[1], "same stream, different bags")
			require.Equal(t, d.X.At(k, 1), d2.X.At(k, 1), "same stream, different bags")
		}
	}
	_, err := MakeBags(pool(50, 2), 10, 16, 0, 1, rng.New(1, "b"))
	assert.Error(t, err, "pool too small: no error")
}

func TestSpecCellsAndSeeds(t *testing.T) {
	s := PaperSpec()
	assert.Lenf(t, s.Cells(), 2*2*4*5*5, "paper grid has %d cells, want 400", len(s.Cells()))
	c := s.Cells()
	// The methods of one trial share the bag seed; trials differ.
	assert.Equal(t, s.bagSeed(c[0]), s.bagSeed(c[1]), "bag seeds: methods of a trial must share them")
	assert.NotEqual(t, s.bagSeed(c[0]), s.bagSeed(c[5]), "bag seeds: trials must not share them")
	seen := map[string]bool{}
	for _, x := range c {
		require.Falsef(t, seen[x.Key()], "key %s repeats", x.Key())
		seen[x.Key()] = true
	}
}
