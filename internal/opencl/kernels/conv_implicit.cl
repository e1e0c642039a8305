// Convolution as implicit GEMM (LLPFC_OPENCL_CONV=implicit): the three
// products of conv.cl's im2col path — forward, gradient with respect to
// the input, gradient with respect to the filter — computed without the
// unfolded matrix. Each work-group loads a CONV_TK-deep slice of its
// operands into local memory, doing the im2col (or col2im) index mapping
// in the load, and each work-item accumulates a CONV_RM×CONV_RN block of
// its group's CONV_TM×CONV_TN output tile in registers. The col buffer of
// the im2col path (C·K²×N·OH·OW values written and read back per pass,
// the traffic the path's time goes to on a GPU) is never written.
//
// The tile sizes are build-option knobs (-DCONV_TM=… on the library's
// options) so a sweep can vary them; the host's copies (ops_conv.go,
// implicit*) must match, which TestImplicitTileConstants checks. Every
// load checks its row and column against the product's size (zero
// outside), every store its output, so no size need be a multiple of a
// tile. Each output is one work-item's sum in increasing k (fma), so the
// results are the same from run to run.
#ifndef CONV_TM
#define CONV_TM 64
#endif
#ifndef CONV_TN
#define CONV_TN 64
#endif
#ifndef CONV_TK
#define CONV_TK 16
#endif
#ifndef CONV_RM
#define CONV_RM 4
#endif
#ifndef CONV_RN
#define CONV_RN 4
#endif
#define CONV_WGM (CONV_TM / CONV_RM)
#define CONV_WGN (CONV_TN / CONV_RN)
#define CONV_WG (CONV_WGM * CONV_WGN)
// A's tile is stored k-major with a padded row so that the k-fastest
// loads do not all fall in one bank.
#define CONV_ALD (CONV_TM + 1)
// Loads: CONV_LA A values and CONV_LB B values per work-item per k-step.
#define CONV_LA (CONV_TM * CONV_TK / CONV_WG)
#define CONV_LB (CONV_TN * CONV_TK / CONV_WG)
// CONV_FAR: a row offset no image or output index comes near, which makes
// a row past the reduction's end load zeros through the bounds checks.
#define CONV_FAR (1 << 28)
#if CONV_TM % CONV_RM != 0 || CONV_TN % CONV_RN != 0 || CONV_WG % CONV_TK != 0 || CONV_WG % CONV_TN != 0 || (CONV_TM * CONV_TK) % CONV_WG != 0 || (CONV_TN * CONV_TK) % CONV_WG != 0
#error "implicit-GEMM tile sizes: RM must divide TM, RN divide TN, and the work-group's (TM/RM)·(TN/RN) items must load whole tiles"
#endif

// conv_mma: acc += As·Bs over one k-step: work-item (tx, ty) holds the
// rows ty + i·CONV_WGM and the columns tx + j·CONV_WGN of the tile (so
// neighbouring items read neighbouring B values and store neighbouring
// outputs).
#define CONV_MMA(acc, As, Bs, tx, ty)                                                   \
	for (int q = 0; q < CONV_TK; q++) {                                             \
		float a_[CONV_RM], b_[CONV_RN];                                         \
		for (int i = 0; i < CONV_RM; i++) a_[i] = As[q * CONV_ALD + ty + i * CONV_WGM]; \
		for (int j = 0; j < CONV_RN; j++) b_[j] = Bs[q * CONV_TN + tx + j * CONV_WGN];  \
		for (int i = 0; i < CONV_RM; i++)                                       \
			for (int j = 0; j < CONV_RN; j++) acc[i][j] = fma(a_[i], b_[j], acc[i][j]); \
	}

// CONV_STORE(stmt) runs stmt for each of the work-item's RM×RN results
// acc[i][j] that lies inside the M×N output: row m, column n (the three
// kernels' write-back; each stmt says where the result goes).
#define CONV_STORE(stmt)                                                                \
	for (int i = 0; i < CONV_RM; i++) {                                             \
		int m = m0 + ty + i * CONV_WGM;                                         \
		if (m >= M) continue;                                                   \
		for (int j = 0; j < CONV_RN; j++) {                                     \
			int n = n0 + tx + j * CONV_WGN;                                 \
			if (n < N) stmt;                                                \
		}                                                                       \
	}

// conv_igemm_fwd: y = conv(x, w) + b as the product W (O × C·K²) ·
// col(x) (C·K² × N·OH·OW), col's entries read from x in the B loads:
// row (ch, ki, kj), column (img, oh, ow) is x[img][ch][oh·s − pad + ki][ow·s − pad + kj].
__kernel REQD_WG_SIZE(CONV_WGN, CONV_WGM, 1)
void conv_igemm_fwd(__global const float *x, __global const float *w, __global const float *bias,
		__global float *y, int nimg, int c, int h, int wd, int o_, int k, int pad, int stride,
		int ho, int wo, int has_bias) {
	__local float As[CONV_TK * CONV_ALD];
	__local float Bs[CONV_TK * CONV_TN];
	const int tx = get_local_id(0), ty = get_local_id(1), lid = ty * CONV_WGN + tx;
	const int n0 = get_group_id(0) * CONV_TN, m0 = get_group_id(1) * CONV_TM;
	const int kk2 = k * k, K = c * kk2, hwo = ho * wo, N = nimg * hwo, M = o_;
	// this item's B column (fixed over the k-steps) and first B row
	const int bn = lid % CONV_TN, bk = lid / CONV_TN;
	const int col = n0 + bn;
	const bool colIn = col < N;
	int img = 0, ih0 = 0, iw0 = 0;
	if (colIn) {
		img = col / hwo;
		int p = col % hwo;
		ih0 = (p / wo) * stride - pad;
		iw0 = (p % wo) * stride - pad;
	}
	__global const float *xi = x + img * c * h * wd;
	// the k-step's rows (ch, ki, kj), decoded once a step for the group:
	// the channel's offset in an image, and the filter tap (a row past K
	// gets a tap no image row reaches, so its values load as 0)
	__local int Roff[CONV_TK], Ri[CONV_TK], Rj[CONV_TK];
	// this item's A column and first A row
	const int ak = lid % CONV_TK, am = lid / CONV_TK;
	float acc[CONV_RM][CONV_RN];
	for (int i = 0; i < CONV_RM; i++)
		for (int j = 0; j < CONV_RN; j++) acc[i][j] = 0.0f;
	for (int kt = 0; kt < K; kt += CONV_TK) {
		if (lid < CONV_TK) {
			int kb = kt + lid, ch = kb / kk2, r = kb % kk2;
			Roff[lid] = ch * h * wd;
			Ri[lid] = kb < K ? r / k : CONV_FAR;
			Rj[lid] = r % k;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const int ka = kt + ak;
		for (int i = 0; i < CONV_LA; i++) {
			int m = am + i * (CONV_WG / CONV_TK);
			As[ak * CONV_ALD + m] = (m0 + m < M && ka < K) ? w[(m0 + m) * K + ka] : 0.0f;
		}
		for (int i = 0; i < CONV_LB; i++) {
			int kr = bk + i * (CONV_WG / CONV_TN);
			int ih = ih0 + Ri[kr], iw = iw0 + Rj[kr];
			float v = 0.0f;
			if (colIn && ih >= 0 && ih < h && iw >= 0 && iw < wd) v = xi[Roff[kr] + ih * wd + iw];
			Bs[kr * CONV_TN + bn] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		CONV_MMA(acc, As, Bs, tx, ty)
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	CONV_STORE(y[((n / hwo) * M + m) * hwo + n % hwo] = has_bias ? bias[m] + acc[i][j] : acc[i][j])
}

// conv_igemm_bwd_data: dx = the adjoint of the forward pass in x, as the
// product Wᵀ-by-channel (C × O·K²) · dy-gathered (O·K² × N·H·W): row
// (o, ky, kx), column (img, y, x) holds dy[img][o][(y + pad − ky)/s][(x + pad − kx)/s]
// where both divisions are exact and land inside the output, else 0.
// dx is written, not added to.
__kernel REQD_WG_SIZE(CONV_WGN, CONV_WGM, 1)
void conv_igemm_bwd_data(__global const float *w, __global const float *dy, __global float *dx,
		int nimg, int c, int h, int wd, int o_, int k, int pad, int stride, int ho, int wo) {
	__local float As[CONV_TK * CONV_ALD];
	__local float Bs[CONV_TK * CONV_TN];
	const int tx = get_local_id(0), ty = get_local_id(1), lid = ty * CONV_WGN + tx;
	const int n0 = get_group_id(0) * CONV_TN, m0 = get_group_id(1) * CONV_TM;
	const int kk2 = k * k, K = o_ * kk2, hw = h * wd, hwo = ho * wo, N = nimg * hw, M = c;
	const int bn = lid % CONV_TN, bk = lid / CONV_TN;
	const int col = n0 + bn;
	const bool colIn = col < N;
	int img = 0, yp = 0, xp = 0; // the column's image, and its row and column plus the padding
	if (colIn) {
		img = col / hw;
		int p = col % hw;
		yp = p / wd + pad;
		xp = p % wd + pad;
	}
	__global const float *dyi = dy + img * o_ * hwo;
	// the k-step's rows (o, ky, kx), decoded once a step: the output
	// channel's offset and the tap (past K: a tap that reaches no output)
	__local int Roff[CONV_TK], Ri[CONV_TK], Rj[CONV_TK];
	const int ak = lid % CONV_TK, am = lid / CONV_TK;
	float acc[CONV_RM][CONV_RN];
	for (int i = 0; i < CONV_RM; i++)
		for (int j = 0; j < CONV_RN; j++) acc[i][j] = 0.0f;
	for (int kt = 0; kt < K; kt += CONV_TK) {
		if (lid < CONV_TK) {
			int kb = kt + lid, o = kb / kk2, r = kb % kk2;
			Roff[lid] = o * hwo;
			Ri[lid] = kb < K ? r / k : -CONV_FAR;
			Rj[lid] = r % k;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const int ka = kt + ak;
		const int ao = ka / kk2, ar = ka % kk2;
		for (int i = 0; i < CONV_LA; i++) {
			int m = am + i * (CONV_WG / CONV_TK);
			As[ak * CONV_ALD + m] = (m0 + m < M && ka < K) ? w[(ao * c + m0 + m) * kk2 + ar] : 0.0f;
		}
		for (int i = 0; i < CONV_LB; i++) {
			int kr = bk + i * (CONV_WG / CONV_TN);
			int a = yp - Ri[kr], e = xp - Rj[kr];
			float v = 0.0f;
			if (colIn && a >= 0 && e >= 0) {
				// the tap reaches output (a/s, e/s) only where both divide
				int oh = a, ow = e;
				bool hit = true;
				if (stride != 1) {
					oh = a / stride;
					ow = e / stride;
					hit = oh * stride == a && ow * stride == e;
				}
				if (hit && oh < ho && ow < wo) v = dyi[Roff[kr] + oh * wo + ow];
			}
			Bs[kr * CONV_TN + bn] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		CONV_MMA(acc, As, Bs, tx, ty)
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	CONV_STORE(dx[((n / hw) * M + m) * hw + n % hw] = acc[i][j])
}

// conv_igemm_bwd_filter: dw = dy-by-filter (O × N·OH·OW) · col(x)ᵀ
// (N·OH·OW × C·K²), the reduction over images and output positions split
// into get_num_groups(2) slices of slice_len (a multiple of CONV_TK):
// slice s sums k ∈ [s·slice_len, (s+1)·slice_len) into part[s] (O × C·K²).
// conv_igemm_reduce then adds the slices in a fixed order: no atomics, so
// the sums do not depend on which group runs first.
__kernel REQD_WG_SIZE(CONV_WGN, CONV_WGM, 1)
void conv_igemm_bwd_filter(__global const float *x, __global const float *dy, __global float *part,
		int nimg, int c, int h, int wd, int o_, int k, int pad, int stride, int ho, int wo, int slice_len) {
	__local float As[CONV_TK * CONV_ALD];
	__local float Bs[CONV_TK * CONV_TN];
	const int tx = get_local_id(0), ty = get_local_id(1), lid = ty * CONV_WGN + tx;
	const int n0 = get_group_id(0) * CONV_TN, m0 = get_group_id(1) * CONV_TM, s = get_group_id(2);
	const int kk2 = k * k, N = c * kk2, hwo = ho * wo, M = o_;
	const int K = nimg * hwo, k0 = s * slice_len, k1 = min(K, k0 + slice_len);
	const int bn = lid % CONV_TN, bk = lid / CONV_TN;
	const int col = n0 + bn;
	const bool colIn = col < N;
	int coff = 0, ki = 0, kj = 0; // the column's channel offset and filter tap less the padding
	if (colIn) {
		coff = (col / kk2) * h * wd;
		int r = col % kk2;
		ki = r / k - pad;
		kj = r % k - pad;
	}
	// the k-step's rows (img, oh, ow), decoded once a step: the image's
	// offset and the output position times the stride (past the slice: a
	// row no tap brings inside the image)
	__local int Roff[CONV_TK], Ri[CONV_TK], Rj[CONV_TK];
	const int ak = lid % CONV_TK, am = lid / CONV_TK;
	float acc[CONV_RM][CONV_RN];
	for (int i = 0; i < CONV_RM; i++)
		for (int j = 0; j < CONV_RN; j++) acc[i][j] = 0.0f;
	for (int kt = k0; kt < k1; kt += CONV_TK) {
		if (lid < CONV_TK) {
			int kb = kt + lid, p = kb % hwo;
			Roff[lid] = (kb / hwo) * c * h * wd;
			Ri[lid] = kb < k1 ? (p / wo) * stride : CONV_FAR;
			Rj[lid] = (p % wo) * stride;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		const int ka = kt + ak;
		const int aimg = ka / hwo, ap = ka % hwo;
		for (int i = 0; i < CONV_LA; i++) {
			int m = am + i * (CONV_WG / CONV_TK);
			As[ak * CONV_ALD + m] = (m0 + m < M && ka < k1) ? dy[(aimg * M + m0 + m) * hwo + ap] : 0.0f;
		}
		for (int i = 0; i < CONV_LB; i++) {
			int kr = bk + i * (CONV_WG / CONV_TN);
			int ih = Ri[kr] + ki, iw = Rj[kr] + kj;
			float v = 0.0f;
			if (colIn && ih >= 0 && ih < h && iw >= 0 && iw < wd) v = x[Roff[kr] + coff + ih * wd + iw];
			Bs[kr * CONV_TN + bn] = v;
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		CONV_MMA(acc, As, Bs, tx, ty)
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	__global float *out = part + s * M * N;
	CONV_STORE(out[m * N + n] = acc[i][j])
}

// conv_igemm_reduce: dw[t] = Σ_s part[s][t], s in increasing order.
__kernel void conv_igemm_reduce(__global const float *part, __global float *dw, int slices, int n) {
	int t = get_global_id(0);
	if (t >= n) return;
	float v = part[t];
	for (int s = 1; s < slices; s++) v += part[s * n + t];
	dw[t] = v;
}
