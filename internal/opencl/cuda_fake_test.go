package opencl

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCUDADriverOnAFake runs the CUDA driver — loading, the context and
// its stream, buffers and groups, transfers, fills, copies, NVRTC builds
// (and the PTX fallback), kernel lookup, launches with their arguments,
// cuBLAS products, the counts and the releases, the page-locked staging
// of the transfers and the cache of compiled images — against a fake of
// the three libraries (testdata/fakecuda.c: host memory, kernels run on
// the host, the stream's work run only when the host waits for it, every
// driver call refused on a thread where the context is not current). The
// counts of a sequence of commands must be the OpenCL driver's on PoCL
// for the same sequence. It needs a C compiler to build the fake (skipped
// without one); what it cannot show is that the real libraries behave as
// the fake does (that is `llpfc devices --check cuda` on a GPU).
func TestCUDADriverOnAFake(t *testing.T) {
	if so := os.Getenv("LLPFC_TEST_FAKE_CUDA"); so != "" {
		fakeCUDAChild(t, so)
		return
	}
	so := buildFakeCUDA(t)
	countsFile := filepath.Join(t.TempDir(), "counts.json")
	for _, refuseSM := range []string{"", "1"} {
		env := []string{"LLPFC_TEST_FAKE_CUDA=" + so, "LLPFC_TEST_FAKE_COUNTS=" + countsFile}
		if refuseSM != "" {
			env = append(env, "FAKE_REFUSE_SM=1")
		}
		runFakeChild(t, "TestCUDADriverOnAFake", so, env...)
	}

	// The same sequence's counts on PoCL.
	var onCUDA Counts
	if b, err := os.ReadFile(countsFile); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &onCUDA); err != nil {
		t.Fatal(err)
	}
	dev := os.Getenv("LLPFC_TEST_DEVICE")
	if dev == "" {
		dev = "opencl"
	}
	if err := Unavailable(dev); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("OpenCL is required in CI (CI=true) to compare the CUDA driver's counts: %v", err)
		}
		t.Skipf("OpenCL unavailable: the CUDA driver's counts not compared with OpenCL's (CI=true makes this a failure): %v", err)
	}
	ctx, err := Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	onCL, err := countsSequence(ctx, saxpyKernel(t, ctx))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(onCUDA, onCL) {
		t.Errorf("the same commands counted differently:\nCUDA   %+v\nOpenCL %+v", onCUDA, onCL)
	}
}

// runFakeChild runs the test named test again in a child process whose
// CUDA libraries (the driver, NVRTC, cuBLAS and cuDNN) are all the fake
// so, with a cache folder of its own and env added, and fails t unless
// the child passes (a library opens once a process, hence the child).
func runFakeChild(t *testing.T, test, so string, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), cudaLibEnv+"="+so, nvrtcLibEnv+"="+so, cublasLibEnv+"="+so, cudnnLibEnv+"="+so,
		CUDACacheEnv+"="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child %v: %v\n%s", env, err, out)
	}
}

// buildFakeCUDA builds testdata/fakecuda.c into a shared library with
// the first C compiler found and returns its path, skipping t without one
// (failing it in CI).
func buildFakeCUDA(t *testing.T) string {
	t.Helper()
	cc := ""
	for _, name := range []string{"cc", "gcc", "clang-16", "clang"} { // clang-16: what CI installs for the CUDA translation test
		if p, err := exec.LookPath(name); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("a C compiler (cc, gcc or clang-16) is required in CI (CI=true) to build the fake CUDA libraries")
		}
		t.Skip("no C compiler to build the fake CUDA libraries (CI=true makes this a failure)")
	}
	so := filepath.Join(t.TempDir(), "libfakecuda.so")
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-O1", "-o", so, filepath.Join("testdata", "fakecuda.c")).CombinedOutput(); err != nil {
		t.Fatalf("building the fake: %v\n%s", err, out)
	}
	return so
}

// TestToolkitPickedForTheDriver: with CUDA 12 and CUDA 13 toolkits both on
// the loader's path and no variable naming them, the driver's version
// decides which NVRTC and cuBLAS open (forDriver): a CUDA 12 driver gets
// the 12 libraries, a 13 driver the 13 ones. The libraries are the fake,
// under each soname, in a process of their own (a library opens once).
func TestToolkitPickedForTheDriver(t *testing.T) {
	if os.Getenv("LLPFC_TEST_PICK_CHILD") != "" {
		if err := loadNVRTC(); err != nil {
			t.Fatal(err)
		}
		if err := loadCuBLAS(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("picked %s %s\n", nvrtcFile, cublasFile)
		return
	}
	so := buildFakeCUDA(t)
	dir := t.TempDir()
	for _, name := range []string{"libnvrtc.so.13", "libnvrtc.so.12", "libcublas.so.13", "libcublas.so.12"} {
		if err := os.Symlink(so, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ driver, want string }{
		{"12040", "picked libnvrtc.so.12 libcublas.so.12"},
		{"13000", "picked libnvrtc.so.13 libcublas.so.13"},
		{"13020", "picked libnvrtc.so.13 libcublas.so.13"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestToolkitPickedForTheDriver$", "-test.count=1", "-test.v")
		var env []string
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, nvrtcLibEnv+"=") && !strings.HasPrefix(e, cublasLibEnv+"=") && !strings.HasPrefix(e, "LD_LIBRARY_PATH=") {
				env = append(env, e)
			}
		}
		cmd.Env = append(env, "LLPFC_TEST_PICK_CHILD=1", cudaLibEnv+"="+so, "LD_LIBRARY_PATH="+dir, "FAKE_CUDA_DRIVER_VERSION="+c.driver)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("driver %s: %v\n%s", c.driver, err, out)
		}
		if !strings.Contains(string(out), c.want) {
			t.Errorf("driver %s: want %q, the child said:\n%s", c.driver, c.want, out)
		}
	}
}

// countsSequence allocates two buffers, writes both, launches saxpy
// (y += a·x) on them, reads part of y without blocking, finishes, reads y
// (blocking) and releases them: it returns the counts of it all and
// checks the values read.
func countsSequence(ctx *Context, saxpy *Kernel) (Counts, error) {
	before := ctx.Counts()
	x, err := ctx.Alloc(4)
	if err != nil {
		return Counts{}, err
	}
	defer x.Release()
	y, err := ctx.Alloc(4)
	if err != nil {
		return Counts{}, err
	}
	defer y.Release()
	x.SetRole(RoleInput)
	y.SetRole(RoleParam)
	late, all := make([]float32, 2), make([]float32, 4)
	for _, step := range []func() error{
		func() error { return x.Write([]float32{1, 2, 3, 4}) },
		func() error { return y.Write([]float32{10, 20, 30, 40}) },
		func() error { return saxpy.Launch([]int{4}, []int{4}, y, x, float32(2), 4) },
		func() error { return y.ReadAsync(late, 2) },
		ctx.Finish,
		func() error { return y.Read(all) },
	} {
		if err := step(); err != nil {
			return Counts{}, err
		}
	}
	if fmt.Sprint(late, all) != "[36 48] [12 24 36 48]" {
		return Counts{}, fmt.Errorf("read %v without blocking and %v blocking, want [36 48] and [12 24 36 48]", late, all)
	}
	return ctx.Counts().Sub(before), nil
}

func fakeCUDAChild(t *testing.T, so string) {
	var liveAllocs, liveHost, retained, compiles, pageable, queued func() int32
	if err := bindLibrary(so, "", "", []symbol{{"fake_live_allocs", &liveAllocs}, {"fake_live_host", &liveHost}, {"fake_retained", &retained},
		{"fake_compiles", &compiles}, {"fake_pageable_copies", &pageable}, {"fake_queued", &queued}}); err != nil {
		t.Fatal(err)
	}
	live0 := LiveObjects()
	devs, err := CUDADevices()
	if err != nil || len(devs) != 1 {
		t.Fatalf("CUDADevices: %v, %v", devs, err)
	}
	if v := CUDAVersions(); v != "driver 13.0, NVRTC 13.0, cuBLAS 13.1" {
		t.Errorf("CUDAVersions: %q", v)
	}
	if err := Unavailable("cuda:1"); err == nil || !strings.Contains(err.Error(), "no CUDA device 1") {
		t.Errorf("Unavailable(cuda:1): %v", err)
	}
	ctx, err := Open("cuda")
	if err != nil {
		t.Fatal(err)
	}
	d := ctx.Device()
	if !d.CUDA || d.Name != "Fake GPU" || d.GlobalMemBytes != 1<<30 || d.MaxWorkGroupSize != 1024 || d.ComputeUnits != 4 ||
		d.ComputeMajor != 9 || d.ComputeMinor != 0 || !d.FP64 || !d.CorrectDivSqrt || d.PlatformName != "CUDA" || d.Selector().String() != "cuda:0" {
		t.Errorf("device: %+v", d)
	}

	// Buffers, transfers, fills, copies, a group.
	a, err := ctx.AllocFloat32([]float32{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ctx.Alloc(5)
	check := func(what string, buf *Buffer, want ...float32) {
		t.Helper()
		got, err := buf.Float32s()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	check("write", a, 1, 2, 3, 4, 5)
	if err := ctx.Fill(b, 0.5); err != nil {
		t.Fatal(err)
	}
	if err := ctx.FillRange(b, 3, 2, -1); err != nil {
		t.Fatal(err)
	}
	check("fill", b, 0.5, 0.5, 0.5, -1, -1)
	if err := ctx.Copy(b, 1, a, 2, 3); err != nil {
		t.Fatal(err)
	}
	check("copy", b, 0.5, 3, 4, 5, -1)
	if err := a.WriteAt([]float32{9}, 4); err != nil {
		t.Fatal(err)
	}
	late := make([]float32, 2)
	if err := a.ReadAsync(late, 3); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Finish(); err != nil {
		t.Fatal(err)
	}
	if late[0] != 4 || late[1] != 9 {
		t.Errorf("ReadAsync after Finish: %v", late)
	}
	group, err := ctx.AllocGroup([]int{3, 70, 1}, RoleParam)
	if err != nil {
		t.Fatal(err)
	}
	parent, off := group[1].Group()
	if off != 64 || group[1].mem != parent.mem+64*4 {
		t.Errorf("group's second buffer at element %d, address %#x (parent %#x)", off, group[1].mem, parent.mem)
	}
	if err := group[1].Write([]float32{7, 8}); err != nil {
		t.Fatal(err)
	}
	check("group", parent, 0, 0, 0)
	all, _ := parent.Float32s()
	if all[64] != 7 || all[65] != 8 || all[66] != 0 {
		t.Errorf("group's parent around element 64: %v", all[62:68])
	}

	// Programs: a compile error with its log, the kernels, launches.
	if _, err := ctx.BuildProgram("#error no", ""); err == nil || !strings.Contains(err.Error(), "nvrtcCompileProgram") || !strings.Contains(err.Error(), "fake error") {
		t.Errorf("a compile error: %v", err)
	}
	p, err := ctx.BuildProgram("kernels", "--fmad=false -DX=1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Kernel("nope"); err == nil || !strings.Contains(err.Error(), "cuModuleGetFunction(nope): CUDA_ERROR_NOT_FOUND (500)") {
		t.Errorf("a missing kernel: %v", err)
	}
	saxpy, err := p.Kernel("saxpy")
	if err != nil {
		t.Fatal(err)
	}
	if saxpy.MaxWorkGroupSize() != 512 || saxpy.nargs != 4 {
		t.Errorf("saxpy: max work-group %d, %d arguments", saxpy.MaxWorkGroupSize(), saxpy.nargs)
	}
	if err := saxpy.Launch([]int{5}, []int{4}, b, a, float32(2), 5); err != nil {
		t.Fatal(err)
	}
	check("saxpy", b, 2.5, 7, 10, 13, 17)
	c, err := countsSequence(ctx, saxpy)
	if err != nil {
		t.Fatal(err)
	}
	if js, err := json.Marshal(c); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(os.Getenv("LLPFC_TEST_FAKE_COUNTS"), js, 0o644); err != nil {
		t.Fatal(err)
	}
	fakeStaging(t, ctx, liveHost, queued)
	fakeCache(t, ctx, p, compiles)
	if err := saxpy.Launch([]int{5}, []int{4}, b, a, 2.0, 5); err == nil || !strings.Contains(err.Error(), "argument 2 is 8 bytes, the kernel's parameter 4") {
		t.Errorf("a double for a float: %v", err)
	}
	if err := saxpy.Launch([]int{5}, []int{4}, b, a, Local(16), 5); !errors.Is(err, errCUDALocal) {
		t.Errorf("a Local argument: %v", err)
	}
	dsum, err := p.Kernel("dsum")
	if err != nil {
		t.Fatal(err)
	}
	out, _ := ctx.Alloc(2)
	if err := dsum.Launch([]int{1}, []int{1}, out, group[1], 0.5, 2, Int8{1, 0, 0, 0, 0, 0, 0, 2}); err != nil {
		t.Fatal(err)
	}
	raw := make([]float32, 2)
	if err := out.Read(raw); err != nil {
		t.Fatal(err)
	}
	if got := math.Float64frombits(uint64(math.Float32bits(raw[0])) | uint64(math.Float32bits(raw[1]))<<32); got != 0.5*15+3 {
		t.Errorf("dsum over a group's buffer with a double and an int8: %v, want 10.5", got)
	}

	// cuBLAS: a row-major product with offsets and transposes.
	// A (k×m, transposed) = [[1 2] [3 4] [5 6]] at offset 1, lda 2;
	// B (k×n) = [[1 0 1] [0 1 0] [1 1 1]] at offset 0, ldb 3; C 2×3 at offset 2, ldc 4.
	ma, _ := ctx.AllocFloat32([]float32{-9, 1, 2, 3, 4, 5, 6})
	mb, _ := ctx.AllocFloat32([]float32{1, 0, 1, 0, 1, 0, 1, 1, 1})
	mc, _ := ctx.AllocFloat32(make([]float32, 10))
	if err := ctx.Sgemm(true, false, 2, 3, 3, 1, ma, 1, 2, mb, 0, 3, 0, mc, 2, 4); err != nil {
		t.Fatal(err)
	}
	// op(A) = [[1 3 5] [2 4 6]]; op(A)·B = [[6 8 6] [8 10 8]].
	check("sgemm", mc, 0, 0, 6, 8, 6, 0, 8, 10, 8, 0)

	// The context's work from many goroutines on many threads: each call
	// binds the context to its thread (the fake refuses it otherwise).
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // a thread of its own, as the Go scheduler may pick
			buf, err := ctx.AllocFloat32([]float32{float32(g)})
			if err == nil {
				v := make([]float32, 1)
				if err = buf.Read(v); err == nil && v[0] != float32(g) {
					err = errors.New("a read from another thread returned the wrong value")
				}
				err = errors.Join(err, buf.Release())
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}

	c = ctx.Counts()
	if c.Kernels != 3 || c.BLASCalls != 1 || c.Copies != 1 || c.Fills != 3 || c.Allocs != 23+2+fakeStagingAllocs {
		t.Errorf("counts: %+v", c)
	}
	if err := ctx.OverrideGEMM(GEMMParams{}); !errors.Is(err, ErrCUDAGEMM) {
		t.Errorf("OverrideGEMM on CUDA: %v", err)
	}
	if _, err := ctx.Library(); err == nil { // the stub's empty source, or a real one the fake has no kernels of
		t.Errorf("Library with the stubbed source: %v", err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if err := group[0].Release(); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if n := LiveObjects(); n != live0 {
		t.Errorf("live objects after Close: %d, before Open %d", n, live0)
	}
	if liveAllocs() != 0 || liveHost() != 0 || retained() != 0 {
		t.Errorf("after Close the fake holds %d allocations, %d page-locked allocations and %d context references", liveAllocs(), liveHost(), retained())
	}
	if n := pageable(); n != 0 {
		t.Errorf("%d async copies from or into pageable host memory (each may block the host, or wait for the stream)", n)
	}
}

// fakeStagingAllocs are the buffers fakeStaging allocates.
const fakeStagingAllocs = 42

// fakeStaging: a Go slice given to Write may be overwritten as soon as
// Write returns, for many writes in flight (each its own staging, which
// the fake's deferred copies read only at the next wait); reads that do
// not block deliver each its own values; a transfer larger than the
// arena's chunks grows it, and what exceeds pinnedKeep is freed once
// the stream has run dry.
func fakeStaging(t *testing.T, ctx *Context, liveHost, queued func() int32) {
	t.Helper()
	const n, k = 1000, 40
	bufs := make([]*Buffer, k)
	src := make([]float32, n)
	before := ctx.Counts()
	for j := range bufs {
		var err error
		if bufs[j], err = ctx.Alloc(n); err != nil {
			t.Fatal(err)
		}
		for i := range src {
			src[i] = float32(j*n + i)
		}
		if err := bufs[j].Write(src); err != nil {
			t.Fatal(err)
		}
		for i := range src {
			src[i] = -1 // the caller reuses its slice at once
		}
	}
	if w := ctx.Counts().Sub(before).Waits; w != 0 || queued() != k {
		t.Errorf("%d writes waited %d times and left %d copies queued, want 0 and %d", k, w, queued(), k)
	}
	lates := make([][]float32, k)
	for j, b := range bufs {
		lates[j] = make([]float32, 3)
		if err := b.ReadAsync(lates[j], j); err != nil {
			t.Fatal(err)
		}
	}
	if lates[1][0] != 0 {
		t.Fatalf("a read that does not block delivered before the wait: %v", lates[1])
	}
	if err := ctx.Finish(); err != nil {
		t.Fatal(err)
	}
	for j, b := range bufs {
		got := make([]float32, n)
		if err := b.Read(got); err != nil {
			t.Fatal(err)
		}
		for i, v := range got {
			if v != float32(j*n+i) {
				t.Fatalf("buffer %d element %d = %g, want %d (the device got staging another transfer reused)", j, i, v, j*n+i)
			}
		}
		if want := []float32{float32(j*n + j), float32(j*n + j + 1), float32(j*n + j + 2)}; !reflect.DeepEqual(lates[j], want) {
			t.Fatalf("read %d without blocking: %v, want %v", j, lates[j], want)
		}
		b.Release()
	}

	// Larger than a chunk, then larger than what the arena keeps.
	held := liveHost()
	for _, size := range []int{pinnedChunk/4 + 5, pinnedKeep/4 + 7} {
		big, err := ctx.Alloc(size)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]float32, size)
		for i := range data {
			data[i] = float32(i % 1000)
		}
		if err := big.Write(data); err != nil {
			t.Fatal(err)
		}
		clear(data)
		if err := big.Read(data); err != nil {
			t.Fatal(err)
		}
		for i, v := range data {
			if v != float32(i%1000) {
				t.Fatalf("a %d-element transfer: element %d = %g", size, i, v)
			}
		}
		big.Release()
	}
	if got := liveHost(); held != 1 || got != 1 {
		t.Errorf("page-locked allocations: %d before transfers past a chunk and past pinnedKeep, %d after the waits; want one, reused", held, got)
	}
}

// fakeCache: the images NVRTC compiles are cached (LLPFC_CUDA_CACHE, set
// by the parent): a second context's build loads the image and compiles
// nothing; other options are another image; a truncated cache file, and
// one whose image the driver refuses, are removed and compiled again; a
// cache folder that cannot be made still builds. p was built with
// "--fmad=false -DX=1".
func fakeCache(t *testing.T, ctx *Context, p *Program, compiles func() int32) {
	t.Helper()
	per := int32(1) // NVRTC calls per compile: two where sm_XY is refused
	kind := "cubin"
	if os.Getenv("FAKE_REFUSE_SM") != "" {
		per, kind = 2, "ptx"
	}
	first := p.CUDAImage()
	dir := os.Getenv(CUDACacheEnv)
	if first.Cached || first.Kind != kind || filepath.Dir(first.Path) != dir || first.CacheErr != "" {
		t.Fatalf("the first build's image: %+v, want a %s compiled and cached in %s", first, kind, dir)
	}
	build := func(c *Context, opts string, compiled int32, what string) CUDAImage {
		t.Helper()
		n := compiles()
		q, err := c.BuildProgram("kernels", opts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := compiles() - n; got != compiled {
			t.Errorf("%s: %d NVRTC compiles, want %d (%+v)", what, got, compiled, q.CUDAImage())
		}
		if _, err := q.Kernel("saxpy"); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return q.CUDAImage()
	}

	ctx2, err := Open("cuda")
	if err != nil {
		t.Fatal(err)
	}
	if img := build(ctx2, "--fmad=false -DX=1", 0, "another context, the same source and options"); !img.Cached || img.Path != first.Path || img.Kind != kind {
		t.Errorf("a second context's build: %+v, want the cached %s", img, first.Path)
	}
	if err := ctx2.Close(); err != nil {
		t.Fatal(err)
	}
	if img := build(ctx, "--fmad=false -DX=2", per, "other options"); img.Cached || img.Path == first.Path || img.Path == "" {
		t.Errorf("other options: %+v, want another image, compiled and cached", img)
	}

	st, err := os.Stat(first.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(first.Path, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	if img := build(ctx, "--fmad=false -DX=1", per, "a truncated cache file"); img.Cached || img.Path != first.Path || !strings.Contains(img.CacheErr, "corrupt") {
		t.Errorf("a truncated cache file: %+v, want it removed, compiled again and cached", img)
	}
	if _, ok, _ := readCUDACache(first.Path); !ok {
		t.Error("the truncated cache file was not replaced")
	}
	if err := writeCUDACache(first.Path, []byte("GARBAGE\x00")); err != nil { // a sound file of an image the driver refuses
		t.Fatal(err)
	}
	if img := build(ctx, "--fmad=false -DX=1", per, "an image the driver refuses"); img.Cached || !strings.Contains(img.CacheErr, "refused") {
		t.Errorf("a cached image the driver refuses: %+v, want it removed and compiled again", img)
	}
	if img := build(ctx, "--fmad=false -DX=1", 0, "the image cached again"); !img.Cached {
		t.Errorf("after the refused image: %+v, want the new one cached", img)
	}

	// The cache keeps the cudaCacheKeep images used last: a hit marks its
	// image used (the X=1 image, made an hour old first, outlives the
	// X=2 image), each compile past the limit removes the least recently
	// used, and a file of the user's in the folder stays.
	second := build(ctx, "--fmad=false -DX=2", 0, "the other options' image again").Path
	hourAgo := time.Now().Add(-time.Hour)
	if err := os.Chtimes(first.Path, hourAgo, hourAgo); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(theirs, []byte("a user's file"), 0o644); err != nil {
		t.Fatal(err)
	}
	build(ctx, "--fmad=false -DX=1", 0, "a hit on the hour-old image")
	var last CUDAImage
	for i := 0; i < cudaCacheKeep-1; i++ {
		last = build(ctx, fmt.Sprintf("--fmad=false -DX=%d", 10+i), per, "a new image")
	}
	if last.Pruned != 1 || !strings.Contains(last.String(), "1 least recently used images removed") {
		t.Errorf("the compile past the limit: %+v (%s), want one image removed", last, last)
	}
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Errorf("the least recently used image %s is still there (%v)", second, err)
	}
	for _, p := range []string{first.Path, theirs} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*."+kind)); len(names) != cudaCacheKeep {
		t.Errorf("%d images in the cache, want %d", len(names), cudaCacheKeep)
	}

	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(CUDACacheEnv, filepath.Join(file, "cuda")) // under a file: no folder can be made, even as root
	if img := build(ctx, "--fmad=false -DX=3", per, "an unwritable cache"); img.Cached || img.Path != "" || !strings.Contains(img.CacheErr, "not cached") {
		t.Errorf("an unwritable cache: %+v, want the image compiled and the reason it is not cached", img)
	}
	t.Setenv(CUDACacheEnv, dir)
}
