package vec

import "math"

// AdamCoef are the constants of one Adam update of training/optim (PyTorch's
// Adam and AdamW), all in float32 as the optimizer rounds them.
type AdamCoef struct {
	B1, B2    float32 // β₁, β₂
	StepSize  float32 // lr/(1 − β₁ᵗ)
	BC2       float32 // √(1 − β₂ᵗ)
	Eps       float32 // ε
	WD        float32 // λ of the L2 term added to the gradient (Decoupled false)
	Decay     float32 // 1 − lr·λ, the factor of AdamW's decoupled decay (Decoupled true)
	Decoupled bool
}

// adamConsts is AdamCoef with 1 − β₁ and 1 − β₂ (rounded to float32) beside
// them, in the layout the assembly reads.
type adamConsts struct {
	B1, B2, OneMinusB1, OneMinusB2, StepSize, BC2, Eps, WD, Decay float32
	Decoupled                                                     bool
}

func (c *AdamCoef) consts() *adamConsts {
	return &adamConsts{B1: c.B1, B2: c.B2, OneMinusB1: 1 - c.B1, OneMinusB2: 1 - c.B2, StepSize: c.StepSize,
		BC2: c.BC2, Eps: c.Eps, WD: c.WD, Decay: c.Decay, Decoupled: c.Decoupled}
}

// Adam applies one Adam update to the parameters p with gradients g and
// moments m, v (all of one length), value by value:
//
//	g ← g + λθ (or θ ← θ·(1 − lr·λ) when Decoupled); m ← β₁m + (1−β₁)g;
//	v ← β₂v + ((1−β₂)g)g; θ ← θ − (s·m)/(√v/√(1−β₂ᵗ) + ε)
//
// each operation rounded to float32 (no fused multiply-add; the square root
// correctly rounded), so the assembly routines and their Go twin give the
// same bits. Where the processor has AVX-512, sixteen values go through an
// instruction: the update is bound by memory, except in the early steps in
// which gradients and moments are subnormal and each instruction that meets
// one takes a microcode assist on Intel cores (VGG16's classifier): there
// half as many instructions took two thirds of the time (1.53×, bench/
// NOTES.md, "Lever 18").
func Adam(p, g, m, v []float32, c *AdamCoef) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	k := c.consts()
	n := 0
	if useAsm {
		if useAVX512 {
			n = len(p) &^ 15
			if n > 0 {
				adam512Asm(&p[0], &g[0], &m[0], &v[0], n, k)
			}
		}
		if r := (len(p) - n) &^ 7; r > 0 {
			adamAsm(&p[n], &g[n], &m[n], &v[n], r, k)
			n += r
		}
	}
	adamGo(p[n:], g[n:], m[n:], v[n:], k)
}

func adamGo(p, g, m, v []float32, c *adamConsts) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for i := range p {
		gi := g[i]
		if c.Decoupled {
			p[i] *= c.Decay
		} else {
			gi += c.WD * p[i]
		}
		m[i] = c.B1*m[i] + c.OneMinusB1*gi
		v[i] = c.B2*v[i] + c.OneMinusB2*gi*gi
		p[i] -= c.StepSize * m[i] / (float32(math.Sqrt(float64(v[i])))/c.BC2 + c.Eps)
	}
}
