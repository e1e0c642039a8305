package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// subnormalRef is the definition, by float arithmetic rather than bits: a
// nonzero value smaller in magnitude than the least normal float32, 2⁻¹²⁶.
func subnormalRef(x []float32) bool {
	for _, v := range x {
		if a := math.Abs(float64(v)); a != 0 && a < 0x1p-126 {
			return true
		}
	}
	return false
}

// The values at the edges of the subnormal range and beyond it, as bits
// (either sign): zero, the least and largest subnormals, the least normal,
// one, the largest finite value, +Inf and a NaN.
var subnormalEdges = []uint32{0, 1, 0x7fffff, 0x800000, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7fc00001}

// TestHasSubnormal: HasSubnormal agrees with the definition on rows of any
// length (the assembly's blocks of eight and the Go tail), with values at
// the range's edges at any position, in the assembly and in the Go twin.
func TestHasSubnormal(t *testing.T) {
	for _, asm := range []bool{true, false} {
		if asm && !HasAVX2 {
			continue
		}
		t.Run(fmt.Sprintf("asm=%v", asm), func(t *testing.T) {
			defer func(u bool) { useAsm = u }(useAsm)
			useAsm = asm
			p := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(13))
			p.Property("the definition's verdict", prop.ForAll(func(n int, seed uint64, edges int) bool {
				r := rand.New(rand.NewPCG(seed, 3))
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(r.NormFloat64())
				}
				for range edges {
					if n > 0 {
						x[r.IntN(n)] = math.Float32frombits(subnormalEdges[r.IntN(len(subnormalEdges))] | r.Uint32()&0x80000000)
					}
				}
				return HasSubnormal(x) == subnormalRef(x)
			}, gen.IntRange(0, 300), gen.UInt64(), gen.IntRange(0, 3)))
			p.TestingRun(t)
		})
	}
}

// TestHasSubnormalEachPosition: one subnormal among normal values and zeros
// is found in every lane and block of the assembly, and its neighbours in
// bits (the least normal, zero) are not.
func TestHasSubnormalEachPosition(t *testing.T) {
	for _, n := range []int{8, 16, 40, 64, 72, 77, 104} {
		for pos := range n {
			for _, bits := range []uint32{1, 0x7fffff, 0x80000001, 0x807fffff, 0x800000, 0x80000000} {
				x := make([]float32, n)
				for i := range x {
					x[i] = float32(i%3) * 0.5
				}
				x[pos] = math.Float32frombits(bits)
				if got, want := HasSubnormal(x), subnormalRef(x); got != want {
					t.Fatalf("n=%d, %#x at %d: HasSubnormal %v, want %v", n, bits, pos, got, want)
				}
			}
		}
	}
}

// HasSubnormal's verdicts on the least normal float32 and on half of it.
func ExampleHasSubnormal() {
	x := []float32{1, 0, 0x1p-126}
	fmt.Println(HasSubnormal(x))
	x[2] /= 2
	fmt.Println(HasSubnormal(x))
	// Output:
	// false
	// true
}

// BenchmarkHasSubnormal: one thread over a row of normal values (none
// subnormal: the whole row is read), the sizes of the matrix product's
// operands it looks at (VGG16's classifier's output gradients at batch 32,
// 32×4096, in L2; and 4 M values beyond it), the assembly beside its Go
// twin.
func BenchmarkHasSubnormal(b *testing.B) {
	for _, n := range []int{32 * 4096, 4 << 20} {
		x := randRow(rand.New(rand.NewPCG(11, 12)), n)
		for _, asm := range []bool{false, true} {
			if asm && !HasAVX2 {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d", map[bool]string{false: "go", true: "avx2"}[asm], n), func(b *testing.B) {
				defer func(v bool) { useAsm = v }(useAsm)
				useAsm = asm
				b.SetBytes(int64(4 * n))
				for b.Loop() {
					if HasSubnormal(x) {
						b.Fatal("a subnormal value")
					}
				}
			})
		}
	}
}
