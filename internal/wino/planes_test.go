package wino

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
)

// TestPlanesMatchOnePlane: InputPlanes, OutGradPlanes and OutputPlanes give,
// bit for bit, what the one-plane functions give plane by plane, and write
// nothing else: on small maps (where the output transforms run across the
// planes) and larger ones, odd and even, with the tiles in plain rows and in
// packed strips whose eight-tile runs a plane's tiles straddle, with the
// AVX2 kernels and without.
func TestPlanesMatchOnePlane(t *testing.T) {
	defer func(v bool) { useAsm = v }(useAsm)
	sizes := [][2]int{{4, 4}, {2, 2}, {6, 6}, {4, 6}, {6, 2}, {2, 4}, {3, 2}, {5, 5}, {8, 8}, {4, 16}, {7, 10}}
	layouts := []Cols{{}, {First: 3}, {Strip: 16, StripStride: 16 * 5}, {First: 5, Strip: 32, StripStride: 32 * 3}, {First: 4, Strip: 8, StripStride: 8 * 2}}
	for _, asm := range []bool{false, useAsm} {
		useAsm = asm
		for si, sz := range sizes {
			h, w := sz[0], sz[1]
			th, tw := Tiles(h, w)
			tpi := th * tw
			for _, n := range []int{1, 3, 5, 16} {
				for li, cols := range layouts {
					name := fmt.Sprintf("asm=%v/%dx%d/n=%d/layout=%d", asm, h, w, n, li)
					nt := cols.First + n*tpi
					stride := nt + 24
					if cols.Strip > 0 {
						stride = (nt/cols.Strip+2)*cols.StripStride + 7
					}
					r := rng.New(int64(100*si+10*li+n), "planes")
					ss := h*w + 3 // planes apart, with values between them
					src := randPlane(r, n*ss)
					fill := randPlane(r, 16*stride)
					pad := randPlane(r, PlanesScratch(n, h, w))

					// The inputs' and output gradients' transforms.
					for k, f := range []struct {
						planes func(pad, v []float32)
						one    func(i int, pad, v []float32, c Cols)
					}{
						{func(pad, v []float32) { InputPlanes(src, ss, n, h, w, pad, v, stride, cols) },
							func(i int, pad, v []float32, c Cols) { Input(src[i*ss:], h, w, pad, v, stride, c) }},
						{func(pad, v []float32) { OutGradPlanes(src, ss, n, h, w, pad, v, stride, cols) },
							func(i int, pad, v []float32, c Cols) { OutGrad(src[i*ss:], h, w, v, stride, c) }},
					} {
						got, want := append([]float32(nil), fill...), append([]float32(nil), fill...)
						f.planes(append([]float32(nil), pad...), got)
						for i := 0; i < n; i++ {
							c := cols
							c.First += i * tpi
							f.one(i, append([]float32(nil), pad...), want, c)
						}
						requireSameBits(t, name+[]string{"/Input", "/OutGrad"}[k], got, want)
					}

					// The output transform (its tiles from column 0, a stride
					// that holds the columns up to a multiple of eight).
					m := randPlane(r, 16*(n*tpi+24))
					ys := h*w + 5
					got, want := randPlane(r, n*ys), []float32(nil)
					want = append(want, got...)
					OutputPlanes(m, n*tpi+24, n, h, w, 0.375, append([]float32(nil), pad...), got, ys)
					for i := 0; i < n; i++ {
						Output(m[i*tpi:], n*tpi+24, h, w, 0.375, append([]float32(nil), pad...), want[i*ys:])
					}
					requireSameBits(t, name+"/Output", got, want)
				}
			}
		}
	}
}

func requireSameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for j := range want {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			t.Fatalf("%s[%d]: %v across planes, %v plane by plane", what, j, got[j], want[j])
		}
	}
}

// BenchmarkPlanes4x4 times the three *Planes transforms of ResNet18's 4×4
// maps as a forward group takes them (16 images, 128 channels, the packed
// layout of 32-column strips), in ns a tile (bench/NOTES.md, "Lever 20"):
//
//	GOMAXPROCS=1 go test ./internal/wino -run X -bench Planes4x4
func BenchmarkPlanes4x4(b *testing.B) {
	const n, h, w, ch = 16, 4, 4, 128
	r := rng.New(1, "bench")
	src := randPlane(r, n*ch*h*w)
	stride := ch*n*4 + 32 // a packed operand's rows (the inputs' transforms)
	v := randPlane(r, 16*stride)
	ld := n*4 + 16 // the products' rows, as winoOwnPass lays them out
	m := randPlane(r, 16*(ch*ld+32))
	pad := make([]float32, PlanesScratch(n, h, w))
	packed := Cols{Strip: 32, StripStride: ch * 32}
	for _, c := range []struct {
		name string
		run  func(row int)
	}{
		{"Input", func(row int) { InputPlanes(src[row*h*w:], ch*h*w, n, h, w, pad, v[row*32:], stride, packed) }},
		{"OutGrad", func(row int) { OutGradPlanes(src[row*h*w:], ch*h*w, n, h, w, pad, v[row*32:], stride, packed) }},
		{"Output", func(row int) { OutputPlanes(m[row*ld:], ch*ld+32, n, h, w, 0.5, pad, src[row*h*w:], ch*h*w) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for it := 0; it < b.N; it++ {
				for row := 0; row < ch; row++ {
					c.run(row)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ch*n*4), "ns/tile")
		})
	}
}
