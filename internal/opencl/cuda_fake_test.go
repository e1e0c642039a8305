package opencl

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestCUDADriverOnAFake runs the CUDA driver — loading, the context and
// its stream, buffers and groups, transfers, fills, copies, NVRTC builds
// (and the PTX fallback), kernel lookup, launches with their arguments,
// cuBLAS products, the counts and the releases — against a fake of the
// three libraries (testdata/fakecuda.c: host memory, kernels run on the
// host, every driver call refused on a thread where the context is not
// current). It needs a C compiler to build the fake (skipped without
// one); what it cannot show is that the real libraries behave as the
// fake does (that is `llpfc devices --check cuda` on a GPU).
func TestCUDADriverOnAFake(t *testing.T) {
	if so := os.Getenv("LLPFC_TEST_FAKE_CUDA"); so != "" {
		fakeCUDAChild(t, so)
		return
	}
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
	for _, refuseSM := range []string{"", "1"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCUDADriverOnAFake$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "LLPFC_TEST_FAKE_CUDA="+so, cudaLibEnv+"="+so, nvrtcLibEnv+"="+so, cublasLibEnv+"="+so)
		if refuseSM != "" {
			cmd.Env = append(cmd.Env, "FAKE_REFUSE_SM=1")
		}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "PASS") {
			t.Fatalf("child (FAKE_REFUSE_SM=%q): %v\n%s", refuseSM, err, out)
		}
	}
}

func fakeCUDAChild(t *testing.T, so string) {
	var liveAllocs, retained func() int32
	if err := bindLibrary(so, "", "", []symbol{{"fake_live_allocs", &liveAllocs}, {"fake_retained", &retained}}); err != nil {
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

	c := ctx.Counts()
	if c.Kernels != 2 || c.BLASCalls != 1 || c.Copies != 1 || c.Fills != 3 || c.Allocs != 23 {
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
	if liveAllocs() != 0 || retained() != 0 {
		t.Errorf("after Close the fake holds %d allocations and %d context references", liveAllocs(), retained())
	}
}
