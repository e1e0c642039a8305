// Element-wise unary and binary operations, with gorgonia's float32
// definitions (gorgonia v0.9.18, tensor v0.9.23).

// Unary operation codes (unaryOp in ops_elementwise.go).
#define U_NEG 0
#define U_ABS 1
#define U_SIGN 2
#define U_EXP 3
#define U_LN 4
#define U_INV 5
#define U_SQRT 6
#define U_SQUARE 7
#define U_TANH 8
#define U_SIGMOID 9
#define U_SOFTPLUS 10
#define U_SIGN_SCALAR 11
#define U_LOG1P 12

float unary_f(int op, float x) {
	switch (op) {
	case U_NEG: return -x;
	case U_ABS: return fabs(x);
	// tensor.Sign: -1 below 0, 1 above, the value itself otherwise (±0, NaN)
	case U_SIGN: return x < 0.0f ? -1.0f : (x > 0.0f ? 1.0f : x);
	case U_EXP: return exp(x);
	case U_LN: return log(x);
	case U_INV: return 1.0f / x;
	case U_SQRT: return sqrt(x);
	case U_SQUARE: return x * x;
	case U_TANH: return tanh(x);
	// gorgonia's _sigmoidf32: 0 below -88, 1 above 15, else 1/(1+e^-x) in double
	case U_SIGMOID:
		if (x < -88.0f) return 0.0f;
		if (x > 15.0f) return 1.0f;
		return (float)((acc_t)1 / ((acc_t)1 + exp(-(acc_t)x)));
	// gorgonia's _softplusf32: 0 below -103, x above 14, else log1p(e^x) in double
	case U_SOFTPLUS:
		if (x < -103.0f) return 0.0f;
		if (x > 14.0f) return x;
		return (float)log1p(exp((acc_t)x));
	// gorgonia's _signf32 (a scalar node's sign): -1 where the sign bit is set
	case U_SIGN_SCALAR: return signbit(x) ? -1.0f : 1.0f;
	case U_LOG1P: return log1p(x);
	}
	return NAN;
}

__kernel void unary(__global const float *x, __global float *y, int n, int op) {
	int i = get_global_id(0);
	if (i < n) {
		y[i] = unary_f(op, x[i]);
	}
}

// Binary operation codes (binaryOp in ops_elementwise.go); comparisons
// return 1 or 0 (gorgonia's retSame form).
#define B_ADD 0
#define B_SUB 1
#define B_MUL 2
#define B_DIV 3
#define B_LT 4
#define B_EQ 5
#define B_GTE 6
#define B_GT 7
#define B_LTE 8
#define B_NE 9

float binary_f(int op, float a, float b) {
	switch (op) {
	case B_ADD: return a + b;
	case B_SUB: return a - b;
	case B_MUL: return a * b;
	case B_DIV: return a / b;
	case B_LT: return a < b ? 1.0f : 0.0f;
	case B_EQ: return a == b ? 1.0f : 0.0f;
	case B_GTE: return a >= b ? 1.0f : 0.0f;
	case B_GT: return a > b ? 1.0f : 0.0f;
	case B_LTE: return a <= b ? 1.0f : 0.0f;
	case B_NE: return a != b ? 1.0f : 0.0f;
	}
	return NAN;
}

// binary: y = a op b over n elements; mode 0: equal shapes, 1: a is a
// scalar (a[0]), 2: b is a scalar.
__kernel void binary(__global const float *a, __global const float *b, __global float *y, int n, int op, int mode) {
	int i = get_global_id(0);
	if (i < n) {
		float av = mode == 1 ? a[0] : a[i];
		float bv = mode == 2 ? b[0] : b[i];
		y[i] = binary_f(op, av, bv);
	}
}

// axpy: y += alpha·x (Saxpy).
__kernel void axpy(__global const float *x, __global float *y, int n, float alpha) {
	int i = get_global_id(0);
	if (i < n) {
		y[i] += alpha * x[i];
	}
}

// scale: y = alpha·x.
__kernel void scale(__global const float *x, __global float *y, int n, float alpha) {
	int i = get_global_id(0);
	if (i < n) {
		y[i] = alpha * x[i];
	}
}

// nonfinite: sets flag[0] to 1 if some x[i] is NaN or infinite (flag is
// only ever set, so one flag can gather several buffers).
__kernel void nonfinite(__global const float *x, int n, __global int *flag) {
	int i = get_global_id(0);
	if (i < n && !isfinite(x[i])) {
		atomic_or(flag, 1);
	}
}
