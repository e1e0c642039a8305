package opencl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// The CUDA driver's host logic as pure functions, tested without a GPU
// (cuda_map_test.go): the row-major SGEMM as cuBLAS's column-major call,
// an NDRange as a grid of blocks, and a launch's arguments as the values
// cuLaunchKernel's kernelParams point at.

// cuBLAS's transpose flags (cublasOperation_t).
const (
	cublasOpN = 0
	cublasOpT = 1
)

// cublasGemm is one cublasSgemm_v2 call: C = α·op(A)·op(B) + β·C on
// column-major matrices, each given by the offset (elements) of its first
// element in its buffer and its leading dimension (column stride).
type cublasGemm struct {
	TransA, TransB int32
	M, N, K        int32
	A, B           int // which operand of the row-major call each is: 'A' or 'B'
	AOff, LDA      int
	BOff, LDB      int
	COff, LDC      int
}

// cublasArgs maps a row-major product (Context.Sgemm's arguments) to
// cuBLAS's column-major call. A row-major matrix with leading dimension ld
// is the column-major transpose with the same ld, so the row-major
// C = op(A)·op(B) (m×n) is the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ (n×m):
// cuBLAS gets B first and A second, with their own transpose flags, m and
// n swapped, and every offset and leading dimension unchanged. Sizes that
// do not fit cuBLAS's 32-bit ints are an error.
func cublasArgs(transA, transB bool, m, n, k, aOff, lda, bOff, ldb, cOff, ldc int) (cublasGemm, error) {
	for _, v := range []int{m, n, k, lda, ldb, ldc} {
		if v < 0 || v > math.MaxInt32 {
			return cublasGemm{}, fmt.Errorf("opencl: Sgemm %d×%d×%d (leading dimensions %d, %d, %d): a size exceeds cuBLAS's 32-bit int", m, n, k, lda, ldb, ldc)
		}
	}
	op := func(t bool) int32 {
		if t {
			return cublasOpT
		}
		return cublasOpN
	}
	return cublasGemm{
		TransA: op(transB), TransB: op(transA),
		M: int32(n), N: int32(m), K: int32(k),
		A: 'B', B: 'A',
		AOff: bOff, LDA: ldb,
		BOff: aOff, LDB: lda,
		COff: cOff, LDC: ldc,
	}, nil
}

// CUDA's limits on a launch's shape (the same on every GPU since compute
// capability 3.0): blocks of at most 1024 threads, 1024×1024×64 per
// dimension; grids of at most 2³¹−1 × 65535 × 65535 blocks.
var (
	cudaMaxBlock = [3]uint64{1024, 1024, 64}
	cudaMaxGrid  = [3]uint64{math.MaxInt32, 65535, 65535}
)

// cudaGeometry maps an NDRange (global sizes already rounded up to
// multiples of the local ones, as Kernel.Launch does; dims 1 to 3) to
// cuLaunchKernel's grid and block: block = local, grid = global / local,
// unused dimensions 1.
func cudaGeometry(dims int, global, local [3]uintptr) (grid, block [3]uint32, err error) {
	if dims < 1 || dims > 3 {
		return grid, block, fmt.Errorf("%d dimensions, want 1 to 3", dims)
	}
	threads := uint64(1)
	for i := range 3 {
		g, l := uint64(1), uint64(1)
		if i < dims {
			g, l = uint64(global[i]), uint64(local[i])
		}
		if l == 0 || g%l != 0 {
			return grid, block, fmt.Errorf("global size %d is not a multiple of local size %d (dimension %d)", g, l, i)
		}
		if l > cudaMaxBlock[i] || g/l > cudaMaxGrid[i] {
			return grid, block, fmt.Errorf("dimension %d: %d blocks of %d threads exceed CUDA's limits (blocks of %d, grids of %d)", i, g/l, l, cudaMaxBlock[i], cudaMaxGrid[i])
		}
		block[i], grid[i] = uint32(l), uint32(g/l)
		threads *= l
	}
	if threads > 1024 {
		return grid, block, fmt.Errorf("a block of %d threads exceeds CUDA's 1024", threads)
	}
	return grid, block, nil
}

// errCUDALocal: the kernels take no __local arguments (they declare their
// local memory inside), and CUDA would need it as dynamic shared memory.
var errCUDALocal = errors.New("Local arguments are not supported on CUDA")

// cudaArgs marshals a launch's arguments into one blob, each value at an
// 8-byte aligned offset, as the values cuLaunchKernel's kernelParams
// point at (the driver copies each with the size the kernel declares):
// *Buffer → its device address (8 bytes; a group's buffer's already
// includes its offset), int (checked to fit) / int32 / uint32 → 4 bytes,
// float32 → 4, float64 → 8 (a double parameter), Int8 → 32. Buffers are
// checked as the OpenCL path checks them (bufArg). sizes are the bytes of
// each argument.
func cudaArgs(name string, args []any, bufArg func(i int, b *Buffer) error) (blob []byte, offs, sizes []int, err error) {
	offs, sizes = make([]int, len(args)), make([]int, len(args))
	for i, a := range args {
		var v []byte
		switch x := a.(type) {
		case *Buffer:
			if err := bufArg(i, x); err != nil {
				return nil, nil, nil, err
			}
			v = binary.LittleEndian.AppendUint64(nil, uint64(x.mem))
		case int:
			if x != int(int32(x)) {
				return nil, nil, nil, fmt.Errorf("opencl: launch %s: argument %d = %d does not fit in 32 bits", name, i, x)
			}
			v = binary.LittleEndian.AppendUint32(nil, uint32(int32(x)))
		case int32:
			v = binary.LittleEndian.AppendUint32(nil, uint32(x))
		case uint32:
			v = binary.LittleEndian.AppendUint32(nil, x)
		case float32:
			v = binary.LittleEndian.AppendUint32(nil, math.Float32bits(x))
		case float64:
			v = binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
		case Int8:
			for _, e := range x {
				v = binary.LittleEndian.AppendUint32(v, uint32(e))
			}
		case Local:
			return nil, nil, nil, fmt.Errorf("opencl: launch %s: argument %d: %w", name, i, errCUDALocal)
		default:
			return nil, nil, nil, fmt.Errorf("opencl: launch %s: argument %d has unsupported type %T", name, i, a)
		}
		for len(blob)%8 != 0 {
			blob = append(blob, 0)
		}
		offs[i], sizes[i] = len(blob), len(v)
		blob = append(blob, v...)
	}
	return blob, offs, sizes, nil
}

// checkParamSizes compares the arguments' sizes with the kernel's
// parameters (cuFuncGetParamInfo's sizes): a mismatch (a double given for
// a float, a missing argument) would otherwise run on garbage.
func checkParamSizes(name string, sizes, params []int) error {
	if len(sizes) != len(params) {
		return fmt.Errorf("opencl: launch %s: %d arguments, the kernel takes %d", name, len(sizes), len(params))
	}
	for i := range sizes {
		if sizes[i] != params[i] {
			return fmt.Errorf("opencl: launch %s: argument %d is %d bytes, the kernel's parameter %d", name, i, sizes[i], params[i])
		}
	}
	return nil
}

// cudaSubBuffer is the device address of a group's buffer: its parent's
// address plus origin bytes (CUDA has no sub-buffer objects).
func cudaSubBuffer(parent clMem, origin uintptr) clMem { return parent + clMem(origin) }

// cudaArch is the NVRTC option for a device of compute capability
// major.minor: real code (sm_XY, a CUBIN the driver loads as it is), or
// with ptx virtual code (compute_XY, PTX the driver compiles when it loads
// it) for an NVRTC that does not know the real architecture.
func cudaArch(major, minor int, ptx bool) string {
	if ptx {
		return fmt.Sprintf("--gpu-architecture=compute_%d%d", major, minor)
	}
	return fmt.Sprintf("--gpu-architecture=sm_%d%d", major, minor)
}

// ErrCUDAGEMM: CLBlast's SGEMM parameters (OverrideGEMM, TuneGEMM and the
// back end's LLPFC_OPENCL_GEMM) have no meaning on CUDA, whose products
// are cuBLAS's; an error, never a silently ignored setting.
var ErrCUDAGEMM = errors.New("opencl: CLBlast's SGEMM parameters do not apply to a CUDA device (its products run on cuBLAS): unset LLPFC_OPENCL_GEMM, and tune with --device opencl")
