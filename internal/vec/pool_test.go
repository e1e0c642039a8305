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

// poolValues are the values a window draws from: few, so that windows hold
// ties (the first position must win), with both zeros, infinities,
// subnormals and NaNs of either sign and several payloads.
var poolValues = []uint32{
	0x3f800000, 0xbf800000, 0x40000000, 0x3f000000, 0xc0000000, // ±1, 2, 0.5, −2
	0x00000000, 0x80000000, // ±0
	0x7f800000, 0xff800000, // ±Inf
	0x00000001, 0x80400000, // subnormals
	0x7fc00000, 0xffc00001, 0x7f800001, // NaNs
}

// sameFloat reports whether a and b are the same value: the same bits, or
// both NaN (a NaN's payload is the compiler's choice, not the pool's).
func sameFloat(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b)
}

// TestMaxPool2RowIsItsGoTwin: the assembly's maxima and positions are the
// Go twin's for rows of any length (the eight-window blocks and the masked
// tail), odd and even widths, any base, with and without the ReLU, on
// windows full of ties, signed zeros, infinities, subnormals and NaNs; and
// it writes nothing past the row.
func TestMaxPool2RowIsItsGoTwin(t *testing.T) {
	if !HasAVX2 {
		t.Skip("no AVX2 here")
	}
	p := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(17))
	p.Property("the Go twin's bits", prop.ForAll(func(n, odd int, base int32, relu bool, seed uint64) string {
		r := rand.New(rand.NewPCG(seed, 9))
		w := int32(2*n + odd)
		row := func() []float32 {
			x := make([]float32, w)
			for i := range x {
				if r.IntN(3) == 0 {
					x[i] = math.Float32frombits(poolValues[r.IntN(len(poolValues))])
				} else {
					x[i] = float32(r.IntN(5) - 2)
				}
			}
			return x
		}
		r0, r1 := row(), row()
		const guard = 9
		y, arg := make([]float32, n+guard), make([]int32, n+guard)
		wantY, wantArg := make([]float32, n), make([]int32, n)
		for i := n; i < n+guard; i++ {
			y[i], arg[i] = 7, 7
		}
		maxPool2RowGo(wantY, wantArg, r0, r1, base, w, relu)
		MaxPool2Row(y[:n], arg[:n], r0, r1, base, w, relu)
		for i := range n {
			if !sameFloat(y[i], wantY[i]) || arg[i] != wantArg[i] {
				return fmt.Sprintf("n=%d w=%d relu=%v window %d (%v %v / %v %v): %v at %d, want %v at %d",
					n, w, relu, i, r0[2*i], r0[2*i+1], r1[2*i], r1[2*i+1], y[i], arg[i], wantY[i], wantArg[i])
			}
		}
		for i := n; i < n+guard; i++ {
			if y[i] != 7 || arg[i] != 7 {
				return fmt.Sprintf("n=%d: wrote past the row at %d", n, i)
			}
		}
		return ""
	}, gen.IntRange(0, 40), gen.IntRange(0, 1), gen.Int32Range(0, 1<<20), gen.Bool(), gen.UInt64()))
	p.TestingRun(t)
}

// MaxPool2Row on a row of four windows: the maxima, their first positions
// (base 100, rows 8 wide), and the ReLU's cut.
func ExampleMaxPool2Row() {
	r0 := []float32{1, 3, -1, -2, 5, 5, 0, 0}
	r1 := []float32{2, 0, -3, -1, 5, 1, -1, 0}
	y, arg := make([]float32, 4), make([]int32, 4)
	MaxPool2Row(y, arg, r0, r1, 100, 8, false)
	fmt.Println(y, arg)
	MaxPool2Row(y, arg, r0, r1, 100, 8, true)
	fmt.Println(y, arg)
	// Output:
	// [3 -1 5 0] [101 102 104 106]
	// [3 0 5 0] [101 -1 104 -1]
}
