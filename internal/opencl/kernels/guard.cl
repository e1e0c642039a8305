// The step flag (ops_guard.go): the checks of a training step for NaN and
// ±Inf, and the sum of its minibatch losses, kept on the device so that a
// step need not wait for the host. flag[0] is 0 while every step was
// finite, else 2·(tag+1)+kind of the first flagged step (kind 0: its loss,
// 1: a gradient); flag[2] the smallest flagged index of the gradient's
// flat layout (INT_MAX until one is); flag[3] the flagged value's bits;
// flag[4..5] the sum of the losses (a double where the device has one,
// else a float in flag[4]).

// guard_check: flags the step tagged tag when some x[i] (i < n, flat index
// base + i) is NaN or ±Inf, unless an earlier step is flagged; the
// smallest such index wins.
__kernel void guard_check(__global const float *x, int n, int base, __global int *flag, int tag) {
	int i = get_global_id(0);
	if (i >= n || isfinite(x[i])) return;
	int mine = 2 * (tag + 1) + 1;
	int old = atomic_cmpxchg(flag, 0, mine);
	if (old == 0 || old == mine) {
		atomic_min(flag + 2, base + i);
	}
}

// loss_tally: one work item adds the loss loss[0] to the sum, or flags the
// step tagged tag when it is NaN or ±Inf (a flagged run adds nothing
// more).
__kernel void loss_tally(__global const float *loss, __global int *flag, int tag) {
	if (get_global_id(0) != 0 || flag[0] != 0) return;
	tally_add(flag, tag, (acc_t)loss[0]);
}

// guarded: the optimizer kernels' guard. After a flagged step nothing is
// updated; in the flagged step itself, the work item of the flagged
// gradient entry records its value.
bool guarded(__global int *flag, int tag, int base, int i, __global const float *g) {
	int f = flag[0];
	if (f == 0) return false;
	if (f == 2 * (tag + 1) + 1 && base + i == flag[2]) {
		flag[3] = as_int(g[i]);
	}
	return true;
}
