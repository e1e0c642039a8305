package opencl_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
)

func TestParseDevice(t *testing.T) {
	for _, c := range []struct {
		in   string
		want opencl.Selector
		err  string
	}{
		{"opencl", opencl.Selector{}, ""},
		{"opencl:0:0", opencl.Selector{}, ""},
		{"opencl:2:13", opencl.Selector{Platform: 2, Device: 13}, ""},
		{"opencl:1", opencl.Selector{}, "1 index(es)"},
		{"opencl:1:2:3", opencl.Selector{}, "3 index(es)"},
		{"opencl:x:0", opencl.Selector{}, `platform index "x"`},
		{"opencl:0:-1", opencl.Selector{}, `device index "-1"`},
		// Atoi's signs once passed ("-0" read as 0); an index is digits only.
		{"opencl:-0:0", opencl.Selector{}, `platform index "-0"`},
		{"opencl:0:+1", opencl.Selector{}, `device index "+1"`},
		{"opencl: 0:0", opencl.Selector{}, `platform index " 0"`},
		{"opencl:", opencl.Selector{}, "1 index(es)"},
		{"cuda", opencl.Selector{CUDA: true}, ""},
		{"cuda:2", opencl.Selector{CUDA: true, Device: 2}, ""},
		{"cuda:x", opencl.Selector{}, `device index "x"`},
		{"vulkan", opencl.Selector{}, "not an OpenCL or CUDA device"},
		{"", opencl.Selector{}, "not an OpenCL or CUDA device"},
	} {
		got, err := opencl.ParseDevice(c.in)
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("ParseDevice(%q) = %v, %v; want %v", c.in, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "opencl:PLATFORM:DEVICE") {
			t.Errorf("ParseDevice(%q) error %v; want one containing %q and the accepted forms", c.in, err, c.err)
		}
	}
}

// TestResolveNamesWhatExists: an index out of range names the platforms or
// devices there are.
func TestResolveNamesWhatExists(t *testing.T) {
	ps := []opencl.PlatformInfo{
		{Index: 0, Name: "Portable Computing Language", Devices: []opencl.DeviceInfo{{Name: "pthread-cpu"}}},
		{Index: 1, Name: "NVIDIA CUDA", Devices: []opencl.DeviceInfo{{Name: "H100"}, {Name: "H100 b"}}},
	}
	for _, c := range []struct {
		sel  opencl.Selector
		want []string
	}{
		{opencl.Selector{Platform: 2}, []string{"no platform 2", "0: Portable Computing Language", "1: NVIDIA CUDA"}},
		{opencl.Selector{Platform: 1, Device: 5}, []string{"no device 5", "NVIDIA CUDA", "0: H100", "1: H100 b"}},
		{opencl.Selector{Platform: 0, Device: 1}, []string{"no device 1", "0: pthread-cpu"}},
	} {
		_, err := c.sel.Resolve(ps)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Resolve(%v): error %v, want it to contain %q", c.sel, err, w)
			}
		}
	}
	if d, err := (opencl.Selector{Platform: 1, Device: 1}).Resolve(ps); err != nil || d.Name != "H100 b" {
		t.Errorf("Resolve(1:1) = %v, %v", d.Name, err)
	}
	if _, err := (opencl.Selector{}).Resolve(nil); err == nil || !strings.Contains(err.Error(), "no OpenCL platform") {
		t.Errorf("Resolve with no platform: %v", err)
	}
}

func TestErrorName(t *testing.T) {
	for code, want := range map[int32]string{
		-5:    "CL_OUT_OF_RESOURCES (-5)",
		-46:   "CL_INVALID_KERNEL_NAME (-46)",
		-1017: "CLBlastInvalidDimension (-1017)",
		-9999: "unknown OpenCL status -9999",
	} {
		if got := opencl.ErrorName(code); got != want {
			t.Errorf("ErrorName(%d) = %q, want %q", code, got, want)
		}
	}
	e := &opencl.Error{Call: "clEnqueueNDRangeKernel", What: "bn_stats", Code: -5}
	if got, want := e.Error(), "clEnqueueNDRangeKernel(bn_stats): CL_OUT_OF_RESOURCES (-5)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestMissingLibrary runs this test binary again with LLPFC_OPENCL_LIB
// and LLPFC_CLBLAST_LIB pointing at files that do not exist: the errors
// name the file, the variable and the Debian package (runs without
// OpenCL installed).
func TestMissingLibrary(t *testing.T) {
	if os.Getenv("LLPFC_TEST_MISSING_LIB") == "1" {
		_, err := opencl.Platforms()
		fmt.Println("PLATFORMS:", err)
		var le *opencl.LibraryError
		fmt.Println("IS-LIBRARY-ERROR:", errors.As(err, &le))
		fmt.Println("CLBLAST:", opencl.CLBlastAvailable())
		_, err = opencl.Open("opencl")
		fmt.Println("OPEN:", err)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingLibrary$", "-test.v")
	cmd.Env = append(os.Environ(), "LLPFC_TEST_MISSING_LIB=1",
		"LLPFC_OPENCL_LIB=/nonexistent/libOpenCL.so.1", "LLPFC_CLBLAST_LIB=/nonexistent/libclblast.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper process: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{
		"PLATFORMS: cannot load /nonexistent/libOpenCL.so.1", "ocl-icd-libopencl1", "LLPFC_OPENCL_LIB",
		"IS-LIBRARY-ERROR: true",
		"CLBLAST: cannot load /nonexistent/libclblast.so.1", "libclblast1", "LLPFC_CLBLAST_LIB",
		"OPEN: cannot load /nonexistent/libOpenCL.so.1",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("helper output lacks %q:\n%s", want, s)
		}
	}
}

func TestPlatformsAndDevices(t *testing.T) {
	ocltest.Require(t)
	ps, err := opencl.Platforms()
	must(t, err)
	if len(ps) == 0 {
		t.Fatal("no platform")
	}
	for _, p := range ps {
		if p.Name == "" || p.Version == "" {
			t.Errorf("platform %d: empty name or version: %+v", p.Index, p)
		}
		for i, d := range p.Devices {
			if d.Name == "" || d.Version == "" || d.Type == "" || d.GlobalMemBytes == 0 || d.ComputeUnits < 1 || d.MaxWorkGroupSize < 1 {
				t.Errorf("device %d:%d: incomplete %+v", p.Index, i, d)
			}
			if d.Platform != p.Index || d.Index != i || d.PlatformName != p.Name {
				t.Errorf("device %d:%d: indices %d:%d, platform %q", p.Index, i, d.Platform, d.Index, d.PlatformName)
			}
		}
	}
}

func TestBuffers(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	before := ctx.BytesAllocated()
	b, err := ctx.Alloc(17)
	must(t, err)
	if got := ctx.BytesAllocated() - before; got != 17*4 {
		t.Errorf("BytesAllocated grew by %d, want 68", got)
	}
	x := randn(newRNG(t), 17, -1, 1)
	must(t, b.Write(x))
	checkExact(t, "write/read", download(t, b, 17), x)
	must(t, b.WriteAt([]float32{5, 6}, 15))
	got := download(t, b, 17)
	checkExact(t, "WriteAt", got[15:], []float32{5, 6})
	part := make([]float32, 3)
	must(t, b.ReadAt(part, 2))
	checkExact(t, "ReadAt", part, x[2:5])
	c, err := ctx.Alloc(20)
	must(t, err)
	must(t, ctx.Fill(c, 2.5))
	must(t, ctx.Copy(c, 3, b, 0, 10))
	want := []float32{2.5, 2.5, 2.5}
	want = append(append(want, x[:10]...), 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5)
	checkExact(t, "fill then copy", download(t, c, 20), want)
	must(t, ctx.FillRange(c, 18, 2, -1))
	checkExact(t, "FillRange", download(t, c, 20)[17:], []float32{2.5, -1, -1})
	ints := []int32{1, -2, 1 << 30}
	must(t, c.WriteInt32(ints))
	if got := downloadInt(t, c, 3); fmt.Sprint(got) != fmt.Sprint(ints) {
		t.Errorf("int32 round trip: %v", got)
	}
	for name, err := range map[string]error{
		"write past the end":       b.WriteAt([]float32{1, 2}, 16),
		"read past the end":        b.ReadAt(make([]float32, 18), 0),
		"copy past the end":        ctx.Copy(c, 15, b, 0, 10),
		"overlapping copy":         ctx.Copy(c, 2, c, 0, 5),
		"fill past the end":        ctx.FillRange(b, 10, 10, 0),
		"zero-length buffer":       allocErr(ctx, 0),
		"negative offset":          b.ReadAt(make([]float32, 1), -1),
		"buffer larger than alloc": allocErr(ctx, int(ctx.Device().MaxAllocBytes/4)+1),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	must(t, b.Release())
	must(t, b.Release()) // twice is harmless
	if err := b.Write(x); err == nil || !strings.Contains(err.Error(), "released") {
		t.Errorf("write after release: %v", err)
	}
	must(t, c.Release())
	if got := ctx.BytesAllocated(); got != before {
		t.Errorf("BytesAllocated after releasing both: %d, want %d", got, before)
	}
}

func allocErr(ctx *opencl.Context, n int) error {
	b, err := ctx.Alloc(n)
	if err == nil {
		b.Release()
	}
	return err
}

// TestBuildErrors: a compile error carries the build log; an unknown
// kernel name and a bad argument are named.
func TestBuildErrors(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	_, err := ctx.BuildProgram("__kernel void broken(__global float *x) { x[0] = undefined_name; }", "")
	if err == nil || !strings.Contains(err.Error(), "CL_BUILD_PROGRAM_FAILURE") || !strings.Contains(err.Error(), "undefined_name") {
		t.Errorf("build of a broken kernel: %v; want CL_BUILD_PROGRAM_FAILURE and the build log naming undefined_name", err)
	}
	p, err := ctx.BuildProgram("__kernel void twice(__global float *x, int n) { int i = get_global_id(0); if (i < n) x[i] *= 2.0f; }", "")
	must(t, err)
	if _, err := p.Kernel("thrice"); err == nil || !strings.Contains(err.Error(), "CL_INVALID_KERNEL_NAME") || !strings.Contains(err.Error(), "thrice") {
		t.Errorf("unknown kernel: %v", err)
	}
	k, err := p.Kernel("twice")
	must(t, err)
	b := upload(t, l, []float32{1, 2, 3})
	must(t, k.Launch([]int{3}, []int{64}, b, 3))
	checkExact(t, "a hand-written kernel", download(t, b, 3), []float32{2, 4, 6})
	if err := k.Launch([]int{3}, []int{64}, b, "three"); err == nil || !strings.Contains(err.Error(), "unsupported type string") {
		t.Errorf("a string argument: %v", err)
	}
	if err := k.Launch([]int{3}, []int{64}, b); err == nil || !strings.Contains(err.Error(), "1 arguments, the kernel takes 2") {
		t.Errorf("a missing argument: %v", err)
	}
}

// TestCreateCloseCycles opens and closes a context many times, each time
// building the library, allocating, running kernels and CLBlast; every
// OpenCL object created is released (LiveObjects returns to its start)
// and methods of a closed context fail cleanly.
func TestCreateCloseCycles(t *testing.T) {
	ocltest.Require(t)
	start := opencl.LiveObjects()
	for i := 0; i < 12; i++ {
		ctx, err := opencl.Open(ocltest.Device())
		must(t, err)
		l, err := ctx.Library()
		must(t, err)
		x, err := ctx.AllocFloat32([]float32{1, 2, 3, 4})
		must(t, err)
		y, err := ctx.Alloc(4)
		must(t, err)
		must(t, l.Unary(opencl.Square, x, y, 4))
		must(t, ctx.Sgemm(false, false, 2, 2, 2, 1, x, 0, 2, x, 0, 2, 0, y, 0, 2))
		got := download(t, y, 4)
		checkExact(t, "cycle result", got, []float32{7, 10, 15, 22})
		kept, err := ctx.Alloc(8) // not released by hand: Close frees it
		must(t, err)
		_ = kept
		must(t, x.Release())
		must(t, ctx.Close())
		must(t, ctx.Close()) // twice is harmless
		if err := ctx.Finish(); err == nil {
			t.Fatal("Finish after Close: no error")
		}
		if _, err := ctx.Alloc(1); err == nil {
			t.Fatal("Alloc after Close: no error")
		}
		if err := l.Unary(opencl.Square, y, y, 4); err == nil {
			t.Fatal("a kernel after Close: no error")
		}
	}
	if got := opencl.LiveObjects(); got != start {
		t.Errorf("after 12 create/close cycles %d OpenCL objects are live, want %d (a leak)", got, start)
	}
}

// TestConcurrentLaunches: launches from several goroutines on one library
// are serialised correctly (run with -race to check the locking).
func TestConcurrentLaunches(t *testing.T) {
	l := testLib(t)
	const workers, n = 4, 1000
	errs := make(chan error, workers)
	outs := make([]*opencl.Buffer, workers)
	for w := range outs {
		outs[w] = alloc(t, l, n)
	}
	x := upload(t, l, randn(newRNG(t), n, -1, 1))
	for w := 0; w < workers; w++ {
		go func(w int) {
			var err error
			for r := 0; r < 20 && err == nil; r++ {
				err = l.Scale(float32(w+1), x, outs[w], n)
			}
			errs <- err
		}(w)
	}
	for w := 0; w < workers; w++ {
		must(t, <-errs)
	}
	xs := download(t, x, n)
	for w := range outs {
		got := download(t, outs[w], n)
		for i := range got {
			if got[i] != float32(w+1)*xs[i] {
				t.Fatalf("worker %d element %d: %v, want %v", w, i, got[i], float32(w+1)*xs[i])
			}
		}
	}
}
