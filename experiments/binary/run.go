package binary

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/kernel"
)

// Interval is the range the bags' label proportions are drawn from.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

func (iv Interval) String() string { return fmt.Sprintf("[%g,%g]", iv.Lo, iv.Hi) }

// Spec is a grid of the binary experiment.
type Spec struct {
	Datasets  []string
	Intervals []Interval
	BagSizes  []int
	Trials    int
	Methods   []string
	// TrainSize is the number of bagged training instances per data set
	// (default DefaultTrainSize, else 1280).
	TrainSize map[string]int
	// TestSize caps the test set (0: all of it; a random subset otherwise).
	TestSize int
	Folds    int   // cross-validation folds (5)
	MaxExact int   // exact kernel up to this many instances (kernel.DefaultMaxExact)
	Seed     int64 // the grid's seed; a cell's seed derives from it
}

// PaperSpec is Table `tab:binary exp`: Adult and MAGIC, both intervals, bag
// sizes 8–512, 5 trials, the five methods.
func PaperSpec() *Spec {
	return &Spec{
		Datasets:  []string{"adult", "magic"},
		Intervals: []Interval{{0, 0.5}, {0.5, 1}},
		BagSizes:  []int{8, 32, 128, 512},
		Trials:    5,
		Methods:   MethodNames,
		Folds:     5,
		Seed:      2020,
	}
}

// OfflineSpec is the small grid this repository runs without the UCI
// files: OfflineName, both intervals, bag sizes 8, 32, 128 on 1280 bagged
// instances (10 bags of 128, the fewest 5-fold CV allows), 2 trials, test
// set capped at 1000 points.
func OfflineSpec() *Spec {
	return &Spec{
		Datasets:  []string{OfflineName},
		Intervals: []Interval{{0, 0.5}, {0.5, 1}},
		BagSizes:  []int{8, 32, 128},
		Trials:    2,
		Methods:   MethodNames,
		TrainSize: map[string]int{OfflineName: 1280},
		TestSize:  1000,
		Folds:     5,
		Seed:      2020,
	}
}

// MethodNames are the table's rows in its order.
var MethodNames = []string{"invcal", "alter-psvm", "lmmcm", "llpfc-uniform", "llpfc-approx"}

// NewMethod returns the named method.
func NewMethod(name string, maxExact int) (kernel.Method, error) {
	switch name {
	case "invcal":
		return kernel.InvCal{}, nil
	case "alter-psvm":
		return kernel.AlterPSVM{}, nil
	case "lmmcm":
		return kernel.LMMCM{MaxExact: maxExact}, nil
	case "llpfc-uniform":
		return kernel.LLPFC{Mode: estimators.ModeUniform, MaxExact: maxExact}, nil
	case "llpfc-approx":
		return kernel.LLPFC{Mode: estimators.ModeApprox, MaxExact: maxExact}, nil
	}
	return nil, fmt.Errorf("unknown method %q: want one of %v", name, MethodNames)
}

// Cell is one run: a method on the bags of (data set, interval, bag size,
// trial).
type Cell struct {
	Dataset  string   `json:"dataset"`
	Interval Interval `json:"interval"`
	BagSize  int      `json:"bag_size"`
	Trial    int      `json:"trial"`
	Method   string   `json:"method"`
}

// Key names the cell's file.
func (c Cell) Key() string {
	return fmt.Sprintf("%s_lp%g-%g_b%d_t%d_%s", sanitize(c.Dataset), c.Interval.Lo, c.Interval.Hi, c.BagSize, c.Trial, c.Method)
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ':' || c == '/' {
			b[i] = '-'
		}
	}
	return string(b)
}

// Cells lists the grid in table order.
func (s *Spec) Cells() []Cell {
	var out []Cell
	for _, d := range s.Datasets {
		for _, iv := range s.Intervals {
			for _, b := range s.BagSizes {
				for t := 0; t < s.Trials; t++ {
					for _, m := range s.Methods {
						out = append(out, Cell{d, iv, b, t, m})
					}
				}
			}
		}
	}
	return out
}

func (s *Spec) trainSize(d string) int {
	if n, ok := s.TrainSize[d]; ok {
		return n
	}
	if n, ok := DefaultTrainSize[d]; ok {
		return n
	}
	return 1280
}

// bagSeed is the seed of the bags of (data set, interval, bag size, trial):
// every method of a trial sees the same bags and test set.
func (s *Spec) bagSeed(c Cell) int64 {
	r := rng.New(s.Seed, fmt.Sprintf("binary/%s/%v/%d/%d", c.Dataset, c.Interval, c.BagSize, c.Trial))
	return int64(r.Uint64() >> 1)
}

// CVPoint is one grid point's cross-validation outcome.
type CVPoint struct {
	Params kernel.Params `json:"params"`
	Loss   float64       `json:"loss"` // mean validation loss; +Inf stored as 1e308
	Failed int           `json:"failed_folds"`
}

// Result is a finished cell.
type Result struct {
	Cell
	AUC          float64       `json:"auc"`
	Selected     kernel.Params `json:"selected"`
	Criterion    string        `json:"cv_criterion"`
	CV           []CVPoint     `json:"cv"`
	Seed         int64         `json:"seed"`
	TrainSize    int           `json:"train_size"`
	NumBags      int           `json:"num_bags"`
	TestSize     int           `json:"test_size"`
	Features     int           `json:"features"`
	Folds        int           `json:"folds"`
	MaxExact     int           `json:"max_exact"`
	KernelExact  bool          `json:"kernel_exact"` // false: Nyström (LLPFC, LMMCM with TrainSize > MaxExact)
	WallSeconds  float64       `json:"wall_seconds"`
	CodeVersion  string        `json:"code_version"`
	Dirty        bool          `json:"dirty"`
	GoVersion    string        `json:"go_version"`
	GOMAXPROCS   int           `json:"gomaxprocs"`
	FinishedTime string        `json:"finished"`
}

var criteria = map[string]string{
	"invcal": "bag error Σ|b|/N·|p̂−p| (pSVM code)", "alter-psvm": "bag error Σ|b|/N·|p̂−p| (pSVM code)",
	"lmmcm":         "LMMCM objective, λ=0, on held-out pairs (noisy_loss)",
	"llpfc-uniform": "empirical risk of Algorithm 2, λ=0, on held-out groups",
	"llpfc-approx":  "empirical risk of Algorithm 3, λ=0, on held-out groups",
}

// RunCell trains and evaluates one cell.
func (s *Spec) RunCell(src Source, c Cell) (*Result, error) {
	start := time.Now()
	seed := s.bagSeed(c)
	task, err := src.Task(c.Trial, seed)
	if err != nil {
		return nil, err
	}
	n := s.trainSize(c.Dataset)
	if n%c.BagSize != 0 {
		return nil, fmt.Errorf("train size %d is not a multiple of bag size %d", n, c.BagSize)
	}
	d, err := MakeBags(task.Pool, n/c.BagSize, c.BagSize, c.Interval.Lo, c.Interval.Hi, rng.New(seed, "binary/bags"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Key(), err)
	}
	Xt, yt := testMatrix(task.Test, s.TestSize, rng.New(seed, "binary/test"))
	m, err := NewMethod(c.Method, s.MaxExact)
	if err != nil {
		return nil, err
	}
	folds := s.Folds
	if folds == 0 {
		folds = 5
	}
	cv, err := kernel.CrossValidate(m, d, folds, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: cross-validation: %w", c.Key(), err)
	}
	sc, err := m.Fit(d, cv.Best, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: final fit (%v): %w", c.Key(), cv.Best, err)
	}
	auc, err := kernel.AUC(sc.Score(Xt), yt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Key(), err)
	}
	rev, dirty := experiments.CodeVersion()
	maxExact := s.MaxExact
	if maxExact <= 0 {
		maxExact = kernel.DefaultMaxExact
	}
	res := &Result{Cell: c, AUC: auc, Selected: cv.Best, Criterion: criteria[c.Method], Seed: seed,
		TrainSize: n, NumBags: n / c.BagSize, TestSize: len(yt), Features: len(task.Pool.Columns), Folds: folds,
		MaxExact: maxExact, KernelExact: n <= maxExact || c.Method == "invcal" || c.Method == "alter-psvm",
		CodeVersion: rev, Dirty: dirty, GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0)}
	for i, p := range cv.Grid {
		l := cv.Loss[i]
		if math.IsInf(l, 0) || math.IsNaN(l) {
			l = math.Copysign(1e308, l)
		}
		res.CV = append(res.CV, CVPoint{Params: p, Loss: l, Failed: cv.Failed[i]})
	}
	res.WallSeconds = time.Since(start).Seconds()
	res.FinishedTime = time.Now().UTC().Format(time.RFC3339)
	return res, nil
}

// Store is a directory of finished cells, DIR/cells/<key>.json.
type Store struct{ Dir string }

func (st Store) path(c Cell) string { return filepath.Join(st.Dir, "cells", c.Key()+".json") }

// Load returns the stored result of c, or nil.
func (st Store) Load(c Cell) (*Result, error) {
	b, err := os.ReadFile(st.path(c))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", st.path(c), err)
	}
	return &r, nil
}

// Save writes r atomically.
func (st Store) Save(r *Result) error {
	if err := os.MkdirAll(filepath.Join(st.Dir, "cells"), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(st.path(r.Cell), append(b, '\n'))
}

// Run runs every cell of s missing from st, logging progress to log; a
// failed cell is reported and the others go on. Sources are opened once per
// data set through open.
func Run(ctx context.Context, s *Spec, st Store, open func(string) (Source, error), log io.Writer) (done int, failed []error, err error) {
	srcs := map[string]Source{}
	cells := s.Cells()
	for i, c := range cells {
		if err := ctx.Err(); err != nil {
			return done, failed, err
		}
		if r, err := st.Load(c); err != nil {
			return done, failed, err
		} else if r != nil {
			continue
		}
		src, ok := srcs[c.Dataset]
		if !ok {
			if src, err = open(c.Dataset); err != nil {
				return done, failed, err
			}
			srcs[c.Dataset] = src
		}
		r, err := s.RunCell(src, c)
		if err != nil {
			failed = append(failed, err)
			fmt.Fprintf(log, "[%d/%d] %s: FAILED: %v\n", i+1, len(cells), c.Key(), err)
			continue
		}
		if err := st.Save(r); err != nil {
			return done, failed, err
		}
		done++
		fmt.Fprintf(log, "[%d/%d] %s: AUC %.4f, selected %v, %.1fs\n", i+1, len(cells), c.Key(), r.AUC, r.Selected, r.WallSeconds)
	}
	return done, failed, nil
}
