package opencl_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// TestQueueWrapperIsTheOnlyWayIn: the OpenCL and CLBlast functions that
// enqueue work, wait for it or allocate device memory are called only in
// queue.go, whose functions count every call (so nothing can bypass the
// step costs); a call added anywhere else fails here, naming the file.
func TestQueueWrapperIsTheOnlyWayIn(t *testing.T) {
	counted := map[string]bool{
		"cl.EnqueueReadBuffer": true, "cl.EnqueueWriteBuffer": true, "cl.EnqueueCopyBuffer": true,
		"cl.EnqueueFillBuffer": true, "cl.EnqueueNDRangeKernel": true, "cl.Finish": true, "cl.Flush": true,
		"cl.CreateBuffer": true, "cl.CreateSubBuffer": true, "cl.WaitForEvents": true, "blast.Sgemm": true,
	}
	seen := map[string]bool{}
	for f, src := range packageSources(t) {
		file, err := parser.ParseFile(token.NewFileSet(), f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := x.Name + "." + sel.Sel.Name
			if counted[name] {
				seen[name] = true
				if f != "queue.go" {
					t.Errorf("%s calls %s: only queue.go may (it counts every command, wait and allocation)", f, name)
				}
			}
			return true
		})
	}
	for name := range counted {
		if !seen[name] {
			t.Errorf("queue.go never calls %s: is the list of counted functions current?", name)
		}
	}
}

// TestCUDAQueueIsTheOnlyWayIn: on the CUDA driver too, the driver calls
// that enqueue work, wait for it or allocate device memory are made only
// in cuda.go, by the methods of cudaCtx that only queue.go calls (after
// counting), so CUDA's counts mean what OpenCL's do.
func TestCUDAQueueIsTheOnlyWayIn(t *testing.T) {
	driverCalls := regexp.MustCompile(`\bcu\.(MemAlloc|MemFree|MemcpyHtoDAsync|MemcpyDtoHAsync|MemcpyDtoDAsync|MemsetD32Async|LaunchKernel|StreamSynchronize)\(|\bcublas\.Sgemm\(`)
	counted := regexp.MustCompile(`\.cu\.(alloc|free|write|read|sync|copy|fill|launch|sgemm)\(`)
	seen := 0
	for f, src := range packageSources(t) {
		if m := driverCalls.FindString(string(src)); m != "" && f != "cuda.go" {
			t.Errorf("%s calls %s: only cuda.go may (its methods are called from queue.go, which counts them)", f, m)
		}
		if m := counted.FindAllString(string(src), -1); len(m) > 0 {
			if f != "queue.go" {
				t.Errorf("%s calls %s: only queue.go may (it counts every command, wait and allocation)", f, m[0])
			}
			seen += len(m)
		}
	}
	if seen < 9 {
		t.Errorf("queue.go calls the CUDA driver's counted methods %d times; is the list current?", seen)
	}
}

// packageSources reads the package's Go files but its tests, by name.
func packageSources(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if out[f], err = os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestCountsCountEachCommand: a kernel launch, a CLBlast call, a copy, a
// fill, a write, a read, a finish and an allocation each move their own
// count by one (and the bytes of the transfers by theirs, under the
// buffer's role), and nothing else.
func TestCountsCountEachCommand(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	a := upload(t, l, []float32{1, 2, 3, 4})
	b := alloc(t, l, 4)
	a.SetRole(opencl.RoleParam)
	cases := []struct {
		name string
		do   func() error
		want opencl.Counts
	}{
		{"kernel", func() error { return l.Scale(2, a, b, 4) }, opencl.Counts{Kernels: 1}},
		{"sgemm", func() error { return ctx.Sgemm(false, false, 2, 2, 2, 1, a, 0, 2, a, 0, 2, 0, b, 0, 2) }, opencl.Counts{BLASCalls: 1}},
		{"copy", func() error { return ctx.Copy(b, 0, a, 0, 4) }, opencl.Counts{Copies: 1}},
		{"fill", func() error { return ctx.Fill(b, 0) }, opencl.Counts{Fills: 1}},
		{"write", func() error { return a.Write([]float32{5, 6}) }, opencl.Counts{Writes: 1, BytesHtoD: 8,
			Transfers: map[opencl.Role]opencl.Transfer{opencl.RoleParam: {HtoD: 8}}}},
		{"read", func() error { _, err := a.Float32s(); return err }, opencl.Counts{Reads: 1, BytesDtoH: 16, Waits: 1,
			Transfers: map[opencl.Role]opencl.Transfer{opencl.RoleParam: {DtoH: 16}}}},
		{"finish", ctx.Finish, opencl.Counts{Waits: 1}},
		{"alloc", func() error { _, err := ctx.Alloc(3); return err }, opencl.Counts{Allocs: 1, AllocBytes: 12}},
	}
	for _, c := range cases {
		before := ctx.Counts()
		must(t, c.do())
		got := ctx.Counts().Sub(before)
		if !countsEqual(got, c.want) {
			t.Errorf("%s: counts %+v, want %+v", c.name, got, c.want)
		}
	}
	if n := (opencl.Counts{Kernels: 1, BLASCalls: 2, Copies: 3, Fills: 4, Writes: 9}).Launches(); n != 10 {
		t.Errorf("Launches = %d, want 10 (kernels, BLAS calls, copies and fills)", n)
	}
}

func countsEqual(a, b opencl.Counts) bool { return reflect.DeepEqual(a, b) }

// TestWriteDoesNotWaitAndStagesItsData: a write returns without a host
// wait, and the device receives what the slice held when Write was
// called even if the caller overwrites the slice at once (the data are
// staged), for many writes in flight at a time.
func TestWriteDoesNotWaitAndStagesItsData(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	const n, k = 1000, 40
	bufs := make([]*opencl.Buffer, k)
	src := make([]float32, n)
	before := ctx.Counts()
	for j := range bufs {
		bufs[j] = alloc(t, l, n)
		for i := range src {
			src[i] = float32(j*n + i)
		}
		must(t, bufs[j].Write(src))
		for i := range src {
			src[i] = -1 // the caller reuses its slice
		}
	}
	if w := ctx.Counts().Sub(before).Waits; w != 0 {
		t.Errorf("%d writes waited %d times, want 0", k, w)
	}
	for j, b := range bufs {
		got := download(t, b, n)
		for i, v := range got {
			if v != float32(j*n+i) {
				t.Fatalf("buffer %d element %d = %g, want %d (the write read the caller's slice after it changed)", j, i, v, j*n+i)
			}
		}
	}
}

// TestAllocGroup: a group's buffers are sub-buffers of one zero-filled
// allocation at aligned offsets; each reads and writes its own elements;
// a kernel over the parent reaches them all; the group's memory is freed
// with its last buffer.
func TestAllocGroup(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	bytes0 := ctx.BytesAllocated()
	sizes := []int{3, 40, 1}
	before := ctx.Counts()
	parts, err := ctx.AllocGroup(sizes, opencl.RoleGrad)
	must(t, err)
	if c := ctx.Counts().Sub(before); c.Allocs != 1 {
		t.Errorf("a group of %d buffers made %d allocations, want 1", len(sizes), c.Allocs)
	}
	parent, _ := parts[0].Group()
	if parent == nil {
		t.Fatal("no parent")
	}
	for i, p := range parts {
		if p.Len() != sizes[i] || p.Role() != opencl.RoleGrad {
			t.Errorf("part %d: %d elements, role %q", i, p.Len(), p.Role())
		}
		if _, off := p.Group(); off%(max(ctx.Device().BaseAlignBytes/4, 1)) != 0 {
			t.Errorf("part %d at element %d: not aligned to %d bytes", i, off, ctx.Device().BaseAlignBytes)
		}
		vals := make([]float32, sizes[i])
		for j := range vals {
			vals[j] = float32(10*i + j + 1)
		}
		must(t, p.Write(vals))
	}
	must(t, l.Scale(2, parent, parent, parent.Len()))
	all := download(t, parent, parent.Len())
	var nonzero int
	for _, v := range all {
		if v != 0 {
			nonzero++
		}
	}
	if want := 3 + 40 + 1; nonzero != want {
		t.Errorf("%d non-zero values in the parent, want %d (the gaps are zero)", nonzero, want)
	}
	for i, p := range parts {
		got := download(t, p, sizes[i])
		for j, v := range got {
			if v != 2*float32(10*i+j+1) {
				t.Fatalf("part %d element %d = %g after doubling the parent", i, j, v)
			}
		}
	}
	for _, p := range parts {
		must(t, p.Release())
	}
	if got := ctx.BytesAllocated(); got != bytes0 {
		t.Errorf("%d bytes allocated after releasing the group, %d before", got, bytes0)
	}
}

// TestStepFlag: the loss tally sums finite losses exactly as float64
// additions of their float32 values (on a device with doubles); a
// non-finite loss flags its step with the value; a non-finite gradient
// flags the smallest index of the first flagged step, a later step does
// not move it, and a guarded optimizer update then changes nothing and
// records the flagged value.
func TestStepFlag(t *testing.T) {
	l := testLib(t)
	f, err := l.NewStepFlag()
	must(t, err)
	defer f.Release()
	losses := []float32{0.1, 2.5, 1e-3}
	var want float64
	for i, v := range losses {
		must(t, l.TallyLoss(upload(t, l, []float32{v}), f, i))
		want += float64(v)
	}
	s, err := f.Read()
	must(t, err)
	if s.Flagged || (l.FP64() && s.LossSum != want) || math.Abs(s.LossSum-want) > 1e-6 {
		t.Errorf("after three finite losses: %+v, want a clear flag and the sum %v", s, want)
	}
	must(t, l.TallyLoss(upload(t, l, []float32{float32(math.Inf(-1))}), f, 7))
	s, err = f.Read()
	must(t, err)
	if !s.Flagged || !s.Loss || s.Tag != 7 || !math.IsInf(s.Value, -1) {
		t.Errorf("after an infinite loss at step 7: %+v", s)
	}

	must(t, f.Clear())
	g := []float32{1, 2, float32(math.NaN()), 4, float32(math.Inf(1))}
	gb := upload(t, l, g)
	must(t, l.CheckFinite(upload(t, l, []float32{1, 1}), 2, 0, f, 3))                // clean
	must(t, l.CheckFinite(gb, len(g), 10, f, 4))                                     // flags index 12
	must(t, l.CheckFinite(upload(t, l, []float32{float32(math.NaN())}), 1, 5, f, 5)) // a later step: ignored
	p := upload(t, l, []float32{1, 1, 1, 1, 1})
	m, v := upload(t, l, make([]float32, 5)), upload(t, l, make([]float32, 5))
	must(t, l.AdamStep(p, gb, m, v, 5, opencl.Adam{LR: 0.1, Beta1: 0.9, Beta2: 0.99, Eps: 1e-8, Step: 1, Guard: &opencl.Guard{Flag: f, Tag: 4, Base: 10}}))
	s, err = f.Read()
	must(t, err)
	if !s.Flagged || s.Loss || s.Tag != 4 || s.Index != 12 || !math.IsNaN(s.Value) {
		t.Errorf("after a NaN gradient at flat index 12 of step 4: %+v", s)
	}
	for i, x := range download(t, p, 5) {
		if x != 1 {
			t.Errorf("parameter %d = %g after a guarded update of a flagged step, want 1", i, x)
		}
	}
	// The value of a flagged infinite entry is recorded by the update.
	must(t, f.Clear())
	must(t, l.CheckFinite(upload(t, l, []float32{3, float32(math.Inf(1))}), 2, 0, f, 0))
	must(t, l.SGDStep(p, upload(t, l, []float32{3, float32(math.Inf(1))}), nil, 2, opencl.SGD{LR: 1, Guard: &opencl.Guard{Flag: f, Tag: 0}}))
	s, err = f.Read()
	must(t, err)
	if !s.Flagged || s.Index != 1 || !math.IsInf(s.Value, 1) {
		t.Errorf("after +Inf at index 1: %+v", s)
	}
}

// TestBNRunningSplit: the running averages from a split-statistics buffer
// equal BNRunning's with the float mean and variance.
func TestBNRunningSplit(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	const c = 5
	mean, variance := randn(rng, c, -1, 1), randn(rng, c, 0.1, 2)
	split := make([]float32, 4*c)
	copy(split, mean)
	copy(split[2*c:], variance)
	for i := c; i < 2*c; i++ {
		split[i] = 1e-9 // the low parts are not read
	}
	rm0, rv0 := randn(rng, c, -1, 1), randn(rng, c, 0.5, 1.5)
	a, b := upload(t, l, rm0), upload(t, l, rv0)
	ra, rb := upload(t, l, rm0), upload(t, l, rv0)
	must(t, l.BNRunningSplit(a, b, upload(t, l, split), c, 0.1, 64))
	must(t, l.BNRunning(ra, rb, upload(t, l, mean), upload(t, l, variance), c, 0.1, 64))
	for i, x := range download(t, a, c) {
		if y := download(t, ra, c)[i]; x != y {
			t.Errorf("running mean %d: %g, BNRunning's %g", i, x, y)
		}
	}
	for i, x := range download(t, b, c) {
		if y := download(t, rb, c)[i]; x != y {
			t.Errorf("running variance %d: %g, BNRunning's %g", i, x, y)
		}
	}
}

// TestReadAsync: reads that do not block cost no wait each; their values
// arrive at the next wait (a finish), each the buffer's contents when the
// read was enqueued, though later commands overwrite the buffer.
func TestReadAsync(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	b := upload(t, l, []float32{1, 2, 3, 4})
	first, second := make([]float32, 3), make([]float32, 2)
	before := ctx.Counts()
	must(t, b.ReadAsync(first, 1))
	must(t, ctx.Fill(b, 7)) // enqueued after the read: not in first
	must(t, b.ReadAsync(second, 0))
	c := ctx.Counts().Sub(before)
	if c.Reads != 2 || c.Waits != 0 || c.BytesDtoH != 20 {
		t.Errorf("two reads enqueued: %d reads, %d waits, %d bytes; want 2, 0, 20", c.Reads, c.Waits, c.BytesDtoH)
	}
	must(t, ctx.Finish())
	if fmt.Sprint(first) != "[2 3 4]" || fmt.Sprint(second) != "[7 7]" {
		t.Errorf("delivered %v and %v, want [2 3 4] and [7 7]", first, second)
	}
	if err := b.ReadAsync(make([]float32, 2), 3); err == nil {
		t.Error("a read past the buffer's end: no error")
	}
}
