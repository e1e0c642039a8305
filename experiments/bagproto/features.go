package bagproto

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
)

// The protocols that make bags from the instances' features rather than by
// drawing counts, so that bags come in varying sizes, as in the field's
// other benchmarks:
//
//   - feature:COL[,COL…][,min=M][,max=M] — one bag per distinct combination
//     of the values of the named columns (LLP-Bench's "feature bags",
//     Criteo instances grouped by categorical columns), keeping only the
//     bags of min…max instances (LLP-Bench keeps 50…2500); the instances of
//     a dropped bag are in no bag (Result.Dropped counts them).
//   - kmeans:K — K bags, the clusters of Lloyd's k-means (k-means++ seeding
//     from the cell's seed) of the instances' feature vectors, as LLP-VAT's
//     k-means bags (which cluster a PCA projection with scikit-learn's
//     MiniBatchKMeans; here the inputs themselves, as the network sees
//     them).
//
// Both take every instance of the split, or with NumPoints > 0 a uniform
// random subset of NumPoints instances (stream "bags" of the seed); each
// bag's proportions are its labels' frequencies, like every protocol's.

// FeatureKind and KMeansKind are the protocols above.
const (
	FeatureKind Kind = iota + Shuffle + 1
	KMeansKind
)

// VariableSize reports whether the protocol makes bags of varying sizes
// (feature:…, kmeans:K): the cell's bag size is then not a setting (0).
func (p Protocol) VariableSize() bool { return p.Kind == FeatureKind || p.Kind == KMeansKind }

// parseFeature reads feature:COL[,COL…][,min=M][,max=M].
func parseFeature(s string) (Protocol, error) {
	p := Protocol{Kind: FeatureKind}
	for _, part := range strings.Split(strings.TrimPrefix(s, "feature:"), ",") {
		key, val, ok := strings.Cut(part, "=")
		switch {
		case part == "":
			return Protocol{}, fmt.Errorf("protocol %q: an empty column name: want feature:COL[,COL…][,min=M][,max=M]", s)
		case !ok:
			p.Columns = append(p.Columns, part)
		case key == "min" || key == "max":
			v, err := strconv.Atoi(val)
			if err != nil || v < 1 {
				return Protocol{}, fmt.Errorf("protocol %q: %s=%q, want an integer ≥ 1", s, key, val)
			}
			if key == "min" {
				p.MinSize = v
			} else {
				p.MaxSize = v
			}
		default:
			return Protocol{}, fmt.Errorf("protocol %q: %q: want a column name, min=M or max=M", s, part)
		}
	}
	switch {
	case len(p.Columns) == 0:
		return Protocol{}, fmt.Errorf("protocol %q: no column: want feature:COL[,COL…][,min=M][,max=M]", s)
	case p.MaxSize > 0 && p.MinSize > p.MaxSize:
		return Protocol{}, fmt.Errorf("protocol %q: min=%d exceeds max=%d", s, p.MinSize, p.MaxSize)
	}
	return p, nil
}

// parseKMeans reads kmeans:K.
func parseKMeans(s string) (Protocol, error) {
	k, err := strconv.Atoi(strings.TrimPrefix(s, "kmeans:"))
	if err != nil || k < 1 {
		return Protocol{}, fmt.Errorf("protocol %q: K must be an integer ≥ 1 (the number of bags)", s)
	}
	return Protocol{Kind: KMeansKind, K: k}, nil
}

// featureString writes a feature protocol as parseFeature reads it.
func (p Protocol) featureString() string {
	parts := append([]string(nil), p.Columns...)
	if p.MinSize > 0 {
		parts = append(parts, "min="+strconv.Itoa(p.MinSize))
	}
	if p.MaxSize > 0 {
		parts = append(parts, "max="+strconv.Itoa(p.MaxSize))
	}
	return "feature:" + strings.Join(parts, ",")
}

// subset returns the instances a feature protocol bags: all n in order, or
// a uniform random subset of numPoints of them, in increasing order.
func subset(r *rand.Rand, n, numPoints int) ([]int, error) {
	if numPoints > n {
		return nil, fmt.Errorf("%d points asked, the data set has %d", numPoints, n)
	}
	if numPoints <= 0 || numPoints == n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	idx := r.Perm(n)[:numPoints]
	sort.Ints(idx)
	return idx, nil
}

// checkLabels checks the labels and the class count.
func checkLabels(y []int, numClasses int) error {
	if numClasses < 2 {
		return fmt.Errorf("%d classes, want ≥ 2", numClasses)
	}
	for i, c := range y {
		if c < 0 || c >= numClasses {
			return fmt.Errorf("instance %d has label %d, want 0…%d", i, c, numClasses-1)
		}
	}
	return nil
}

// setOf returns the bags of the groups (instance lists, in increasing
// order) with their empirical proportions, numbered in order.
func setOf(y []int, numClasses int, groups [][]int) *Result {
	res := &Result{Bags: &estimators.BagSet{NumClasses: numClasses}, Redraws: make([]int, len(groups))}
	for j, g := range groups {
		res.Bags.Bags = append(res.Bags.Bags, estimators.Bag{ID: j, Size: len(g), Proportions: proportions(y, numClasses, g), Indices: g})
	}
	return res
}

// MakeFeature makes the bags of the feature protocol (cfg.Protocol's
// columns and size filters) from the labels y and keys, where keys[i] is
// the value combination of instance i's columns as a small integer (equal
// keys, one bag): one bag per distinct key among the instances taken
// (subset), in increasing key order, the bags outside MinSize…MaxSize
// dropped. It fails when no bag is left.
func MakeFeature(y []int, numClasses int, keys []int, cfg Config) (*Result, error) {
	if cfg.Protocol.Kind != FeatureKind {
		return nil, fmt.Errorf("MakeFeature: protocol %v", cfg.Protocol)
	}
	if err := checkLabels(y, numClasses); err != nil {
		return nil, err
	}
	if len(keys) != len(y) {
		return nil, fmt.Errorf("%d keys for %d instances", len(keys), len(y))
	}
	idx, err := subset(rng.New(cfg.Seed, "bags"), len(y), cfg.NumPoints)
	if err != nil {
		return nil, err
	}
	byKey := map[int][]int{}
	for _, i := range idx {
		byKey[keys[i]] = append(byKey[keys[i]], i)
	}
	order := make([]int, 0, len(byKey))
	for k := range byKey {
		order = append(order, k)
	}
	sort.Ints(order)
	p := cfg.Protocol
	var groups [][]int
	dropped, droppedBags := 0, 0
	for _, k := range order {
		g := byKey[k]
		if len(g) < p.MinSize || p.MaxSize > 0 && len(g) > p.MaxSize {
			dropped += len(g)
			droppedBags++
			continue
		}
		groups = append(groups, g)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("protocol %v: all %d bags (of %d instances) fall outside the sizes %d…%s", p, droppedBags, dropped, p.MinSize, maxText(p.MaxSize))
	}
	res := setOf(y, numClasses, groups)
	res.Dropped, res.DroppedBags = dropped, droppedBags
	if err := res.Bags.Validate(); err != nil {
		return nil, fmt.Errorf("bagproto: internal error: %w", err)
	}
	return res, nil
}

func maxText(m int) string {
	if m == 0 {
		return "∞"
	}
	return strconv.Itoa(m)
}

// kmeansMaxIter bounds Lloyd's iterations (they stop earlier when no
// assignment changes).
const kmeansMaxIter = 50

// MakeKMeans makes the K bags of the kmeans:K protocol from the labels y
// and the row-major N×d features x: Lloyd's k-means with k-means++ seeding
// (the random stream "bags" of cfg.Seed) over the instances taken
// (subset), in float64 (gonum's Dgemm for the distances), until no
// assignment changes or kmeansMaxIter iterations. A cluster left empty
// takes the point farthest from its centre, so every bag has an instance.
// Bag j is cluster j; its instances are in increasing order.
func MakeKMeans(y []int, numClasses int, x []float32, d int, cfg Config) (*Result, error) {
	if cfg.Protocol.Kind != KMeansKind {
		return nil, fmt.Errorf("MakeKMeans: protocol %v", cfg.Protocol)
	}
	if err := checkLabels(y, numClasses); err != nil {
		return nil, err
	}
	if d < 1 || len(x) != len(y)*d {
		return nil, fmt.Errorf("%d feature values for %d instances of %d features", len(x), len(y), d)
	}
	r := rng.New(cfg.Seed, "bags")
	idx, err := subset(r, len(y), cfg.NumPoints)
	if err != nil {
		return nil, err
	}
	k := cfg.Protocol.K
	if k > len(idx) {
		return nil, fmt.Errorf("protocol %v: %d bags of %d instances: want K ≤ the number of instances", cfg.Protocol, k, len(idx))
	}
	km := newKMeans(x, d, idx, k)
	if err := km.seed(r); err != nil {
		return nil, fmt.Errorf("protocol %v: %w", cfg.Protocol, err)
	}
	for it := 0; it < kmeansMaxIter; it++ {
		if changed := km.assign(); !changed && it > 0 {
			break
		}
		km.fillEmpty()
		km.update()
	}
	groups := make([][]int, k)
	for p, c := range km.label {
		groups[c] = append(groups[c], idx[p])
	}
	res := setOf(y, numClasses, groups)
	if err := res.Bags.Validate(); err != nil {
		return nil, fmt.Errorf("bagproto: internal error: %w", err)
	}
	return res, nil
}

// kmeans is Lloyd's algorithm over the points x[idx[p]].
type kmeans struct {
	x      []float32
	d, k   int
	idx    []int
	centre []float64 // k×d
	label  []int     // cluster of each point
	dist   []float64 // squared distance of each point to its centre
}

func newKMeans(x []float32, d int, idx []int, k int) *kmeans {
	return &kmeans{x: x, d: d, k: k, idx: idx, centre: make([]float64, k*d), label: make([]int, len(idx)), dist: make([]float64, len(idx))}
}

// point returns point p as float64.
func (m *kmeans) point(p int, dst []float64) []float64 {
	row := m.x[m.idx[p]*m.d : (m.idx[p]+1)*m.d]
	for j, v := range row {
		dst[j] = float64(v)
	}
	return dst
}

func sqDist(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		t := a[j] - b[j]
		s += t * t
	}
	return s
}

// seed chooses the first centres by k-means++: the first uniformly, each
// next with probability proportional to its squared distance to the
// nearest centre chosen. It fails when the points have fewer than k
// distinct values.
func (m *kmeans) seed(r *rand.Rand) error {
	n := len(m.idx)
	buf, c := make([]float64, m.d), make([]float64, m.d)
	first := r.IntN(n)
	copy(m.centre[:m.d], m.point(first, buf))
	for p := range m.dist {
		m.dist[p] = sqDist(m.point(p, buf), m.centre[:m.d])
	}
	for j := 1; j < m.k; j++ {
		total := 0.0
		for _, v := range m.dist {
			total += v
		}
		if !(total > 0) {
			return fmt.Errorf("the instances have only %d distinct feature vectors, fewer than %d bags", j, m.k)
		}
		u, pick := r.Float64()*total, n-1
		for p, v := range m.dist {
			if u < v {
				pick = p
				break
			}
			u -= v
		}
		copy(c, m.point(pick, buf))
		copy(m.centre[j*m.d:(j+1)*m.d], c)
		for p := range m.dist {
			if v := sqDist(m.point(p, buf), c); v < m.dist[p] {
				m.dist[p], m.label[p] = v, j
			}
		}
	}
	return nil
}

// assignChunk is the number of points whose distances one Dgemm computes.
const assignChunk = 2048

// assign gives every point its nearest centre (the lowest index on a tie)
// and reports whether an assignment changed. ‖x−c‖² = ‖x‖² − 2x·c + ‖c‖²,
// the products by Dgemm a chunk of points at a time.
func (m *kmeans) assign() bool {
	cn := make([]float64, m.k)
	for j := range cn {
		c := m.centre[j*m.d : (j+1)*m.d]
		cn[j] = blas64.Dot(blas64.Vector{N: m.d, Data: c, Inc: 1}, blas64.Vector{N: m.d, Data: c, Inc: 1})
	}
	changed := false
	n := len(m.idx)
	xs := make([]float64, min(assignChunk, n)*m.d)
	prod := make([]float64, min(assignChunk, n)*m.k)
	for lo := 0; lo < n; lo += assignChunk {
		hi := min(lo+assignChunk, n)
		rows := hi - lo
		for p := lo; p < hi; p++ {
			m.point(p, xs[(p-lo)*m.d:(p-lo+1)*m.d])
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1,
			blas64.General{Rows: rows, Cols: m.d, Stride: m.d, Data: xs[:rows*m.d]},
			blas64.General{Rows: m.k, Cols: m.d, Stride: m.d, Data: m.centre},
			0, blas64.General{Rows: rows, Cols: m.k, Stride: m.k, Data: prod[:rows*m.k]})
		for p := lo; p < hi; p++ {
			x := xs[(p-lo)*m.d : (p-lo+1)*m.d]
			xn := blas64.Dot(blas64.Vector{N: m.d, Data: x, Inc: 1}, blas64.Vector{N: m.d, Data: x, Inc: 1})
			best, bestD := 0, math.Inf(1)
			for j := 0; j < m.k; j++ {
				if v := xn - 2*prod[(p-lo)*m.k+j] + cn[j]; v < bestD {
					best, bestD = j, v
				}
			}
			if m.label[p] != best {
				changed = true
			}
			m.label[p], m.dist[p] = best, math.Max(bestD, 0)
		}
	}
	return changed
}

// fillEmpty moves, into each empty cluster, the point farthest from its
// centre among the clusters with more than one point.
func (m *kmeans) fillEmpty() {
	count := make([]int, m.k)
	for _, c := range m.label {
		count[c]++
	}
	for j := 0; j < m.k; j++ {
		if count[j] > 0 {
			continue
		}
		far, farD := -1, -1.0
		for p, v := range m.dist {
			if count[m.label[p]] > 1 && v > farD {
				far, farD = p, v
			}
		}
		if far < 0 {
			return // k ≤ n makes this unreachable
		}
		count[m.label[far]]--
		m.label[far], m.dist[far] = j, 0
		count[j]++
	}
}

// update sets every centre to the mean of its points (summed in point
// order, so the result does not depend on the machine).
func (m *kmeans) update() {
	for i := range m.centre {
		m.centre[i] = 0
	}
	count := make([]int, m.k)
	buf := make([]float64, m.d)
	for p, c := range m.label {
		count[c]++
		row := m.centre[c*m.d : (c+1)*m.d]
		for j, v := range m.point(p, buf) {
			row[j] += v
		}
	}
	for c, n := range count {
		if n == 0 {
			continue
		}
		row := m.centre[c*m.d : (c+1)*m.d]
		for j := range row {
			row[j] /= float64(n)
		}
	}
}
