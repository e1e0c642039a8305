package opencl

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// colMajorSgemm is BLAS's sgemm as cuBLAS documents it: column-major
// matrices, element (i, j) of a matrix with leading dimension ld at
// i + j·ld; op(A) is m×k, op(B) k×n, C m×n; C = α·op(A)·op(B) + β·C.
func colMajorSgemm(transa, transb int32, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	at := func(i, l int) float32 { // op(A)(i, l)
		if transa == cublasOpT {
			return a[l+i*lda]
		}
		return a[i+l*lda]
	}
	bt := func(l, j int) float32 { // op(B)(l, j)
		if transb == cublasOpT {
			return b[j+l*ldb]
		}
		return b[l+j*ldb]
	}
	for j := range n {
		for i := range m {
			var s float64
			for l := range k {
				s += float64(at(i, l)) * float64(bt(l, j))
			}
			c[i+j*ldc] = alpha*float32(s) + beta*c[i+j*ldc]
		}
	}
}

// rowMajorSgemm is Context.Sgemm's contract: row-major, element (i, j) at
// i·ld + j.
func rowMajorSgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	for i := range m {
		for j := range n {
			var s float64
			for l := range k {
				ai, bi := i*lda+l, l*ldb+j
				if transA {
					ai = l*lda + i
				}
				if transB {
					bi = j*ldb + l
				}
				av, bv := a[ai], b[bi]
				s += float64(av) * float64(bv)
			}
			c[i*ldc+j] = alpha*float32(s) + beta*c[i*ldc+j]
		}
	}
}

// TestCublasArgsMatchRowMajor: the row-major product, run as the cuBLAS
// call cublasArgs makes (on a column-major sgemm with cuBLAS's semantics,
// over the same memory), gives the row-major reference — every transpose
// combination, offsets, leading dimensions wider than the rows, non-square
// shapes (a swap of m and n, of A and B, or of the flags fails here).
func TestCublasArgsMatchRowMajor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.IntN(7) - 3)
		}
		return v
	}
	for _, shape := range [][3]int{{3, 5, 2}, {4, 1, 6}, {1, 7, 3}, {5, 4, 1}, {6, 6, 6}} {
		m, n, k := shape[0], shape[1], shape[2]
		for _, ta := range []bool{false, true} {
			for _, tb := range []bool{false, true} {
				ar, ac := m, k
				if ta {
					ar, ac = k, m
				}
				br, bc := k, n
				if tb {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+2, bc+1, n+3
				aOff, bOff, cOff := 5, 3, 7
				a := rnd(aOff + ar*lda)
				b := rnd(bOff + br*ldb)
				c0 := rnd(cOff + m*ldc)
				alpha, beta := float32(1.5), float32(-0.5)

				want := append([]float32(nil), c0...)
				rowMajorSgemm(ta, tb, m, n, k, alpha, a[aOff:], lda, b[bOff:], ldb, beta, want[cOff:], ldc)

				g, err := cublasArgs(ta, tb, m, n, k, aOff, lda, bOff, ldb, cOff, ldc)
				if err != nil {
					t.Fatal(err)
				}
				buf := map[int][]float32{'A': a, 'B': b}
				got := append([]float32(nil), c0...)
				colMajorSgemm(g.TransA, g.TransB, int(g.M), int(g.N), int(g.K), alpha,
					buf[g.A][g.AOff:], g.LDA, buf[g.B][g.BOff:], g.LDB, beta, got[g.COff:], g.LDC)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%d×%d×%d transA=%v transB=%v: C[%d] = %v, want %v (cuBLAS call %+v)", m, n, k, ta, tb, i, got[i], want[i], g)
					}
				}
			}
		}
	}
	if _, err := cublasArgs(false, false, 1<<31, 1, 1, 0, 1, 0, 1, 0, 1); err == nil {
		t.Error("m = 2³¹ was accepted; cuBLAS takes 32-bit ints")
	}
}

// TestCudaGeometry: block = local, grid = global/local, unused dimensions
// 1; CUDA's limits refused.
func TestCudaGeometry(t *testing.T) {
	for _, c := range []struct {
		dims          int
		global, local [3]uintptr
		grid, block   [3]uint32
		err           string
	}{
		{1, [3]uintptr{640}, [3]uintptr{64}, [3]uint32{10, 1, 1}, [3]uint32{64, 1, 1}, ""},
		{1, [3]uintptr{256}, [3]uintptr{256}, [3]uint32{1, 1, 1}, [3]uint32{256, 1, 1}, ""},
		{2, [3]uintptr{32, 48}, [3]uintptr{16, 16}, [3]uint32{2, 3, 1}, [3]uint32{16, 16, 1}, ""},
		{3, [3]uintptr{64, 32, 5}, [3]uintptr{16, 16, 1}, [3]uint32{4, 2, 5}, [3]uint32{16, 16, 1}, ""},
		{1, [3]uintptr{100}, [3]uintptr{64}, [3]uint32{}, [3]uint32{}, "not a multiple"},
		{1, [3]uintptr{2048}, [3]uintptr{2048}, [3]uint32{}, [3]uint32{}, "exceed"},
		{2, [3]uintptr{64, 64}, [3]uintptr{64, 32}, [3]uint32{}, [3]uint32{}, "1024"},
		{2, [3]uintptr{1, 65536}, [3]uintptr{1, 1}, [3]uint32{}, [3]uint32{}, "exceed"},
		{0, [3]uintptr{}, [3]uintptr{}, [3]uint32{}, [3]uint32{}, "dimensions"},
	} {
		grid, block, err := cudaGeometry(c.dims, c.global, c.local)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%d dims, global %v, local %v: error %v, want one with %q", c.dims, c.global, c.local, err, c.err)
			}
			continue
		}
		if err != nil || grid != c.grid || block != c.block {
			t.Errorf("%d dims, global %v, local %v: grid %v block %v (%v), want %v %v", c.dims, c.global, c.local, grid, block, err, c.grid, c.block)
		}
	}
}

// TestCudaArgs: each argument's bytes at an 8-aligned offset, its size as
// the kernel's parameter would be; a group's buffer passes its parent's
// address plus its offset; Local, an unknown type, an int over 32 bits and
// a bad buffer are errors.
func TestCudaArgs(t *testing.T) {
	ctx := &Context{}
	parent := &Buffer{ctx: ctx, mem: 0x7f0000001000, n: 1024}
	part := &Buffer{ctx: ctx, mem: cudaSubBuffer(parent.mem, 256*4), n: 10, group: parent, off: 256}
	ok := func(int, *Buffer) error { return nil }
	args := []any{parent, part, 7, int32(-3), uint32(0xdeadbeef), float32(1.5), 2.25, Int8{1, 2, 3, 4, 5, 6, 7, 8}}
	blob, offs, sizes, err := cudaArgs("k", args, ok)
	if err != nil {
		t.Fatal(err)
	}
	wantSizes := []int{8, 8, 4, 4, 4, 4, 8, 32}
	for i := range args {
		if sizes[i] != wantSizes[i] || offs[i]%8 != 0 || (i > 0 && offs[i] < offs[i-1]+sizes[i-1]) {
			t.Fatalf("argument %d (%T): offset %d size %d, want size %d, 8-aligned, after the previous", i, args[i], offs[i], sizes[i], wantSizes[i])
		}
	}
	le := binary.LittleEndian
	if got := le.Uint64(blob[offs[0]:]); got != 0x7f0000001000 {
		t.Errorf("buffer: %#x", got)
	}
	if got := le.Uint64(blob[offs[1]:]); got != 0x7f0000001000+1024 {
		t.Errorf("group's buffer at element 256: %#x, want the parent's address + 1024 bytes", got)
	}
	if got := int32(le.Uint32(blob[offs[2]:])); got != 7 {
		t.Errorf("int: %d", got)
	}
	if got := int32(le.Uint32(blob[offs[3]:])); got != -3 {
		t.Errorf("int32: %d", got)
	}
	if got := le.Uint32(blob[offs[4]:]); got != 0xdeadbeef {
		t.Errorf("uint32: %#x", got)
	}
	if got := math.Float32frombits(le.Uint32(blob[offs[5]:])); got != 1.5 {
		t.Errorf("float32: %v", got)
	}
	if got := math.Float64frombits(le.Uint64(blob[offs[6]:])); got != 2.25 {
		t.Errorf("float64: %v", got)
	}
	for j := range 8 {
		if got := int32(le.Uint32(blob[offs[7]+4*j:])); got != int32(j+1) {
			t.Errorf("Int8[%d]: %d", j, got)
		}
	}
	if err := checkParamSizes("k", sizes, wantSizes); err != nil {
		t.Error(err)
	}
	if err := checkParamSizes("k", sizes, []int{8, 8, 4, 4, 4, 4, 4, 32}); err == nil || !strings.Contains(err.Error(), "argument 6 is 8 bytes") {
		t.Errorf("a double for a float parameter: %v", err)
	}
	if err := checkParamSizes("k", sizes[:7], wantSizes); err == nil {
		t.Error("a missing argument was accepted")
	}

	for _, bad := range []struct {
		arg  any
		want string
	}{
		{Local(64), "Local arguments are not supported on CUDA"},
		{int64(1), "unsupported type int64"},
		{1 << 40, "does not fit in 32 bits"},
	} {
		if _, _, _, err := cudaArgs("k", []any{bad.arg}, ok); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%T: error %v, want %q", bad.arg, err, bad.want)
		}
	}
	refuse := errors.New("released")
	if _, _, _, err := cudaArgs("k", []any{1, parent}, func(i int, b *Buffer) error {
		if i != 1 || b != parent {
			t.Errorf("bufArg(%d, %p)", i, b)
		}
		return refuse
	}); !errors.Is(err, refuse) {
		t.Errorf("a refused buffer: %v", err)
	}
}

// TestParseDeviceCUDA: "cuda" and "cuda:N" name CUDA device N; anything
// else after cuda: is an error; the OpenCL forms are unchanged.
func TestParseDeviceCUDA(t *testing.T) {
	for _, c := range []struct {
		s    string
		want Selector
		err  bool
	}{
		{"cuda", Selector{CUDA: true}, false},
		{"cuda:0", Selector{CUDA: true}, false},
		{"cuda:1", Selector{CUDA: true, Device: 1}, false},
		{"cuda:12", Selector{CUDA: true, Device: 12}, false},
		{"cuda:x", Selector{}, true},
		{"cuda:-1", Selector{}, true},
		{"cuda:+1", Selector{}, true},
		{"cuda:", Selector{}, true},
		{"cuda:0:0", Selector{}, true},
		{"CUDA", Selector{}, true},
		{"opencl", Selector{}, false},
		{"opencl:1:2", Selector{Platform: 1, Device: 2}, false},
	} {
		got, err := ParseDevice(c.s)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseDevice(%q) = %+v, %v; want %+v, error %v", c.s, got, err, c.want, c.err)
		}
	}
	if s := (Selector{CUDA: true, Device: 3}).String(); s != "cuda:3" {
		t.Errorf("String: %q", s)
	}
}

// TestCudaArch: sm_XY, or compute_XY for PTX.
func TestCudaArch(t *testing.T) {
	if got := cudaArch(9, 0, false); got != "--gpu-architecture=sm_90" {
		t.Error(got)
	}
	if got := cudaArch(8, 6, true); got != "--gpu-architecture=compute_86" {
		t.Error(got)
	}
}

// TestOpenCUDAWithoutTheDriver: without libcuda, Open("cuda") is an error
// naming the library and the variable that overrides it, not a panic; and
// Unavailable says the same. It runs in a child process, since the driver
// is loaded once per process.
func TestOpenCUDAWithoutTheDriver(t *testing.T) {
	if os.Getenv("LLPFC_TEST_CUDA_CHILD") == "1" {
		for _, dev := range []string{"cuda", "cuda:1"} {
			ctx, err := Open(dev)
			if err == nil {
				ctx.Close()
				t.Fatalf("Open(%q) with LLPFC_CUDA_LIB=%s succeeded", dev, os.Getenv(cudaLibEnv))
			}
			var le *LibraryError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), "/nonexistent/libcuda.so.1") || !strings.Contains(err.Error(), cudaLibEnv) {
				t.Errorf("Open(%q): %v; want a *LibraryError naming the file and %s", dev, err, cudaLibEnv)
			}
			if u := Unavailable(dev); u == nil || u.Error() != err.Error() {
				t.Errorf("Unavailable(%q) = %v, want %v", dev, u, err)
			}
		}
		if err := CUDAAvailable(); err == nil {
			t.Error("CUDAAvailable: nil")
		}
		if _, err := CUDADevices(); err == nil {
			t.Error("CUDADevices: no error")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenCUDAWithoutTheDriver$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LLPFC_TEST_CUDA_CHILD=1", cudaLibEnv+"=/nonexistent/libcuda.so.1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
