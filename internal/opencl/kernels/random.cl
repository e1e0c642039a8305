// Counter-based random numbers (internal/philox): Philox4x32-10 of
// Salmon et al. (SC'11), each work item computing its own block from
// (counter, key) — no state, no mask uploaded or stored.

// philox4x32_10 returns the block of counter c under key k: ten rounds,
// each two 32×32→64-bit products of words 0 and 2 (by 0xD2511F53 and
// 0xCD9E8D57) mixed with words 1 and 3 and the round key, the key bumped
// by (0x9E3779B9, 0xBB67AE85) between rounds.
uint4 philox4x32_10(uint4 c, uint2 k) {
	for (int r = 0; r < 10; r++) {
		if (r > 0) {
			k.x += 0x9E3779B9u;
			k.y += 0xBB67AE85u;
		}
		uint hi0 = mul_hi(0xD2511F53u, c.x), lo0 = 0xD2511F53u * c.x;
		uint hi1 = mul_hi(0xCD9E8D57u, c.z), lo1 = 0xCD9E8D57u * c.z;
		c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
	}
	return c;
}

// philox_block: the blocks of counters (g, c1, 0, 0) for g < n (tests:
// the kernel's Philox against internal/philox's).
__kernel void philox_block(__global uint *out, int n, uint c1, uint k0, uint k1) {
	int g = get_global_id(0);
	if (g >= n) return;
	uint4 b = philox4x32_10(make_uint4((uint)g, c1, 0u, 0u), make_uint2(k0, k1));
	vstore4(b, g, out);
}

// dropout: y = x ⊙ mask for n values, nn.DropoutApply's definition: the
// work item g takes elements 4g … 4g+3 and the four words of block
// (g, layer, 0, 0); element 4g+j is kept when word j ≥ thresh, and a kept
// value is multiplied by scale, a dropped one by 0 (x·0: a NaN stays NaN).
// y may be x.
__kernel void dropout(__global const float *x, __global float *y, int n, uint k0, uint k1, uint layer, uint thresh,
		float scale) {
	int g = get_global_id(0);
	int i = 4 * g;
	if (i >= n) return;
	uint4 b = philox4x32_10(make_uint4((uint)g, layer, 0u, 0u), make_uint2(k0, k1));
	uint w[4] = {b.x, b.y, b.z, b.w};
	for (int j = 0; j < 4 && i + j < n; j++) {
		y[i + j] = x[i + j] * (w[j] >= thresh ? scale : 0.0f);
	}
}

// crop_flip: the augmentation of App. `suppsec: exp`, nn.ApplyCropFlip's
// definition, one work item per output pixel i = ((n·C + c)·H + y)·W + x:
// image n's draw from the words of block (first + n, 0xFFFFFFFF, 0, 0)
// (nn.CropFlipLayer) — top = mul_hi(w0, 2·pad+1), left = mul_hi(w1,
// 2·pad+1), flip when w2 >> 1 < flip_thresh — and output (y, x) is padded
// pixel (top + y, left + x'), x' = W−1−x when flipped, i.e. source pixel
// (top + y − pad, left + x' − pad), or the channel's padding value
// outside the source: p0 … p3 for channels 0 … 3 (at most 4 channels
// have padding values other than 0; the caller checks).
__kernel void crop_flip(__global const float *src, __global float *dst, int n_all, int C, int H, int W, int pad,
		uint flip_thresh, uint first, uint k0, uint k1, float p0, float p1, float p2, float p3) {
	int i = get_global_id(0);
	if (i >= n_all) return;
	int x = i % W;
	int y = (i / W) % H;
	int c = (i / (W * H)) % C;
	int n = i / (W * H * C);
	uint4 b = philox4x32_10(make_uint4(first + (uint)n, 0xFFFFFFFFu, 0u, 0u), make_uint2(k0, k1));
	uint span = (uint)(2 * pad + 1);
	int top = (int)mul_hi(b.x, span), left = (int)mul_hi(b.y, span);
	int cx = (b.z >> 1) < flip_thresh ? W - 1 - x : x;
	int sy = top + y - pad, sx = left + cx - pad;
	float v = c == 0 ? p0 : c == 1 ? p1 : c == 2 ? p2 : p3;
	if (sy >= 0 && sy < H && sx >= 0 && sx < W) v = src[((n * C + c) * H + sy) * W + sx];
	dst[i] = v;
}
