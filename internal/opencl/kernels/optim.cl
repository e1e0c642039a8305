// The optimizer updates of training/optim/optim.go (PyTorch's torch.optim
// rules), in float32 with each operation rounded as in Go. Each is guarded
// by a step flag (guard.cl): nothing changes once a step is flagged. base
// is the flat index of p[0] in the flag's layout.

// sgd_step: momentum 0: p −= lr·(g + wd·p). Otherwise d = g + wd·p;
// buf = d on the first step, mu·buf + damp·d after; d = d + mu·buf
// (Nesterov) or buf; p −= lr·d. damp is 1 − dampening.
__kernel void sgd_step(__global float *p, __global const float *g, __global float *buf, int n,
		float lr, float wd, float mu, float damp, int nesterov, int first, __global int *flag, int tag, int base) {
	int i = get_global_id(0);
	if (i >= n || guarded(flag, tag, base, i, g)) return;
	if (mu == 0.0f) {
		p[i] -= lr * (g[i] + wd * p[i]);
		return;
	}
	float d = g[i] + wd * p[i];
	float b = first ? d : mu * buf[i] + damp * d;
	buf[i] = b;
	d = nesterov ? d + mu * b : b;
	p[i] -= lr * d;
}

// adam_step: Adam (weight decay added to the gradient) or AdamW
// (decoupled: p ·= 1 − lr·wd); m, v the moments; step_size =
// lr/(1−β₁ᵗ) and bc2 = √(1−β₂ᵗ) computed by the host in float64, as the
// CPU does.
__kernel void adam_step(__global float *p, __global const float *g, __global float *m, __global float *v, int n,
		float lr, float wd, float b1, float b2, float eps, float step_size, float bc2, int decoupled,
		__global int *flag, int tag, int base) {
	int i = get_global_id(0);
	if (i >= n || guarded(flag, tag, base, i, g)) return;
	float gi = g[i];
	float pi = p[i];
	if (decoupled) {
		pi *= 1.0f - lr * wd;
	} else {
		gi += wd * pi;
	}
	float mi = b1 * m[i] + (1.0f - b1) * gi;
	float vi = b2 * v[i] + (1.0f - b2) * gi * gi;
	m[i] = mi;
	v[i] = vi;
#ifdef LLPFC_FP64
	float sq = (float)sqrt((double)vi);
#else
	float sq = sqrt(vi);
#endif
	p[i] = pi - step_size * mi / (sq / bc2 + eps);
}
