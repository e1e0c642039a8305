package nn

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ConvTranspose is a 5×5 stride-2 transposed convolution with "same"
// padding: output 2H×2W, PyTorch's ConvTranspose2d(k=5, stride=2,
// padding=2, output_padding=1), whose definition is
//
//	y[o, Y, X] = Σ x[c, i, j]·Wp[c, o, a, b] over Y = 2i − 2 + a, X = 2j − 2 + b.
//
// It is computed by sub-pixel decomposition: the output pixels of row
// parity p and column parity q only meet the kernel taps a ≡ p, b ≡ q
// (mod 2), so the 5×5 kernel splits into four sub-kernels — K[0][0] 3×3
// (a, b ∈ {0, 2, 4}), K[0][1] 3×2, K[1][0] 2×3, K[1][1] 2×2 — each an
// ordinary convolution of the input (padding 1), and a constant scatter
// interleaves the four results. The 25 taps per channel pair are exactly
// the four sub-kernels' 9 + 6 + 6 + 4 entries, which are the parameters:
// for even a, row t of the sub-kernel is tap a = 4 − 2t; for odd a, tap
// a = 3 − 2t (columns likewise). This costs 25·in·out multiply-adds per
// input pixel, a quarter of convolving a zero-inserted image.
type ConvTranspose struct {
	K       [2][2]*gorgonia.Node // out×in×(3 or 2)×(3 or 2)
	B       *gorgonia.Node
	In, Out int
	dt      tensor.Dtype
}

// subTaps is the sub-kernel size for a parity: 3 taps for even, 2 for odd.
func subTaps(parity int) int { return 3 - parity }

// NewConvTranspose adds a transposed convolution's parameters to g,
// initialised U(±1/√(in·25)) (sub-kernels in the order K00, K01, K10, K11,
// then the bias).
func NewConvTranspose(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, in, out int, bias bool, rng *rand.Rand) *ConvTranspose {
	bound := KaimingUniformBound(in * 25)
	c := &ConvTranspose{In: in, Out: out, dt: dt}
	for p := 0; p < 2; p++ {
		for q := 0; q < 2; q++ {
			c.K[p][q] = NewLearnable(g, dt, fmt.Sprintf("%s.K%d%d", name, p, q), tensor.Shape{out, in, subTaps(p), subTaps(q)}, bound, rng)
		}
	}
	if bias {
		c.B = NewLearnable(g, dt, name+".b", tensor.Shape{1, out, 1, 1}, bound, rng)
	}
	return c
}

// Learnables returns the four sub-kernels (and b if present).
func (c *ConvTranspose) Learnables() gorgonia.Nodes {
	ns := gorgonia.Nodes{c.K[0][0], c.K[0][1], c.K[1][0], c.K[1][1]}
	if c.B != nil {
		ns = append(ns, c.B)
	}
	return ns
}

// Tap returns the PyTorch-layout weight Wp[c, o, a, b] held by the
// sub-kernels (for tests and export).
func (c *ConvTranspose) Tap(ch, o, a, b int) float64 {
	p, q := a%2, b%2
	t := (4 - a) / 2
	if p == 1 {
		t = (3 - a) / 2
	}
	u := (4 - b) / 2
	if q == 1 {
		u = (3 - b) / 2
	}
	kh, kw := subTaps(p), subTaps(q)
	v := ValueData(c.K[p][q].Value())
	return v[((o*c.In+ch)*kh+t)*kw+u]
}

// Forward returns the transposed convolution of x (batch×In×H×W).
func (c *ConvTranspose) Forward(x *gorgonia.Node) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 || s[1] != c.In {
		return nil, fmt.Errorf("transposed convolution: input shape %v, want batch×%d×H×W", s, c.In)
	}
	n, h, w := s[0], s[2], s[3]
	H, W := 2*h, 2*w
	var sum *gorgonia.Node
	for p := 0; p < 2; p++ {
		for q := 0; q < 2; q++ {
			kh, kw := subTaps(p), subTaps(q)
			y, err := gorgonia.Conv2d(x, c.K[p][q], tensor.Shape{kh, kw}, []int{1, 1}, []int{1, 1}, []int{1, 1})
			if err != nil {
				return nil, err
			}
			// Even parity: output index u of the padded 3-tap convolution is
			// sub-pixel u; odd parity (2 taps): index u+1 is sub-pixel u.
			yh, yw := y.Shape()[2], y.Shape()[3]
			m := make([]float64, yh*yw*H*W)
			for u := 0; u < h; u++ {
				for v := 0; v < w; v++ {
					src := (u+p)*yw + (v + q)
					m[src*H*W+(2*u+p)*W+(2*v+q)] = 1
				}
			}
			scatter := ConstMatrixNode(x.Graph(), c.dt, fmt.Sprintf("subpixel-%d%d", p, q), yh*yw, H*W, m)
			flat, err := gorgonia.Reshape(y, tensor.Shape{n * c.Out, yh * yw})
			if err != nil {
				return nil, err
			}
			part, err := gorgonia.Mul(flat, scatter)
			if err != nil {
				return nil, err
			}
			if sum == nil {
				sum = part
			} else if sum, err = gorgonia.Add(sum, part); err != nil {
				return nil, err
			}
		}
	}
	out, err := gorgonia.Reshape(sum, tensor.Shape{n, c.Out, H, W})
	if err != nil {
		return nil, err
	}
	if c.B == nil {
		return out, nil
	}
	return gorgonia.BroadcastAdd(out, c.B, nil, []byte{0, 2, 3})
}
