// Convolution: the unfolding of training/nn/fastconv.go (Conv2dIm2col) for a
// chunk of images laid side by side, the reorders between N×O×HW and
// O×(N·HW), and gorgonia's own im2colOp and col2imOp.
//
// Project layout: the unfolding of images img0 … img0+nb−1 is a
// (c·k·k)×(nb·ho·wo) matrix, row r = (ch·k + ki)·k + kj, column
// b·ho·wo + oh·wo + ow, holding x[img0+b][ch][oh·s − pad + ki][ow·s − pad + kj]
// (0 outside the image).

__kernel void conv_im2col(__global const float *x, __global float *col, int img0, int nb,
		int c, int h, int w, int k, int pad, int stride, int ho, int wo) {
	int t = get_global_id(0);
	int hw = ho * wo;
	int cols = nb * hw;
	if (t >= c * k * k * cols) return;
	int r = t / cols, q = t % cols;
	int b = q / hw, p = q % hw;
	int oh = p / wo, ow = p % wo;
	int ch = r / (k * k), ki = (r / k) % k, kj = r % k;
	int ih = oh * stride - pad + ki, iw = ow * stride - pad + kj;
	float v = 0.0f;
	if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
		v = x[(((img0 + b) * c + ch) * h + ih) * w + iw];
	}
	col[t] = v;
}

// conv_col2im: dx[img0+b] = the fold (adjoint of conv_im2col) of col, as
// a gather: each input value sums its (ki, kj) entries in increasing
// order, the order in which the CPU's col2imAdd adds them.
__kernel void conv_col2im(__global const float *col, __global float *dx, int img0, int nb,
		int c, int h, int w, int k, int pad, int stride, int ho, int wo) {
	int t = get_global_id(0);
	if (t >= nb * c * h * w) return;
	int iw = t % w, ih = (t / w) % h, ch = (t / (w * h)) % c, b = t / (w * h * c);
	int hw = ho * wo, cols = nb * hw;
	float s = 0.0f;
	for (int ki = 0; ki < k; ki++) {
		int a = ih + pad - ki;
		if (a < 0 || a % stride != 0) continue;
		int oh = a / stride;
		if (oh >= ho) continue;
		for (int kj = 0; kj < k; kj++) {
			int e = iw + pad - kj;
			if (e < 0 || e % stride != 0) continue;
			int ow = e / stride;
			if (ow >= wo) continue;
			s += col[((ch * k + ki) * k + kj) * cols + b * hw + oh * wo + ow];
		}
	}
	dx[((img0 + b) * c + ch) * h * w + ih * w + iw] = s;
}

// rows_to_nchw: y[img0+b][o][p] = rows[o][b·hw + p] (+ bias[o] when
// has_bias), rows being O×(nb·hw).
__kernel void rows_to_nchw(__global const float *rows, __global const float *bias, __global float *y,
		int img0, int nb, int o_, int hw, int has_bias) {
	int t = get_global_id(0);
	if (t >= nb * o_ * hw) return;
	int p = t % hw, o = (t / hw) % o_, b = t / (hw * o_);
	float v = rows[o * nb * hw + b * hw + p];
	if (has_bias) v = bias[o] + v;
	y[(img0 + b) * o_ * hw + o * hw + p] = v;
}

// nchw_to_rows: rows[o][b·hw + p] = y[img0+b][o][p].
__kernel void nchw_to_rows(__global const float *y, __global float *rows, int img0, int nb, int o_, int hw) {
	int t = get_global_id(0);
	if (t >= nb * o_ * hw) return;
	int p = t % hw, b = (t / hw) % nb, o = t / (hw * nb);
	rows[t] = y[(img0 + b) * o_ * hw + o * hw + p];
}

// gorgonia's im2colOp: x is nb×c×h×w, col is nb×ho×wo×(c·kh·kw) with the
// last axis ordered (ch, kr, kc); dilation dh, dw.
__kernel void g_im2col(__global const float *x, __global float *col, int nb, int c, int h, int w,
		int kh, int kw, int ph, int pw, int sh, int sw, int dh, int dw, int ho, int wo) {
	int t = get_global_id(0);
	int ckk = c * kh * kw;
	if (t >= nb * ho * wo * ckk) return;
	int r = t % ckk, q = t / ckk;
	int ow = q % wo, oh = (q / wo) % ho, b = q / (wo * ho);
	int ch = r / (kh * kw), kr = (r / kw) % kh, kc = r % kw;
	int ih = -ph + kr * dh + oh * sh, iw = -pw + kc * dw + ow * sw;
	float v = 0.0f;
	if (ih >= 0 && ih < h && iw >= 0 && iw < w) {
		v = x[((b * c + ch) * h + ih) * w + iw];
	}
	col[t] = v;
}

// gorgonia's col2imOp (the adjoint of g_im2col) as a gather: each image
// value sums its entries in increasing (oh, ow), the order of the CPU's
// loops.
__kernel void g_col2im(__global const float *col, __global float *x, int nb, int c, int h, int w,
		int kh, int kw, int ph, int pw, int sh, int sw, int dh, int dw, int ho, int wo) {
	int t = get_global_id(0);
	if (t >= nb * c * h * w) return;
	int iw = t % w, ih = (t / w) % h, ch = (t / (w * h)) % c, b = t / (w * h * c);
	int ckk = c * kh * kw;
	float s = 0.0f;
	int oh0 = max(0, ceil_div(ih + ph - (kh - 1) * dh, sh)), oh1 = min(ho - 1, floor_div(ih + ph, sh));
	int ow0 = max(0, ceil_div(iw + pw - (kw - 1) * dw, sw)), ow1 = min(wo - 1, floor_div(iw + pw, sw));
	for (int oh = oh0; oh <= oh1; oh++) {
		int a = ih + ph - oh * sh;
		if (a < 0 || a % dh != 0 || a / dh >= kh) continue;
		int kr = a / dh;
		for (int ow = ow0; ow <= ow1; ow++) {
			int e = iw + pw - ow * sw;
			if (e < 0 || e % dw != 0 || e / dw >= kw) continue;
			int kc = e / dw;
			s += col[((b * ho + oh) * wo + ow) * ckk + (ch * kh + kr) * kw + kc];
		}
	}
	x[t] = s;
}
