// Max pooling: the fused 2×2 stride-2 pool of training/nn/pool.go (with and
// without ReLU) and gorgonia's maxPoolOp / maxPoolDiffOp.

// pool2_fwd: planes of h×w → (h/2)×(w/2); arg holds, per output, the
// index within its plane of the first maximum in row-major order, or −1
// where the ReLU cut the output to 0 (poolForward, with Go's max).
__kernel void pool2_fwd(__global const float *x, __global float *y, __global int *arg, int planes, int h, int w, int relu) {
	int t = get_global_id(0);
	int ho = h / 2, wo = w / 2;
	if (t >= planes * ho * wo) return;
	int ox = t % wo, oy = (t / wo) % ho, p = t / (wo * ho);
	__global const float *r0 = x + p * h * w + 2 * oy * w;
	__global const float *r1 = r0 + w;
	int i = 2 * ox;
	float a = r0[i], b = r0[i + 1], c = r1[i], d = r1[i + 1];
	float v = max_go(max_go(a, b), max_go(c, d));
	int k = w + i + 1;
	if (c == v) k = w + i;
	if (b == v) k = i + 1;
	if (a == v) k = i;
	k += 2 * oy * w;
	if (relu) {
		if (!(v > 0.0f)) k = -1;
		v = max_go(v, 0.0f);
	}
	y[t] = v;
	arg[t] = k;
}

// pool2_bwd: dx = dy at the position each output took, 0 elsewhere.
__kernel void pool2_bwd(__global const float *dy, __global const int *arg, __global float *dx, int planes, int h, int w) {
	int t = get_global_id(0);
	if (t >= planes * h * w) return;
	int ix = t % w, iy = (t / w) % h, p = t / (w * h);
	int ho = h / 2, wo = w / 2;
	int oy = iy / 2, ox = ix / 2;
	float v = 0.0f;
	if (oy < ho && ox < wo) {
		int o = (p * ho + oy) * wo + ox;
		if (arg[o] == iy * w + ix) v = dy[o];
	}
	dx[t] = v;
}

// maxpool_fwd: gorgonia's maxPoolOp on planes of h×w: window (ph, pw)
// covers rows ph·sh − padh … +kh−1 and columns likewise, clipped to the
// plane; the output starts at −MaxFloat32 and takes each value greater
// than it, mask the index of that value in its plane (−1 if none).
__kernel void maxpool_fwd(__global const float *x, __global float *y, __global int *mask, int planes, int h, int w,
		int kh, int kw, int padh, int padw, int sh, int sw, int ho, int wo) {
	int t = get_global_id(0);
	if (t >= planes * ho * wo) return;
	int pw = t % wo, ph = (t / wo) % ho, p = t / (wo * ho);
	int h0 = ph * sh - padh, w0 = pw * sw - padw;
	int h1 = min(h0 + kh, h), w1 = min(w0 + kw, w);
	h0 = max(h0, 0);
	w0 = max(w0, 0);
	__global const float *xp = x + p * h * w;
	float m = -FLT_MAX;
	int mi = -1;
	for (int hi = h0; hi < h1; hi++) {
		for (int wi = w0; wi < w1; wi++) {
			float v = xp[hi * w + wi];
			if (v > m) {
				m = v;
				mi = hi * w + wi;
			}
		}
	}
	y[t] = m;
	mask[t] = mi;
}

// maxpool_bwd: gorgonia's maxPoolDiffOp as a gather: each input value sums
// the output gradients of the windows whose mask points at it, in
// increasing (ph, pw) as the CPU's loop adds them.
__kernel void maxpool_bwd(__global const float *dy, __global const int *mask, __global float *dx, int planes, int h, int w,
		int kh, int kw, int padh, int padw, int sh, int sw, int ho, int wo) {
	int t = get_global_id(0);
	if (t >= planes * h * w) return;
	int iw = t % w, ih = (t / w) % h, p = t / (w * h);
	int target = ih * w + iw;
	int ph0 = max(0, ceil_div(ih + padh - kh + 1, sh)), ph1 = min(ho - 1, floor_div(ih + padh, sh));
	int pw0 = max(0, ceil_div(iw + padw - kw + 1, sw)), pw1 = min(wo - 1, floor_div(iw + padw, sw));
	float s = 0.0f;
	for (int ph = ph0; ph <= ph1; ph++) {
		for (int pw = pw0; pw <= pw1; pw++) {
			int o = (p * ho + ph) * wo + pw;
			if (mask[o] == target) s += dy[o];
		}
	}
	dx[t] = s;
}
