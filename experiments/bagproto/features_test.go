package bagproto

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/rng"
)

// featureCase is a generated labelled data set: labels, a key per instance
// (a feature value combination) and feature vectors.
type featureCase struct {
	Y       []int
	Classes int
	Keys    []int
	X       []float32
	D       int
	Points  int // NumPoints: 0 (all) or a subset
	Min     int
	Max     int
	K       int
	Seed    int64
}

func genFeatureCase(p *gopter.GenParameters) *gopter.GenResult {
	r := p.Rng
	c := featureCase{Classes: 2 + r.Intn(4), D: 1 + r.Intn(4), Seed: r.Int63()}
	n := 1 + r.Intn(150)
	distinct := 1 + r.Intn(12)
	for i := 0; i < n; i++ {
		c.Y = append(c.Y, r.Intn(c.Classes))
		c.Keys = append(c.Keys, r.Intn(distinct))
		for j := 0; j < c.D; j++ {
			// coarse values, so that duplicates and ties occur
			c.X = append(c.X, float32(r.Intn(7))/2)
		}
	}
	if r.Intn(3) == 0 {
		c.Points = 1 + r.Intn(n)
	}
	if r.Intn(2) == 0 {
		c.Min = 1 + r.Intn(5)
	}
	if r.Intn(2) == 0 {
		c.Max = c.Min + 1 + r.Intn(20)
	}
	c.K = 1 + r.Intn(min(n, 8))
	return gopter.NewGenResult(c, gopter.NoShrinker)
}

// checkPartition checks the rules every protocol's result keeps: each
// instance in at most one bag (exactly one when all must be), every bag's
// proportions equal to its labels' frequencies, bags non-empty.
func checkPartition(res *Result, y []int, classes, taken int) error {
	seen := map[int]bool{}
	total := 0
	for _, b := range res.Bags.Bags {
		if b.Size != len(b.Indices) || b.Size == 0 {
			return fmt.Errorf("bag %d: size %d, %d indices", b.ID, b.Size, len(b.Indices))
		}
		count := make([]float64, classes)
		for _, i := range b.Indices {
			if seen[i] {
				return fmt.Errorf("instance %d in two bags", i)
			}
			seen[i] = true
			count[y[i]]++
		}
		for c := range count {
			if want := count[c] / float64(b.Size); b.Proportions[c] != want {
				return fmt.Errorf("bag %d class %d: proportion %v, frequency %v", b.ID, c, b.Proportions[c], want)
			}
		}
		total += b.Size
	}
	if total+res.Dropped != taken {
		return fmt.Errorf("%d instances in bags and %d dropped, %d taken", total, res.Dropped, taken)
	}
	return res.Bags.Validate()
}

func taken(c featureCase) int {
	if c.Points > 0 {
		return c.Points
	}
	return len(c.Y)
}

// TestPropertyFeatureProtocol: the feature protocol puts every instance
// taken in exactly one bag, or in none when its bag's size is outside the
// bounds; a bag's instances share their key and two bags differ in it;
// proportions are the labels' frequencies; the same seed gives the same
// bags.
func TestPropertyFeatureProtocol(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(28)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	props.Property("feature bags", prop.ForAll(func(c featureCase) string {
		cfg := Config{Protocol: Protocol{Kind: FeatureKind, Columns: []string{"k"}, MinSize: c.Min, MaxSize: c.Max}, NumPoints: c.Points, Seed: c.Seed}
		res, err := MakeFeature(c.Y, c.Classes, c.Keys, cfg)
		if err != nil {
			if (c.Min > 0 || c.Max > 0) && strings.Contains(err.Error(), "fall outside") {
				return "" // every bag filtered out: an error, as documented
			}
			return err.Error()
		}
		if err := checkPartition(res, c.Y, c.Classes, taken(c)); err != nil {
			return err.Error()
		}
		keyOf := map[int]int{}
		for _, b := range res.Bags.Bags {
			if b.Size < c.Min || c.Max > 0 && b.Size > c.Max {
				return fmt.Sprintf("bag %d of size %d kept outside %d…%d", b.ID, b.Size, c.Min, c.Max)
			}
			k := c.Keys[b.Indices[0]]
			for _, i := range b.Indices {
				if c.Keys[i] != k {
					return fmt.Sprintf("bag %d mixes keys %d and %d", b.ID, k, c.Keys[i])
				}
			}
			if prev, dup := keyOf[k]; dup {
				return fmt.Sprintf("bags %d and %d share key %d", prev, b.ID, k)
			}
			keyOf[k] = b.ID
		}
		again, err := MakeFeature(c.Y, c.Classes, c.Keys, cfg)
		if err != nil || !reflect.DeepEqual(res, again) {
			return "the same seed gave other bags"
		}
		return ""
	}, gopter.Gen(genFeatureCase)))
	props.TestingRun(t)
}

// TestPropertyKMeansProtocol: kmeans:K makes K non-empty bags holding every
// instance taken exactly once, with the labels' frequencies as
// proportions, the same bags for the same seed, and — when Lloyd's
// iterations converged — each instance no farther from its own bag's mean
// than from any other bag's.
func TestPropertyKMeansProtocol(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(28)
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("kmeans bags", prop.ForAll(func(c featureCase) string {
		cfg := Config{Protocol: Protocol{Kind: KMeansKind, K: c.K}, NumPoints: c.Points, Seed: c.Seed}
		res, err := MakeKMeans(c.Y, c.Classes, c.X, c.D, cfg)
		if err != nil {
			if distinctRows(c) < c.K || c.K > taken(c) {
				return "" // fewer distinct points than bags: documented error
			}
			return err.Error()
		}
		if len(res.Bags.Bags) != c.K {
			return fmt.Sprintf("%d bags, want K = %d", len(res.Bags.Bags), c.K)
		}
		if err := checkPartition(res, c.Y, c.Classes, taken(c)); err != nil {
			return err.Error()
		}
		again, err := MakeKMeans(c.Y, c.Classes, c.X, c.D, cfg)
		if err != nil || !reflect.DeepEqual(res, again) {
			return "the same seed gave other bags"
		}
		return nearestMean(res, c)
	}, gopter.Gen(genFeatureCase)))
	props.TestingRun(t)
}

// distinctRows counts the distinct feature vectors of the case (over all
// instances: an upper bound for a subset's).
func distinctRows(c featureCase) int {
	seen := map[string]bool{}
	for i := range c.Y {
		seen[fmt.Sprint(c.X[i*c.D:(i+1)*c.D])] = true
	}
	return len(seen)
}

// nearestMean checks Lloyd's fixed point: every instance is no farther
// from its bag's mean than from another bag's (ties allowed), unless the
// bags came from the empty-cluster repair (a bag of one point) or the
// iteration limit.
func nearestMean(res *Result, c featureCase) string {
	means := make([][]float64, len(res.Bags.Bags))
	for k, b := range res.Bags.Bags {
		means[k] = make([]float64, c.D)
		for _, i := range b.Indices {
			for j := 0; j < c.D; j++ {
				means[k][j] += float64(c.X[i*c.D+j]) / float64(b.Size)
			}
		}
	}
	dist := func(i, k int) float64 {
		s := 0.0
		for j := 0; j < c.D; j++ {
			t := float64(c.X[i*c.D+j]) - means[k][j]
			s += t * t
		}
		return s
	}
	for k, b := range res.Bags.Bags {
		for _, i := range b.Indices {
			for o := range res.Bags.Bags {
				if o != k && dist(i, o) < dist(i, k)-1e-9 && b.Size > 1 {
					return fmt.Sprintf("instance %d in bag %d is nearer bag %d's mean (%v < %v)", i, k, o, dist(i, o), dist(i, k))
				}
			}
		}
	}
	return ""
}

// TestKMeansSeparatesClusters: three well-separated blobs are found as
// three bags, whatever the seed.
func TestKMeansSeparatesClusters(t *testing.T) {
	r := rng.New(1, "blobs")
	var x []float32
	var y []int
	for i := 0; i < 90; i++ {
		c := i % 3
		x = append(x, float32(10*c)+float32(r.NormFloat64()), float32(-10*c)+float32(r.NormFloat64()))
		y = append(y, c)
	}
	for seed := int64(0); seed < 5; seed++ {
		res, err := MakeKMeans(y, 3, x, 2, Config{Protocol: Protocol{Kind: KMeansKind, K: 3}, Seed: seed})
		require.NoError(t, err)
		for _, b := range res.Bags.Bags {
			assert.Equal(t, 30, b.Size)
			assert.Equal(t, 1.0, maxOf(b.Proportions), "a pure bag per blob")
		}
	}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}

// TestFeatureProtocolErrors: the documented errors.
func TestFeatureProtocolErrors(t *testing.T) {
	y, keys := []int{0, 1, 0}, []int{0, 1, 1}
	_, err := MakeFeature(y, 2, keys, Config{Protocol: Protocol{Kind: FeatureKind, Columns: []string{"k"}, MinSize: 5}})
	assert.ErrorContains(t, err, "all 2 bags (of 3 instances) fall outside the sizes 5…∞")
	_, err = MakeFeature(y, 2, keys, Config{Protocol: Protocol{Kind: FeatureKind, Columns: []string{"k"}}, NumPoints: 4})
	assert.ErrorContains(t, err, "4 points asked, the data set has 3")
	_, err = MakeKMeans(y, 2, []float32{1, 1, 1}, 1, Config{Protocol: Protocol{Kind: KMeansKind, K: 2}})
	assert.ErrorContains(t, err, "only 1 distinct feature vectors, fewer than 2 bags")
	_, err = Make(y, 2, Config{Protocol: Protocol{Kind: KMeansKind, K: 2}})
	assert.ErrorContains(t, err, "use MakeFeature or MakeKMeans")
}
