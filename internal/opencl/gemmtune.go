package opencl

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"
)

// The tuning pass: a search over CLBlast's SGEMM parameters (GEMMParams)
// on the device itself, for the shapes of the products a training step
// runs (the im2col convolutions' and the dense layers', recorded by
// RecordGEMMs in `llpfc bench --profile`), within a time limit. CLBlast's
// own tuners (CLBlastTuneXgemm in later versions, C++ templates in 1.5)
// time one square product; this one times the step's shapes weighted by
// their calls, and checks every candidate's products against float64
// references on the host, so a candidate that computes wrong products is
// never chosen.
//
// Since CLBlast 1.5 cannot return its defaults (no C RetrieveParameters),
// the defaults are timed first, before any override; after the search the
// device's parameters in this process are the last ones set, so a process
// that tunes should exit after it (`llpfc devices --tune-gemm` does).

// TuneOptions configure TuneGEMM.
type TuneOptions struct {
	// Budget bounds the search (the defaults' timing included); the final
	// check of the chosen parameters runs after it.
	Budget time.Duration
	// Seed orders the random candidates.
	Seed uint64
	// MaxBytes bounds the device memory of the shapes' operands (0: a
	// quarter of the device's global memory); the shapes with the fewest
	// weighted FLOPs are left out first.
	MaxBytes int64
	// Log, when set, gets one line per candidate.
	Log io.Writer
	// Kernels are the kernels searched, in order (nil: Xgemm, then
	// XgemmDirect); the routine's split is set from those searched.
	Kernels []string
	// MinCandidates is how many candidates of each kernel are timed even
	// past the budget (CI's quick run: one, to exercise an override).
	MinCandidates int
	// KeepBest keeps the best candidate found even when it is not
	// TuneMargin faster than the defaults (CI's quick run, where the
	// point is to run with overrides, not to gain speed).
	KeepBest bool
}

// ShapeTime is one shape's seconds per call with CLBlast's defaults and
// with the chosen parameters.
type ShapeTime struct {
	GEMMCall
	Default float64 `json:"default_seconds"`
	Tuned   float64 `json:"tuned_seconds"`
}

// TuneResult is what the search found.
type TuneResult struct {
	// Params are the chosen parameters; nil when none beat CLBlast's
	// defaults by more than TuneMargin (then nothing should be applied).
	Params GEMMParams `json:"params"`
	// Default and Tuned are Σ calls·seconds per call over the shapes:
	// one step's products with the defaults and with the chosen parameters.
	Default float64     `json:"default_seconds"`
	Tuned   float64     `json:"tuned_seconds"`
	Shapes  []ShapeTime `json:"shapes"`
	// Skipped are the shapes left out (their operands would not fit MaxBytes).
	Skipped []GEMMCall `json:"skipped,omitempty"`
	// Tried counts the candidates timed, Failed those CLBlast could not
	// build or run, Wrong those whose products missed the references.
	Tried  int `json:"tried"`
	Failed int `json:"failed"`
	Wrong  int `json:"wrong"`
	// Seconds is the search's wall time.
	Seconds float64 `json:"seconds"`
}

// TuneMargin is how much faster (as a fraction of the defaults' time) the
// chosen parameters must be to be kept: less is within the timing noise
// of a shared device.
const TuneMargin = 0.03

// errSlow marks a candidate abandoned once it took longer than the best.
var errSlow = errors.New("slower than the best so far")

// errWrong marks a candidate whose products missed the references.
var errWrong = errors.New("wrong products")

// tuneShape is one shape's operands on the device and its references.
type tuneShape struct {
	call    GEMMCall
	a, b, c *Buffer
	lda     int
	ldb     int
	rows    []int       // the rows of C checked
	cols    int         // the leading columns of C checked
	ref     [][]float64 // per checked row: the float64 products
	scale   [][]float64 // and Σ|a·b| of each
	got     []float32
}

// tuner holds a search's shapes and its clock.
type tuner struct {
	c      *Context
	shapes []*tuneShape
	log    io.Writer
	// slowest is the longest one measurement took (a program built
	// included): a candidate is not begun with less time than that left.
	slowest time.Duration
}

// TuneGEMM searches CLBlast's SGEMM parameters for shapes on the context's
// device (see the file's comment). It returns an error when CLBlast's
// defaults themselves fail on a shape; candidates that fail or compute
// wrong products are counted and passed over.
func TuneGEMM(c *Context, shapes []GEMMCall, opt TuneOptions) (*TuneResult, error) {
	t0 := time.Now()
	if c.cu != nil {
		return nil, ErrCUDAGEMM
	}
	if err := loadCLBlastOverride(); err != nil {
		return nil, err
	}
	if c.GEMMOverride() != nil {
		return nil, errors.New("opencl: TuneGEMM: the context already overrode CLBlast's parameters; the defaults must be timed first")
	}
	if len(shapes) == 0 {
		return nil, errors.New("opencl: TuneGEMM: no shapes to tune for")
	}
	for _, s := range shapes {
		if s.M < 1 || s.N < 1 || s.K < 1 || s.Calls < 1 {
			return nil, fmt.Errorf("opencl: TuneGEMM: shape %d×%d×%d with %d calls: every dimension and the calls must be ≥ 1", s.M, s.N, s.K, s.Calls)
		}
	}
	tu := &tuner{c: c, log: opt.Log}
	res := &TuneResult{}
	defer tu.release()
	if err := tu.prepare(shapes, opt.MaxBytes, opt.Seed, res); err != nil {
		return nil, err
	}
	def, defTotal, err := tu.measure(nil, math.Inf(1))
	if err != nil {
		return nil, fmt.Errorf("opencl: TuneGEMM: CLBlast's defaults: %w", err)
	}
	tu.logf("defaults: %.3f ms a step over %d shapes", 1e3*defTotal, len(tu.shapes))
	res.Default = defTotal
	tu.slowest = time.Since(t0)
	kernels := opt.Kernels
	if kernels == nil {
		kernels = []string{KernelXgemm, KernelXgemmDirect}
	}
	// The indirect kernel on every shape, then the direct one on every
	// shape; the size that splits them is chosen from both timings. A
	// final check of the chosen parameters follows (a program to build
	// when both kernels were searched): its time is kept in reserve.
	deadline := t0.Add(opt.Budget)
	if len(kernels) > 1 {
		deadline = deadline.Add(-tu.slowest)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x67656d6d))
	limitI, limitD := 2*defTotal, 3*defTotal // a candidate that far behind is not finished
	if opt.KeepBest {
		limitI, limitD = math.Inf(1), math.Inf(1)
	}
	var bestI, bestD map[string]int
	var timesI, timesD []float64
	for i, k := range kernels {
		end := deadline
		if i+1 < len(kernels) { // this kernel's share of what is left
			end = time.Now().Add(time.Until(deadline) * 65 / 100)
		}
		switch k {
		case KernelXgemm:
			never := GEMMParams{KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 0}}
			bestI, timesI = tu.search(k, xgemmCandidates(c.dev, rng), never, end, limitI, opt.MinCandidates, res)
		case KernelXgemmDirect:
			always := GEMMParams{KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 1 << 20}}
			bestD, timesD = tu.search(k, xgemmDirectCandidates(c.dev, rng), always, end, limitD, opt.MinCandidates, res)
		default:
			return nil, fmt.Errorf("opencl: TuneGEMM: no search for kernel %q (want %s or %s)", k, KernelXgemm, KernelXgemmDirect)
		}
	}
	var tuned []float64
	if bestI == nil && bestD == nil {
		tu.logf("no candidate ran; keeping CLBlast's defaults")
		res.Tuned, tuned = defTotal, def
	} else {
		final := GEMMParams{}
		if bestI != nil {
			final[KernelXgemm] = bestI
		}
		if bestD != nil {
			final[KernelXgemmDirect] = bestD
		}
		final[KernelGemmRoutine] = map[string]int{"XGEMM_MIN_INDIRECT_SIZE": tu.split(timesI, timesD)}
		var total float64
		tuned, total, err = tu.measure(final, math.Inf(1))
		switch {
		case err != nil:
			tu.logf("the chosen parameters %v failed their check: %v; keeping CLBlast's defaults", final, err)
			res.Tuned, tuned = defTotal, def
		case total < (1-TuneMargin)*defTotal || opt.KeepBest:
			tu.logf("chosen: %.3f ms a step (defaults %.3f ms): %v", 1e3*total, 1e3*defTotal, final)
			res.Params, res.Tuned = final, total
		default:
			tu.logf("the best, %.3f ms a step, is not %.0f %% faster than the defaults' %.3f ms: keeping CLBlast's defaults", 1e3*total, 100*TuneMargin, 1e3*defTotal)
			res.Tuned, tuned = defTotal, def
		}
	}
	res.Seconds = time.Since(t0).Seconds()
	for i, s := range tu.shapes {
		res.Shapes = append(res.Shapes, ShapeTime{GEMMCall: s.call, Default: def[i], Tuned: tuned[i]})
	}
	return res, nil
}

func (tu *tuner) logf(format string, args ...any) {
	if tu.log != nil {
		fmt.Fprintf(tu.log, "tune-gemm: "+format+"\n", args...)
	}
}

func (tu *tuner) release() {
	for _, s := range tu.shapes {
		for _, b := range []*Buffer{s.a, s.b, s.c} {
			if b != nil {
				b.Release()
			}
		}
	}
}

// tuneBlock is the length of the random block the operands repeat: the
// host draws it once, the device copies it across the operands, and the
// references read it by index.
const tuneBlock = 1 << 16

// prepare allocates every shape's operands, largest weighted work first,
// within maxBytes, and computes the references of its checked entries.
func (tu *tuner) prepare(shapes []GEMMCall, maxBytes int64, seed uint64, res *TuneResult) error {
	if maxBytes <= 0 {
		maxBytes = int64(tu.c.GlobalMemory() / 4)
	}
	order := slices.Clone(shapes)
	work := func(s GEMMCall) float64 { return float64(s.Calls) * float64(s.M) * float64(s.N) * float64(s.K) }
	sort.SliceStable(order, func(i, j int) bool { return work(order[i]) > work(order[j]) })
	rng := rand.New(rand.NewPCG(seed, 0x74756e65))
	blk := make([]float32, tuneBlock)
	for i := range blk {
		blk[i] = float32(2*rng.Float64() - 1)
	}
	var used int64
	for _, s := range order {
		sizes := []int{s.M * s.K, s.K * s.N, s.M * s.N}
		bytes := 4 * int64(sizes[0]+sizes[1]+sizes[2])
		tooBig := false
		for _, n := range sizes {
			if max := tu.c.dev.MaxAllocBytes; max > 0 && uint64(4*n) > max {
				tooBig = true
			}
		}
		if used+bytes > maxBytes || tooBig {
			res.Skipped = append(res.Skipped, s)
			continue
		}
		ts := &tuneShape{call: s}
		bufs := []**Buffer{&ts.a, &ts.b, &ts.c}
		for i, n := range sizes {
			b, err := tu.c.Alloc(n)
			if err != nil {
				return err
			}
			b.SetRole(RoleWorkspace)
			*bufs[i] = b
		}
		tu.shapes = append(tu.shapes, ts)
		used += bytes
		for i, b := range []*Buffer{ts.a, ts.b} {
			if err := tileBlock(tu.c, b, blk, i*7919); err != nil {
				return err
			}
		}
		ts.lda, ts.ldb = s.K, s.N
		if s.TransA {
			ts.lda = s.M
		}
		if s.TransB {
			ts.ldb = s.K
		}
		ts.reference(blk)
	}
	if len(tu.shapes) == 0 {
		return fmt.Errorf("opencl: TuneGEMM: no shape's operands fit %d bytes of device memory", maxBytes)
	}
	return nil
}

// tileBlock fills b with blk repeated from index shift on: one write and
// copies that double what is written.
func tileBlock(c *Context, b *Buffer, blk []float32, shift int) error {
	n := b.Len()
	first := make([]float32, min(n, len(blk)))
	for i := range first {
		first[i] = blk[(i+shift)%len(blk)]
	}
	if err := b.Write(first); err != nil {
		return err
	}
	// b[i] = blk[(i+shift) % len(blk)] for i < done; copying [0, m) to
	// [done, done+m) keeps it when done is a multiple of len(blk).
	for done := len(first); done < n; {
		m := min(done, n-done)
		if err := c.Copy(b, done, b, 0, m); err != nil {
			return err
		}
		done += m
	}
	return nil
}

// reference computes the float64 products of the checked entries: three
// rows of C (first, middle, last), their first 64 columns.
func (ts *tuneShape) reference(blk []float32) {
	s := ts.call
	at := func(i, p int) float64 {
		idx := i*ts.lda + p
		if s.TransA {
			idx = p*ts.lda + i
		}
		return float64(blk[idx%len(blk)])
	}
	bt := func(p, j int) float64 {
		idx := p*ts.ldb + j
		if s.TransB {
			idx = j*ts.ldb + p
		}
		return float64(blk[(idx+7919)%len(blk)])
	}
	ts.rows = slices.Compact([]int{0, s.M / 2, s.M - 1})
	ts.cols = min(s.N, 64)
	for _, r := range ts.rows {
		ref, scale := make([]float64, ts.cols), make([]float64, ts.cols)
		for j := range ts.cols {
			for p := range s.K {
				v := at(r, p) * bt(p, j)
				ref[j] += v
				scale[j] += math.Abs(v)
			}
		}
		ts.ref, ts.scale = append(ts.ref, ref), append(ts.scale, scale)
	}
	ts.got = make([]float32, ts.cols)
}

// check reads the checked entries of C and compares them with the
// references: each within 10⁻³ of Σ|a·b| (a wrong tile or load order is
// off by the entries' own size).
func (ts *tuneShape) check() error {
	for i, r := range ts.rows {
		if err := ts.c.ReadAt(ts.got, r*ts.call.N); err != nil {
			return err
		}
		for j, g := range ts.got {
			if d := math.Abs(float64(g) - ts.ref[i][j]); !(d <= 1e-3*ts.scale[i][j]+1e-6) {
				return fmt.Errorf("%w: C[%d][%d] = %g, want %g", errWrong, r, j, g, ts.ref[i][j])
			}
		}
	}
	return nil
}

// run enqueues the shape's product.
func (ts *tuneShape) run(c *Context) error {
	s := ts.call
	return c.Sgemm(s.TransA, s.TransB, s.M, s.N, s.K, 1, ts.a, 0, ts.lda, ts.b, 0, ts.ldb, 0, ts.c, 0, s.N)
}

// measure applies p (nil: nothing) and times every shape: a first call
// (CLBlast builds the parameters' program on it) checked against the
// references, then one timed call and as many more as fit 20 ms. It
// returns the seconds per call of each shape and Σ calls·seconds, or
// errSlow as soon as that sum passes limit.
func (tu *tuner) measure(p GEMMParams, limit float64) ([]float64, float64, error) {
	c := tu.c
	if p != nil {
		if err := c.OverrideGEMM(p); err != nil {
			return nil, 0, err
		}
	}
	per := make([]float64, len(tu.shapes))
	var total float64
	for i, s := range tu.shapes {
		if err := s.run(c); err != nil {
			return nil, 0, err
		}
		if err := s.check(); err != nil {
			return nil, 0, err
		}
		t0 := time.Now()
		if err := s.run(c); err != nil {
			return nil, 0, err
		}
		if err := c.Finish(); err != nil {
			return nil, 0, err
		}
		one := time.Since(t0).Seconds()
		reps := min(int(0.02/max(one, 1e-6)), 20)
		t1 := time.Now()
		for range reps {
			if err := s.run(c); err != nil {
				return nil, 0, err
			}
		}
		if err := c.Finish(); err != nil {
			return nil, 0, err
		}
		per[i] = (one + time.Since(t1).Seconds()) / float64(1+reps)
		total += float64(s.call.Calls) * per[i]
		if total > limit {
			return nil, total, errSlow
		}
	}
	return per, total, nil
}

// search times the candidates of one kernel, with fixed (the routine's
// split) applied beside each, until the deadline; it returns the fastest
// and its seconds per call by shape (nil when none ran).
func (tu *tuner) search(kernel string, next func() (map[string]int, bool), fixed GEMMParams, deadline time.Time, limit float64, least int, res *TuneResult) (map[string]int, []float64) {
	var best map[string]int
	var bestTimes []float64
	bestTotal := math.Inf(1)
	for i := 0; i < least || time.Until(deadline) > tu.slowest; i++ {
		cand, ok := next()
		if !ok {
			break
		}
		p := fixed.Clone()
		p[kernel] = cand
		res.Tried++
		t0 := time.Now()
		lim := min(limit, 1.5*bestTotal)
		times, total, err := tu.measure(p, lim)
		tu.slowest = max(tu.slowest, time.Since(t0))
		switch {
		case errors.Is(err, errSlow):
			tu.logf("%s %d: slower than %.3f ms", kernel, i, 1e3*lim)
		case errors.Is(err, errWrong):
			res.Wrong++
			tu.logf("%s %d %v: %v", kernel, i, cand, err)
		case err != nil:
			res.Failed++
			tu.logf("%s %d %v: %v", kernel, i, cand, err)
		default:
			tu.logf("%s %d: %.3f ms", kernel, i, 1e3*total)
			if total < bestTotal {
				best, bestTimes, bestTotal = cand, times, total
			}
		}
	}
	return best, bestTimes
}

// split chooses XGEMM_MIN_INDIRECT_SIZE s (the direct kernel runs where
// m·n·k < s³) from the best indirect and direct timings by shape: the s
// that minimises the step's time; 0 (always indirect) without direct
// timings, 2²⁰ (always direct) without indirect ones.
func (tu *tuner) split(ind, dir []float64) int {
	switch {
	case ind == nil && dir == nil:
		return 0
	case dir == nil:
		return 0
	case ind == nil:
		return 1 << 20
	}
	mnk := func(s GEMMCall) float64 { return float64(s.M) * float64(s.N) * float64(s.K) }
	cands := []int{0, 1 << 20}
	for _, s := range tu.shapes {
		cands = append(cands, int(math.Ceil(math.Cbrt(mnk(s.call))))+1)
	}
	best, bestT := 0, math.Inf(1)
	for _, t := range cands {
		var total float64
		for i, s := range tu.shapes {
			ti := ind[i]
			if mnk(s.call) < math.Pow(float64(t), 3) {
				ti = dir[i]
			}
			total += float64(s.call.Calls) * ti
		}
		if total < bestT {
			best, bestT = t, total
		}
	}
	return best
}

// params builds a kernel's parameters from values in GEMMParamNames order.
func params(kernel string, vals ...int) map[string]int {
	out := map[string]int{}
	for i, n := range GEMMParamNames[kernel] {
		out[n] = vals[i]
	}
	return out
}

// The first candidates: CLBlast 1.5's database entries for NVIDIA's
// recent architectures (src/database/kernels/xgemm/xgemm_32.hpp and
// xgemm_direct_32.hpp: SM8.0, SM7.5, SM7.0, SM6.x), good starting points
// on a newer NVIDIA GPU the database does not know; random ones follow.
var (
	knownXgemm = [][]int{
		{0, 1, 32, 2, 8, 8, 32, 16, 16, 64, 1, 1, 0, 0, 4, 4},     // A100
		{0, 1, 16, 2, 16, 16, 128, 32, 16, 128, 1, 1, 1, 1, 1, 2}, // T4, SM7.5
		{0, 1, 32, 2, 8, 32, 128, 16, 8, 128, 1, 1, 1, 1, 2, 2},   // TITAN RTX
		{0, 1, 32, 2, 16, 16, 64, 8, 8, 32, 1, 1, 0, 0, 4, 4},     // V100
		{0, 1, 16, 2, 32, 16, 64, 16, 8, 128, 1, 1, 0, 1, 2, 8},   // GTX 1080 Ti
		{0, 1, 16, 2, 8, 16, 128, 8, 8, 128, 1, 1, 1, 1, 4, 8},    // TITAN X
		{0, 1, 16, 2, 16, 16, 128, 16, 16, 128, 1, 1, 1, 1, 4, 4}, // a 128×128 tile
		{0, 1, 32, 2, 16, 16, 128, 16, 16, 128, 1, 1, 1, 1, 8, 8}, // wider vectors
		{0, 1, 32, 2, 32, 32, 128, 32, 32, 128, 1, 1, 0, 0, 4, 4}, // 1024 threads
		{0, 1, 32, 2, 8, 8, 64, 8, 8, 64, 1, 1, 0, 0, 8, 8},       // few threads, long vectors
	}
	knownXgemmDirect = [][]int{
		{8, 8, 16, 32, 16, 1, 1, 2, 1, 32},  // A100
		{8, 16, 8, 16, 8, 1, 0, 2, 2, 32},   // SM7.5
		{16, 8, 16, 32, 8, 1, 0, 1, 1, 32},  // TITAN RTX
		{2, 16, 16, 16, 16, 1, 1, 1, 2, 32}, // V100
		{16, 8, 8, 16, 16, 1, 1, 1, 1, 32},  // P100
		{2, 8, 8, 16, 16, 1, 1, 4, 2, 32},   // NVIDIA's default
	}
)

// paramSpace is a tuner's parameter space: the options of each
// dimension, and how a choice of them makes a kernel's parameters.
type paramSpace struct {
	opts [][]int
	make func(v []int) map[string]int
}

func (ps paramSpace) size() int {
	n := 1
	for _, o := range ps.opts {
		n *= len(o)
	}
	return n
}

// at decodes choice i (mixed radix over the dimensions).
func (ps paramSpace) at(i int) map[string]int {
	v := make([]int, len(ps.opts))
	for d := len(ps.opts) - 1; d >= 0; d-- {
		o := ps.opts[d]
		v[d] = o[i%len(o)]
		i /= len(o)
	}
	return ps.make(v)
}

// candidates returns the known entries, then the spaces' points in random
// order, each valid on dev and new, one per call (false when none is left).
func candidates(kernel string, known [][]int, spaces []paramSpace, dev DeviceInfo, rng *rand.Rand) func() (map[string]int, bool) {
	type ref struct{ space, i int }
	var order []ref
	for s, sp := range spaces {
		for i := range sp.size() {
			order = append(order, ref{s, i})
		}
	}
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	seen := map[string]bool{}
	k, o := 0, 0
	return func() (map[string]int, bool) {
		for {
			var c map[string]int
			switch {
			case k < len(known):
				c = params(kernel, known[k]...)
				k++
			case o < len(order):
				c = spaces[order[o].space].at(order[o].i)
				o++
			default:
				return nil, false
			}
			p := GEMMParams{kernel: c}
			key := p.String()
			if seen[key] || p.Validate(dev) != nil {
				continue
			}
			seen[key] = true
			return c, true
		}
	}
}

// xgemmCandidates are the known entries, then the parameter space of
// CLBlast's Xgemm tuner (its larger variant, and the GEMMK 1 kernel's
// small one) in random order.
func xgemmCandidates(dev DeviceInfo, rng *rand.Rand) func() (map[string]int, bool) {
	gemmk0 := paramSpace{
		opts: [][]int{{16, 32, 64, 128}, {16, 32, 64, 128}, {16, 32}, {8, 16, 32}, {8, 16, 32}, {8, 16, 32}, {8, 16, 32}, {1, 2, 4, 8}, {1, 2, 4, 8}, {0, 1}, {0, 1}},
		make: func(v []int) map[string]int {
			mwg, nwg, kwg, mdimc, ndimc, mdima, ndimb, vwm, vwn, str, sab := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]
			return params(KernelXgemm, 0, 1, kwg, 2, mdima, mdimc, mwg, ndimb, ndimc, nwg, sab, sab, str, str, vwm, vwn)
		},
	}
	gemmk1 := paramSpace{
		opts: [][]int{{16, 32, 64}, {16, 32, 64}, {4, 8, 16}, {4, 8, 16}, {1, 2, 4}, {1, 2, 4}},
		make: func(v []int) map[string]int {
			mwg, nwg, md, nd, vw, kreg := v[0], v[1], v[2], v[3], v[4], v[5]
			return params(KernelXgemm, 1, kreg, 1, 1, md, md, mwg, nd, nd, nwg, 0, 0, 0, 0, vw, vw)
		},
	}
	return candidates(KernelXgemm, knownXgemm, []paramSpace{gemmk0, gemmk1}, dev, rng)
}

// xgemmDirectCandidates are the known entries, then CLBlast's XgemmDirect
// tuner's larger parameter space in random order.
func xgemmDirectCandidates(dev DeviceInfo, rng *rand.Rand) func() (map[string]int, bool) {
	space := paramSpace{
		opts: [][]int{{8, 16, 32, 64}, {8, 16, 32}, {8, 16, 32}, {8, 16, 32}, {8, 16, 32}, {2, 8, 16}, {1, 2, 4, 8}, {1, 2, 4, 8}, {0, 1}},
		make: func(v []int) map[string]int {
			wgd, mdimcd, ndimcd, mdimad, ndimbd, kwid, vwmd, vwnd, pad := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
			return params(KernelXgemmDirect, kwid, mdimad, mdimcd, ndimbd, ndimcd, pad, pad, vwmd, vwnd, wgd)
		},
	}
	return candidates(KernelXgemmDirect, knownXgemmDirect, []paramSpace{space}, dev, rng)
}
