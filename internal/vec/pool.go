package vec

// MaxPool2Row writes one output row of the 2×2, stride-2 max pool (of
// ReLU(x) when relu is set; training/nn's MaxPool2): for each of the len(y)
// windows, the rows r0 and r1 at columns 2·ox and 2·ox + 1, y[ox] is
// max(max(a, b), max(c, d)) (a, b of r0, c, d of r1) and arg[ox] the
// position base + (the first of a, b, c, d equal to it in row-major order:
// 2·ox, 2·ox + 1, w + 2·ox, w + 2·ox + 1); with relu, arg[ox] = −1 unless
// the maximum is above 0, and y[ox] = max(y[ox], 0). The assembly takes
// eight windows an instruction with the instructions Go's compiler emits
// for max, so its bits, NaNs and signed zeros included, are the Go twin's
// (TestMaxPool2RowIsItsGoTwin): a window at a time the twin took about 37
// cycles (a sixth of a cnn step's CPU time, bench/NOTES.md, "The max pool
// eight windows at a time"). A row of one window (VGG16's 2×2 maps) goes to
// the twin, as do float64 rows.
func MaxPool2Row[F Float](y []F, arg []int32, r0, r1 []F, base, w int32, relu bool) {
	n := len(y)
	arg, r0, r1 = arg[:n], r0[:2*n], r1[:2*n]
	if asmFor[F]() && n > 1 { // one window: the call costs more than the twin's 18 ns
		maxPool2RowAsm(&as32(y)[0], &arg[0], &as32(r0)[0], &as32(r1)[0], n, base, w, relu)
		return
	}
	maxPool2RowGo(y, arg, r0, r1, base, w, relu)
}

// maxPool2RowGo is MaxPool2Row a window at a time. Branch-free: the data's
// signs and orders are random, and a branch per comparison mispredicted
// often enough to make the pool 5× slower.
func maxPool2RowGo[F Float](y []F, arg []int32, r0, r1 []F, base, w int32, relu bool) {
	for ox := range y {
		i := 2 * ox
		a, b, c, d := r0[i], r0[i+1], r1[i], r1[i+1]
		v := max(max(a, b), max(c, d))
		k := w + int32(i) + 1
		if c == v {
			k = w + int32(i)
		}
		if b == v {
			k = int32(i) + 1
		}
		if a == v {
			k = int32(i)
		}
		k += base
		if relu {
			if !(v > 0) {
				k = -1
			}
			v = max(v, 0)
		}
		y[ox], arg[ox] = v, k
	}
}
