package kernel

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
)

// toyTask draws n points of two Gaussian classes in d dimensions (means ±sep
// on the first axis) and packs them into bags of size bs whose positive
// fractions are drawn uniformly from [lo, hi] as in bag_utils.assign_bags
// ('uniform_prop'). It returns the data, the labels (for AUC only) and a
// test set.
func toyTask(seed uint64, n, d, bs int, lo, hi, sep float64) (Data, *mat.Dense, []bool) {
	r := rand.New(rand.NewPCG(seed, 1))
	point := func(pos bool) []float64 {
		x := make([]float64, d)
		for j := range x {
			x[j] = r.NormFloat64()
		}
		if pos {
			x[0] += sep
		} else {
			x[0] -= sep
		}
		return x
	}
	nb := n / bs
	set := &estimators.BagSet{NumClasses: 2}
	X := mat.NewDense(nb*bs, d, nil)
	row := 0
	for k := 0; k < nb; k++ {
		p := lo + (hi-lo)*r.Float64()
		npos := 0
		b := estimators.Bag{ID: k, Size: bs}
		for j := 0; j < bs; j++ {
			pos := r.Float64() < p
			if pos {
				npos++
			}
			X.SetRow(row, point(pos))
			b.Indices = append(b.Indices, row)
			row++
		}
		q := float64(npos) / float64(bs)
		b.Proportions = []float64{1 - q, q}
		set.Bags = append(set.Bags, b)
	}
	nt := 400
	Xt := mat.NewDense(nt, d, nil)
	yt := make([]bool, nt)
	for i := 0; i < nt; i++ {
		yt[i] = i%2 == 0
		Xt.SetRow(i, point(yt[i]))
	}
	return Data{X: X, Bags: set}, Xt, yt
}

// fdCheck compares the gradient of o with central differences at x.
func fdCheck(o *Objective, x []float64) (maxRel float64) {
	g := make([]float64, len(x))
	o.ValueGrad(x, g)
	h := 1e-6
	for j := range x {
		xp := append([]float64(nil), x...)
		xm := append([]float64(nil), x...)
		xp[j] += h
		xm[j] -= h
		fd := (o.ValueGrad(xp, nil) - o.ValueGrad(xm, nil)) / (2 * h)
		rel := math.Abs(fd-g[j]) / math.Max(1e-4, math.Abs(fd)+math.Abs(g[j]))
		maxRel = math.Max(maxRel, rel)
	}
	return maxRel
}
