package vec

// Dropout writes y[i] = x[i]·k[i] with k[i] = scale where w[i] ≥ thr and 0
// elsewhere (unsigned comparison), each product rounded to F: inverted
// dropout's masked product (training/nn, where w are the mask's Philox
// numbers), with x·0 so that a NaN or an infinity stays NaN as in a
// product with a stored mask. y may be x.
func Dropout[F Float](y, x []F, w []uint32, thr uint32, scale F) {
	y, w = y[:len(x)], w[:len(x)]
	n := 0
	if asmFor[F]() {
		n = len(x) &^ 7
		if n > 0 {
			dropoutAsm(&as32(y)[0], &as32(x)[0], &w[0], n, thr, float32(scale))
		}
	}
	dropoutGo(y[n:], x[n:], w[n:], thr, scale)
}

func dropoutGo[F Float](y, x []F, w []uint32, thr uint32, scale F) {
	y, w = y[:len(x)], w[:len(x)]
	for i, v := range x {
		k := F(0)
		if w[i] >= thr {
			k = scale
		}
		y[i] = v * k
	}
}
