package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// nonFinite are the bits of every kind of non-finite float32: ±Inf, quiet
// and signalling NaNs, NaNs with the sign bit and with other payloads.
var nonFinite = []uint32{
	0x7f800000, // +Inf
	0xff800000, // −Inf
	0x7fc00000, // quiet NaN
	0x7f800001, // signalling NaN, the smallest NaN
	0xffc00000, // quiet NaN with the sign bit
	0xff800001, // signalling NaN with the sign bit
	0x7fffffff, // the largest NaN
	0xffffffff, // all bits set
	0x7fa5a5a5, // a NaN payload
}

// edgeFinite are finite neighbours next to the threshold and elsewhere:
// ±MaxFloat32 (0x7f7fffff, 0xff7fffff: one below +Inf's bits, which a wrong
// threshold calls infinite), subnormals, ±0, ±1 and a large power of two.
var edgeFinite = []uint32{
	0x7f7fffff, 0xff7fffff, // ±MaxFloat32
	0x00000001, 0x807fffff, 0x007fffff, 0x80000001, // subnormals
	0x00000000, 0x80000000, // ±0
	0x3f800000, 0xbf800000, // ±1
	0x7f000000, // 2¹²⁷
}

// allFiniteRef is the obvious loop.
func allFiniteRef(x []float32) bool {
	for _, v := range x {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

func fromBits(b ...uint32) []float32 {
	x := make([]float32, len(b))
	for i, v := range b {
		x[i] = math.Float32frombits(v)
	}
	return x
}

// fill returns n finite values cycling through edgeFinite from offset k.
func fill(n, k int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = math.Float32frombits(edgeFinite[(i+k)%len(edgeFinite)])
	}
	return x
}

// withAt returns a copy of x with bits b at i.
func withAt(x []float32, i int, b uint32) []float32 {
	y := append([]float32(nil), x...)
	y[i] = math.Float32frombits(b)
	return y
}

// TestAllFiniteTable: named cases at the threshold, in the vector blocks
// and in the tails, on both paths.
func TestAllFiniteTable(t *testing.T) {
	maxes := fromBits(make64(0x7f7fffff)...)
	cases := []struct {
		name string
		x    []float32
		want bool
	}{
		{"empty", nil, true},
		{"one zero", []float32{0}, true},
		{"+MaxFloat32", []float32{math.MaxFloat32}, true},
		{"−MaxFloat32", []float32{-math.MaxFloat32}, true},
		{"64 × 0x7f7fffff (one block of the largest finite)", maxes, true},
		{"64 × 0xff7fffff", fromBits(make64(0xff7fffff)...), true},
		{"the smallest subnormal", fromBits(1), true},
		{"−0", fromBits(0x80000000), true},
		{"+Inf alone", fromBits(0x7f800000), false},
		{"−Inf alone", fromBits(0xff800000), false},
		{"quiet NaN alone", []float32{float32(math.NaN())}, false},
		{"signalling NaN alone", fromBits(0x7f800001), false},
		{"−NaN alone", fromBits(0xffc00000), false},
		{"+Inf last of a block", withAt(maxes, 63, 0x7f800000), false},
		{"−Inf first of a block", withAt(maxes, 0, 0xff800000), false},
		{"sNaN in the middle of a block", withAt(fill(64, 0), 31, 0x7f800001), false},
		{"NaN the one tail value after a block", withAt(fill(65, 3), 64, 0x7fc00000), false},
		{"NaN the last of a 63-value tail", withAt(fill(127, 5), 126, 0xffffffff), false},
		{"−Inf in the second block", withAt(fill(128, 1), 100, 0xff800000), false},
		{"finite, 129 values", fill(129, 2), true},
		{"finite, 1000 values", fill(1000, 7), true},
	}
	paths(t, func(t *testing.T) {
		for _, c := range cases {
			require.Equal(t, allFiniteRef(c.x), c.want, "%s: the table disagrees with the obvious loop", c.name)
			require.Equal(t, c.want, AllFinite(c.x), c.name)
		}
	})
}

func make64(b uint32) []uint32 {
	s := make([]uint32, 64)
	for i := range s {
		s[i] = b
	}
	return s
}

// TestAllFiniteEveryPosition: each kind of non-finite value at every
// position of arrays of 0 to 130 values (one to two blocks of 64 and every
// tail, block sizes ±1 among them), among finite neighbours at the
// threshold; and the arrays without it.
func TestAllFiniteEveryPosition(t *testing.T) {
	paths(t, func(t *testing.T) {
		for n := 0; n <= 130; n++ {
			x := fill(n, n)
			require.True(t, AllFinite(x), "n=%d, all finite", n)
			for _, b := range nonFinite {
				for i := range n {
					require.False(t, AllFinite(withAt(x, i, b)), "n=%d, %#08x at %d", n, b, i)
				}
			}
		}
	})
}

// TestAllFiniteProperty: on generated arrays of 0 to 300 values, finite
// ones drawn from the edges and from random bits with an exponent below all
// ones, with none to two non-finite values anywhere, AllFinite agrees with
// the obvious loop on both paths.
func TestAllFiniteProperty(t *testing.T) {
	paths(t, func(t *testing.T) {
		params := gopter.DefaultTestParameters()
		params.MinSuccessfulTests = 500
		p := gopter.NewProperties(params)
		p.Property("AllFinite = no NaN or ±Inf", prop.ForAll(func(n int, seed uint64, bad int) bool {
			r := rand.New(rand.NewPCG(seed, 9))
			x := make([]float32, n)
			for i := range x {
				if r.IntN(4) == 0 {
					x[i] = math.Float32frombits(edgeFinite[r.IntN(len(edgeFinite))])
				} else {
					b := r.Uint32()
					if b&0x7f800000 == 0x7f800000 {
						b &^= 0x00800000 // exponent 0xfe: finite
					}
					x[i] = math.Float32frombits(b)
				}
			}
			for range bad {
				if n > 0 {
					x[r.IntN(n)] = math.Float32frombits(nonFinite[r.IntN(len(nonFinite))])
				}
			}
			return AllFinite(x) == allFiniteRef(x)
		}, gen.IntRange(0, 300), gen.UInt64(), gen.IntRange(0, 2)))
		p.TestingRun(t)
	})
}

// maxAbsBitsGo is the obvious loop maxAbsBitsAsm is held to: the largest
// bits & 0x7fffffff of x (0 for none).
func maxAbsBitsGo(x []float32) uint32 {
	var m uint32
	for _, v := range x {
		m = max(m, math.Float32bits(v)&0x7fffffff)
	}
	return m
}

// TestMaxAbsBitsAsm: the assembly's maximum is the obvious loop's, bit for
// bit, on random bits (any of the four accumulators and lanes holding it).
func TestMaxAbsBitsAsm(t *testing.T) {
	if !HasAVX2 {
		t.Skip("no AVX2 here")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{64, 128, 192, 640} {
		for pos := range n {
			x := make([]float32, n)
			for i := range x {
				x[i] = math.Float32frombits(r.Uint32() & 0xbf7fffff) // below 0x3f800000 once masked
			}
			x[pos] = math.Float32frombits(0x80000000 | 0x40000000 | r.Uint32()&0x3fffffff)
			require.Equal(t, maxAbsBitsGo(x), maxAbsBitsAsm(&x[0], n), "n=%d, the maximum at %d", n, pos)
		}
	}
}

// AllFinite's verdicts on a finite row and on rows holding +Inf or NaN.
func ExampleAllFinite() {
	x := []float32{1, -2.5, math.MaxFloat32, 0}
	fmt.Println(AllFinite(x))
	x[2] = float32(math.Inf(1))
	fmt.Println(AllFinite(x))
	x[2] = float32(math.NaN())
	fmt.Println(AllFinite(x))
	// Output:
	// true
	// false
	// false
}

// BenchmarkAllFinite: one thread over 11.2 M finite values (ResNet18's
// gradients, 45 MB, which stay in this machine's L3 between iterations),
// the assembly routine beside its Go twin; training/device/cpu's
// BenchmarkGradsFinite times the check as the training step runs it.
func BenchmarkAllFinite(b *testing.B) {
	const n = 11_200_000
	x := randRow(rand.New(rand.NewPCG(9, 10)), n)
	for _, asm := range []bool{false, true} {
		if asm && !HasAVX2 {
			continue
		}
		b.Run(map[bool]string{false: "go", true: "avx2"}[asm], func(b *testing.B) {
			defer func(v bool) { useAsm = v }(useAsm)
			useAsm = asm
			b.SetBytes(4 * n)
			for b.Loop() {
				if !AllFinite(x) {
					b.Fatal("a non-finite value")
				}
			}
		})
	}
}
