package opencl

import "fmt"

// ConvGeom is the geometry of training/nn/fastconv.go's Conv2dIm2col: N
// images of C×H×W, O filters of C×K×K, zero padding Pad and stride Stride
// on both axes; the output is N×O×OutH()×OutW().
type ConvGeom struct{ N, C, H, W, O, K, Pad, Stride int }

// OutH is (H + 2·Pad − K)/Stride + 1.
func (g ConvGeom) OutH() int { return (g.H+2*g.Pad-g.K)/g.Stride + 1 }

// OutW is (W + 2·Pad − K)/Stride + 1.
func (g ConvGeom) OutW() int { return (g.W+2*g.Pad-g.K)/g.Stride + 1 }

func (g ConvGeom) check(op string) error {
	if err := positive(op, ni("N", g.N), ni("C", g.C), ni("H", g.H), ni("W", g.W), ni("O", g.O), ni("K", g.K), ni("Stride", g.Stride)); err != nil {
		return err
	}
	if g.Pad < 0 || g.OutH() < 1 || g.OutW() < 1 {
		return fmt.Errorf("opencl: %s: %d×%d input, %d×%d filter, padding %d, stride %d: no output", op, g.H, g.W, g.K, g.K, g.Pad, g.Stride)
	}
	return nil
}

// dims returns c·k·k, the output plane size and the image and output sizes.
func (g ConvGeom) dims() (ckk, hw, chw, ohw int) {
	hw = g.OutH() * g.OutW()
	return g.C * g.K * g.K, hw, g.C * g.H * g.W, g.O * hw
}

// chunk returns how many images one pass unfolds: as many as keep both
// workspaces (rows × images·hw values each) within WSMax, at least one.
func (l *Lib) chunk(g ConvGeom, rows int) int {
	_, hw, _, _ := g.dims()
	nb := l.WSMax / max(rows*hw, 1)
	return max(1, min(nb, g.N))
}

// unfold enqueues the unfolding of images [img0, img0+nb) into col.
func (l *Lib) unfold(g ConvGeom, x, col *Buffer, img0, nb int) error {
	ckk, hw, _, _ := g.dims()
	return l.elem("conv_im2col", ckk*nb*hw, x, col, img0, nb, g.C, g.H, g.W, g.K, g.Pad, g.Stride, g.OutH(), g.OutW())
}

// convCheck checks a convolution's geometry and the sizes of its image
// buffer (N×C×H×W), its output-shaped buffer (N×O×OutH×OutW) and its
// filter-shaped one (O×C×K×K).
func convCheck(op string, g ConvGeom, img, out, filt namedBuf) error {
	if err := g.check(op); err != nil {
		return err
	}
	ckk, _, chw, ohw := g.dims()
	if err := need(op, g.N*chw, img); err != nil {
		return err
	}
	if err := need(op, g.N*ohw, out); err != nil {
		return err
	}
	return need(op, g.O*ckk, filt)
}

// convWorkspaces returns the number of images a chunk holds and the two
// workspaces for a chunk: the unfolded columns, (C·K·K)×(images·OutH·OutW),
// and the output rows, O×(images·OutH·OutW). l.mu must be held.
func (l *Lib) convWorkspaces(g ConvGeom) (step int, col, rows *Buffer, err error) {
	ckk, hw, _, _ := g.dims()
	step = l.chunk(g, max(ckk, g.O))
	if col, err = l.workspace(&l.wsA, ckk*step*hw); err != nil {
		return 0, nil, nil, err
	}
	if rows, err = l.workspace(&l.wsB, g.O*step*hw); err != nil {
		return 0, nil, nil, err
	}
	return step, col, rows, nil
}

// Conv2d enqueues Conv2dIm2col's forward pass: y (N×O×OutH×OutW) = the
// cross-correlation of x (N×C×H×W) with w (O×C×K×K) plus the bias b (O
// values; nil for none). Each chunk of images is unfolded into a
// (C·K·K)×(images·OutH·OutW) workspace, multiplied by w in one CLBlast
// SGEMM and reordered into y with the bias added; on the implicit path
// (l.Conv) one conv_igemm_fwd launch computes y, bias included.
func (l *Lib) Conv2d(x, w, b, y *Buffer, g ConvGeom) error {
	const op = "conv2d"
	if err := convCheck(op, g, nb("x", x), nb("y", y), nb("w", w)); err != nil {
		return err
	}
	ckk, hw, _, ohw := g.dims()
	hasBias, bias := 0, y
	if b != nil {
		if err := need(op, g.O, nb("b", b)); err != nil {
			return err
		}
		hasBias, bias = 1, b
	}
	if l.Conv == ConvCuDNN {
		return l.cudnnPass(ConvImplicitForward, g, x, w, b, y)
	}
	if l.Conv.Implicit(ConvImplicitForward) {
		return l.implicit("conv_igemm_fwd", g.N*hw, g.O, 1, append([]any{x, w, bias, y}, g.implicitArgs(hasBias)...)...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	step, col, rows, err := l.convWorkspaces(g)
	if err != nil {
		return err
	}
	for img0 := 0; img0 < g.N; img0 += step {
		nbi := min(step, g.N-img0)
		if err := l.unfold(g, x, col, img0, nbi); err != nil {
			return err
		}
		if err := l.ctx.Sgemm(false, false, g.O, nbi*hw, ckk, 1, w, 0, ckk, col, 0, nbi*hw, 0, rows, 0, nbi*hw); err != nil {
			return err
		}
		if err := l.elem("rows_to_nchw", nbi*ohw, rows, bias, y, img0, nbi, g.O, hw, hasBias); err != nil {
			return err
		}
	}
	return nil
}

// Conv2dGradInput enqueues Conv2dIm2col's gradient with respect to x
// (Grad0): dx (N×C×H×W) = the fold (col2im) of wᵀ·dy, chunk by chunk;
// on the implicit path one conv_igemm_bwd_data launch, which gathers dy
// where the fold would scatter.
func (l *Lib) Conv2dGradInput(w, dy, dx *Buffer, g ConvGeom) error {
	const op = "conv2d gradient (input)"
	if err := convCheck(op, g, nb("dx", dx), nb("dy", dy), nb("w", w)); err != nil {
		return err
	}
	ckk, hw, chw, ohw := g.dims()
	if l.Conv == ConvCuDNN {
		return l.cudnnPass(ConvImplicitInput, g, w, dy, nil, dx)
	}
	if l.Conv.Implicit(ConvImplicitInput) {
		return l.implicit("conv_igemm_bwd_data", g.N*g.H*g.W, g.C, 1, append([]any{w, dy, dx}, g.implicitArgs()...)...)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	step, col, rows, err := l.convWorkspaces(g)
	if err != nil {
		return err
	}
	for img0 := 0; img0 < g.N; img0 += step {
		nbi := min(step, g.N-img0)
		if err := l.elem("nchw_to_rows", nbi*ohw, dy, rows, img0, nbi, g.O, hw); err != nil {
			return err
		}
		if err := l.ctx.Sgemm(true, false, ckk, nbi*hw, g.O, 1, w, 0, ckk, rows, 0, nbi*hw, 0, col, 0, nbi*hw); err != nil {
			return err
		}
		if err := l.elem("conv_col2im", nbi*chw, col, dx, img0, nbi, g.C, g.H, g.W, g.K, g.Pad, g.Stride, g.OutH(), g.OutW()); err != nil {
			return err
		}
	}
	return nil
}

// Conv2dGradFilter enqueues Conv2dIm2col's gradient with respect to w
// (Grad1): dw (O×C×K×K) = Σ_n dy_n·col_nᵀ, one SGEMM per chunk of images
// (β = 1 after the first); on the implicit path the product split over
// the images and positions (ConvGeom.FilterSlices) and the slices summed
// in a fixed order.
func (l *Lib) Conv2dGradFilter(x, dy, dw *Buffer, g ConvGeom) error {
	const op = "conv2d gradient (filter)"
	if err := convCheck(op, g, nb("x", x), nb("dy", dy), nb("dw", dw)); err != nil {
		return err
	}
	ckk, hw, _, ohw := g.dims()
	if l.Conv == ConvCuDNN {
		return l.cudnnPass(ConvImplicitFilter, g, x, dy, nil, dw)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Conv.Implicit(ConvImplicitFilter) {
		return l.implicitGradFilter(x, dy, dw, g)
	}
	step, col, rows, err := l.convWorkspaces(g)
	if err != nil {
		return err
	}
	for img0 := 0; img0 < g.N; img0 += step {
		nbi := min(step, g.N-img0)
		if err := l.unfold(g, x, col, img0, nbi); err != nil {
			return err
		}
		if err := l.elem("nchw_to_rows", nbi*ohw, dy, rows, img0, nbi, g.O, hw); err != nil {
			return err
		}
		beta := float32(1)
		if img0 == 0 {
			beta = 0
		}
		if err := l.ctx.Sgemm(false, true, g.O, ckk, nbi*hw, 1, rows, 0, nbi*hw, col, 0, nbi*hw, beta, dw, 0, ckk); err != nil {
			return err
		}
	}
	return nil
}

// cudnnPass runs one pass on cuDNN (Context.ConvCuDNN) with the
// workspace its algorithm needs in wsA.
func (l *Lib) cudnnPass(pass ConvPath, g ConvGeom, a, b, bias, out *Buffer) error {
	n, err := l.ctx.CuDNNWorkspaceBytes(pass, g)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var ws *Buffer
	if n > 0 {
		if ws, err = l.workspace(&l.wsA, (n+3)/4); err != nil {
			return err
		}
	}
	return l.ctx.ConvCuDNN(pass, g, a, b, bias, out, ws)
}

// Conv2dGradBias enqueues Conv2dIm2col's gradient with respect to the
// bias (Grad2): db[o] = Σ_{n,h,w} dy[n][o][h][w].
func (l *Lib) Conv2dGradBias(dy, db *Buffer, g ConvGeom) error {
	const op = "conv2d gradient (bias)"
	if err := g.check(op); err != nil {
		return err
	}
	_, hw, _, _ := g.dims()
	return l.Sum(dy, db, []int{g.N, g.O, hw}, []int{0, 2})
}

// Im2colGeom is the geometry of gorgonia's im2colOp and col2imOp: N
// images of C×H×W, a KH×KW kernel, padding, stride and dilation per axis.
type Im2colGeom struct {
	N, C, H, W, KH, KW           int
	PadH, PadW, StrideH, StrideW int
	DilationH, DilationW         int
}

// OutH is gorgonia's (H + 2·PadH − (DilationH·(KH−1) + 1))/StrideH + 1.
func (g Im2colGeom) OutH() int { return (g.H+2*g.PadH-(g.DilationH*(g.KH-1)+1))/g.StrideH + 1 }

// OutW is as OutH along the width.
func (g Im2colGeom) OutW() int { return (g.W+2*g.PadW-(g.DilationW*(g.KW-1)+1))/g.StrideW + 1 }

func (g Im2colGeom) check(op string) error {
	if err := positive(op, ni("N", g.N), ni("C", g.C), ni("H", g.H), ni("W", g.W), ni("KH", g.KH), ni("KW", g.KW),
		ni("StrideH", g.StrideH), ni("StrideW", g.StrideW), ni("DilationH", g.DilationH), ni("DilationW", g.DilationW)); err != nil {
		return err
	}
	if g.PadH < 0 || g.PadW < 0 || g.OutH() < 1 || g.OutW() < 1 {
		return fmt.Errorf("opencl: %s: geometry %+v has no output", op, g)
	}
	return nil
}

func (g Im2colGeom) args() []any {
	return []any{g.N, g.C, g.H, g.W, g.KH, g.KW, g.PadH, g.PadW, g.StrideH, g.StrideW, g.DilationH, g.DilationW, g.OutH(), g.OutW()}
}

// Im2col enqueues gorgonia's im2colOp: col (N×OutH×OutW×(C·KH·KW), the last
// axis ordered channel, kernel row, kernel column) from x (N×C×H×W),
// zero outside the image.
func (l *Lib) Im2col(x, col *Buffer, g Im2colGeom) error {
	const op = "im2col"
	if err := g.check(op); err != nil {
		return err
	}
	ncol := g.N * g.OutH() * g.OutW() * g.C * g.KH * g.KW
	if err := need(op, g.N*g.C*g.H*g.W, nb("x", x)); err != nil {
		return err
	}
	if err := need(op, ncol, nb("col", col)); err != nil {
		return err
	}
	return l.elem("g_im2col", ncol, append([]any{x, col}, g.args()...)...)
}

// Col2im enqueues gorgonia's col2imOp, the adjoint of Im2col: x
// (N×C×H×W) = the sum of col's entries that Im2col would read from each
// value (written, not added: x's old contents are ignored).
func (l *Lib) Col2im(col, x *Buffer, g Im2colGeom) error {
	const op = "col2im"
	if err := g.check(op); err != nil {
		return err
	}
	nx := g.N * g.C * g.H * g.W
	if err := need(op, g.N*g.OutH()*g.OutW()*g.C*g.KH*g.KW, nb("col", col)); err != nil {
		return err
	}
	if err := need(op, nx, nb("x", x)); err != nil {
		return err
	}
	return l.elem("g_col2im", nx, append([]any{col, x}, g.args()...)...)
}
