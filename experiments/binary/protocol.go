package binary

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/kernel"
)

// Task is one data set's pool and test set for one trial.
type Task struct {
	Pool, Test *data.BinarySet
}

// Source yields the task of a trial.
type Source interface {
	Task(trial int, seed int64) (*Task, error)
}

// fixedSource has a fixed pool and test set (Adult, the offline task).
type fixedSource struct{ pool, test *data.BinarySet }

func (s fixedSource) Task(int, int64) (*Task, error) { return &Task{Pool: s.pool, Test: s.test}, nil }

// splitSource draws a random 80/20 split per trial (make_data.py load_magic:
// train_test_split(X, y, int(0.8·n)) is called anew for every trial).
type splitSource struct{ all *data.BinarySet }

func (s splitSource) Task(trial int, seed int64) (*Task, error) {
	n := len(s.all.X)
	perm := rng.New(seed, fmt.Sprintf("binary/split/%d", trial)).Perm(n)
	cut := int(0.8 * float64(n))
	return &Task{Pool: subset(s.all, perm[:cut]), Test: subset(s.all, perm[cut:])}, nil
}

func subset(s *data.BinarySet, idx []int) *data.BinarySet {
	out := &data.BinarySet{Name: s.Name, Columns: s.Columns, Continuous: s.Continuous}
	for _, i := range idx {
		out.X = append(out.X, s.X[i])
		out.Positive = append(out.Positive, s.Positive[i])
	}
	return out
}

// DefaultTrainSize is the number of bagged training instances of make_data.py
// (README: 8192 for Adult, 5120 for MAGIC).
var DefaultTrainSize = map[string]int{"adult": 8192, "magic": 5120}

// OfflineName is the offline task: Fashion-MNIST T-shirt/top (class 0,
// negative) against shirt (class 6, positive), 784 pixel features in [0,1].
const OfflineName = "fashion-mnist:0v6"

// OpenSource loads the named data set: adult, magic, or fashion-mnist:AvB
// (class A negative, class B positive, from the Fashion-MNIST files that
// data.Resolve finds).
func OpenSource(name, dataDir string) (Source, error) {
	switch {
	case name == "adult":
		tr, te, err := data.LoadAdult(dataDir)
		if err != nil {
			return nil, err
		}
		return fixedSource{tr, te}, nil
	case name == "magic":
		all, err := data.LoadMagic(dataDir)
		if err != nil {
			return nil, err
		}
		return splitSource{all}, nil
	case strings.HasPrefix(name, "fashion-mnist:"):
		a, b, ok := strings.Cut(strings.TrimPrefix(name, "fashion-mnist:"), "v")
		ca, err1 := strconv.Atoi(a)
		cb, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || ca == cb || ca < 0 || cb < 0 || ca > 9 || cb > 9 {
			return nil, fmt.Errorf("%s: want fashion-mnist:AvB with two different classes 0–9", name)
		}
		dir, err := data.Resolve("fashion-mnist", dataDir)
		if err != nil {
			return nil, err
		}
		var sets [2]*data.BinarySet
		for i, sp := range []data.Split{data.Train, data.Test} {
			d, err := data.Load("fashion-mnist", dir, sp)
			if err != nil {
				return nil, err
			}
			sets[i] = binaryFromDataset(d, name, ca, cb)
		}
		return fixedSource{sets[0], sets[1]}, nil
	}
	return nil, fmt.Errorf("unknown binary data set %q: want adult, magic or fashion-mnist:AvB", name)
}

func binaryFromDataset(d *data.Dataset, name string, neg, pos int) *data.BinarySet {
	s := &data.BinarySet{Name: name, Continuous: make([]bool, d.D)}
	for j := range s.Continuous {
		s.Continuous[j] = true
		s.Columns = append(s.Columns, "pixel"+strconv.Itoa(j))
	}
	for i := 0; i < d.N; i++ {
		if d.Y[i] != neg && d.Y[i] != pos {
			continue
		}
		x := make([]float64, d.D)
		for j := range x {
			x[j] = float64(d.X[i*d.D+j])
		}
		s.X = append(s.X, x)
		s.Positive = append(s.Positive, d.Y[i] == pos)
	}
	return s
}

// MakeBags draws nb bags of size bs from pool as bag_utils.assign_bags
// ('uniform_prop') does: bag k has Binomial(bs, p_k) positives, p_k ~ U[lo,
// hi]; positives and negatives are drawn without replacement. It returns the
// training rows (bag k holds rows k·bs … (k+1)·bs−1 in Data.X) with the bags
// and, for the record only, nothing of the instance labels.
func MakeBags(pool *data.BinarySet, nb, bs int, lo, hi float64, r *rand.Rand) (kernel.Data, error) {
	npos := make([]int, nb)
	totPos := 0
	for k := range npos {
		p := lo + (hi-lo)*r.Float64()
		for j := 0; j < bs; j++ {
			if r.Float64() < p {
				npos[k]++
			}
		}
		totPos += npos[k]
	}
	var pos, neg []int
	for i, y := range pool.Positive {
		if y {
			pos = append(pos, i)
		} else {
			neg = append(neg, i)
		}
	}
	if totPos > len(pos) || nb*bs-totPos > len(neg) {
		return kernel.Data{}, fmt.Errorf("bags need %d positives and %d negatives, the pool has %d and %d", totPos, nb*bs-totPos, len(pos), len(neg))
	}
	r.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
	r.Shuffle(len(neg), func(i, j int) { neg[i], neg[j] = neg[j], neg[i] })
	d := len(pool.Columns)
	X := mat.NewDense(nb*bs, d, nil)
	set := &estimators.BagSet{NumClasses: 2}
	row, ip, in := 0, 0, 0
	for k := 0; k < nb; k++ {
		members := append(append([]int(nil), pos[ip:ip+npos[k]]...), neg[in:in+bs-npos[k]]...)
		ip += npos[k]
		in += bs - npos[k]
		r.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		b := estimators.Bag{ID: k, Size: bs}
		for _, i := range members {
			X.SetRow(row, pool.X[i])
			b.Indices = append(b.Indices, row)
			row++
		}
		q := float64(npos[k]) / float64(bs)
		b.Proportions = []float64{1 - q, q}
		set.Bags = append(set.Bags, b)
	}
	return kernel.Data{X: X, Cont: pool.Continuous, Bags: set}, nil
}

// testMatrix returns the test rows (a random subset of at most max rows
// when max > 0) and their labels.
func testMatrix(test *data.BinarySet, max int, r *rand.Rand) (*mat.Dense, []bool) {
	idx := make([]int, len(test.X))
	for i := range idx {
		idx[i] = i
	}
	if max > 0 && max < len(idx) {
		idx = r.Perm(len(idx))[:max]
	}
	X := mat.NewDense(len(idx), len(test.Columns), nil)
	y := make([]bool, len(idx))
	for r, i := range idx {
		X.SetRow(r, test.X[i])
		y[r] = test.Positive[i]
	}
	return X, y
}
