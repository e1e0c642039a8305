package wino

// F(4×4, 3×3): the same transforms for 4×4 output tiles, 6×6 input patches
// and 36 products (Lavin and Gray's matrices on the points 0, ±1, ±2 and ∞):
//
//	Bᵀ = [4 0 −5 0 1 0; 0 −4 −4 1 1 0; 0 4 −4 −1 1 0; 0 −2 −1 2 1 0; 0 2 −1 −2 1 0; 0 4 0 −5 0 1],
//	G  = [¼ 0 0; −⅙ −⅙ −⅙; −⅙ ⅙ −⅙; 1⁄24 1⁄12 ⅙; 1⁄24 −1⁄12 ⅙; 0 0 1],
//	Aᵀ = [1 1 1 1 1 0; 0 1 −1 2 −2 0; 0 1 1 4 4 0; 0 1 −1 8 −8 1].
//
// A plane of h×w values has ⌈h/4⌉ × ⌈w/4⌉ tiles; the patch of tile (ty, tx)
// is rows 4ty−1 … 4ty+4 and columns 4tx−1 … 4tx+4 (padding 1), and a
// transformed plane is 36 rows ξ = 6a + b. The plane transforms multiply
// only by 2, 4 and 8 (−5d is written −4d − d), so their products are exact
// and a compiler that fuses a multiply and an add gives the same bits. The
// weights' transforms (by ⅙ and 1⁄12) run once a pass and have no assembly.
//
// The vector kernels take eight (or four) tiles of a tile row, one lane a
// tile: a tile's four columns are one 128-bit load, and four tiles' loads
// are turned into four columns by the 4×4 transposes of unpack and shuffle
// (and back for the stores into the plane).

// F4Tiles returns the tile rows and columns of an h×w plane under F(4×4, 3×3).
func F4Tiles(h, w int) (th, tw int) { return (h + 3) / 4, (w + 3) / 4 }

// F4PadSize is the length of the scratch F4Input, F4Output and F4InputGrad
// need for an h×w plane: F4Input's padded copy ((4·th + 2) rows of
// 4·tw + 4 values), F4Output's copy of the 36 rows, or F4InputGrad's copy
// (36 rows of th + 2 tile rows) and, for each of the h rows, six S rows of
// tw + 2 and a padded row of 4·tw + 8.
func F4PadSize(h, w int) int {
	th, tw := F4Tiles(h, w)
	return max((4*th+2)*(4*tw+4)+16, 36*(th+2)*tw+h*(6*(tw+2)+4*tw+8))
}

// gather36 is gather for the 36 rows of F(4×4, 3×3).
func gather36(z []float32, stride, tpi int, buf []float32) []float32 {
	for xi := 0; xi < 36; xi++ {
		copy(buf[xi*tpi:(xi+1)*tpi], z[xi*stride:xi*stride+tpi])
	}
	return buf[:36*tpi]
}

// bt6 is Bᵀ on a column of six values.
func bt6(d0, d1, d2, d3, d4, d5 float32) (v0, v1, v2, v3, v4, v5 float32) {
	v0 = 4*(d0-d2) + (d4 - d2)
	t1, t2 := d4-4*d2, d3-4*d1
	v1, v2 = t1+t2, t1-t2
	t3, t4 := d4-d2, 2*(d3-d1)
	v3, v4 = t3+t4, t3-t4
	v5 = 4*(d1-d3) + (d5 - d3)
	return
}

// at6 is Aᵀ on a column of six values.
func at6(m0, m1, m2, m3, m4, m5 float32) (y0, y1, y2, y3 float32) {
	a, b, c, d := m1+m2, m1-m2, m3+m4, m3-m4
	return m0 + a + c, b + 2*d, a + 4*c, b + 8*d + m5
}

// a6 is A on a column of four values.
func a6(y0, y1, y2, y3 float32) (r0, r1, r2, r3, r4, r5 float32) {
	p, q := y0+y2, y1+y3
	p2, q2 := y0+4*y2, 2*(y1+4*y3)
	return y0, p + q, p - q, p2 + q2, p2 - q2, y3
}

// b6 is the rows q₀ … q₃ of B on a column of six values (q₄ = z₀ + z₁ +
// z₂ + z₃ + z₄ is b6q4, q₅ = z₅).
func b6(z0, z1, z2, z3, z4, z5 float32) (q0, q1, q2, q3 float32) {
	d21, d43 := z2-z1, z4-z3
	q0 = 4 * z0
	q1 = 4*(d21+z5) + 2*d43
	q2 = -(4*(z0+(z1+z2)) + (z0 + (z3 + z4)))
	q3 = -((d21 + 2*d43) + (4*z5 + z5))
	return
}

func b6q4(z0, z1, z2, z3, z4 float32) float32 { return (z0 + (z1 + z2)) + (z3 + z4) }

// F4Input writes V = Bᵀ d B of every tile t of the h×w plane src into
// v[ξ·stride + cols.off(t)]; pad is scratch of F4PadSize(h, w) values.
func F4Input(src []float32, h, w int, pad, v []float32, stride int, cols Cols) {
	th, tw := F4Tiles(h, w)
	pw := 4*tw + 4
	clear(pad[:(4*th+2)*pw])
	for r := 0; r < h; r++ {
		copy(pad[(r+1)*pw+1:(r+1)*pw+1+w], src[r*w:(r+1)*w])
	}
	for ty := 0; ty < th; ty++ {
		tx := 0
		if useAsm {
			for ; tx+8 <= tw && cols.run(ty*tw+tx, 8); tx += 8 {
				f4input8(&pad[4*ty*pw+4*tx], pw, &v[cols.off(ty*tw+tx)], stride)
			}
			for ; tx+4 <= tw && cols.run(ty*tw+tx, 4); tx += 4 {
				f4input4(&pad[4*ty*pw+4*tx], pw, &v[cols.off(ty*tw+tx)], stride)
			}
			if t := tw - 4; tx > t && tx < tw && t >= 0 && cols.run(ty*tw+t, 4) { // the row's last four tiles again
				f4input4(&pad[4*ty*pw+4*t], pw, &v[cols.off(ty*tw+t)], stride)
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			f4inputTile(pad[4*ty*pw+4*tx:], pw, v[cols.off(ty*tw+tx):], stride)
		}
	}
}

// f4inputTile is f4input8 for one tile: the rows of the patch d (pw apart)
// first (e = d B), then the columns (V = Bᵀ e).
func f4inputTile(d []float32, pw int, v []float32, stride int) {
	var e [36]float32
	for r := 0; r < 6; r++ {
		x := d[r*pw : r*pw+6]
		e[6*r], e[6*r+1], e[6*r+2], e[6*r+3], e[6*r+4], e[6*r+5] = bt6(x[0], x[1], x[2], x[3], x[4], x[5])
	}
	for b := 0; b < 6; b++ {
		v0, v1, v2, v3, v4, v5 := bt6(e[b], e[6+b], e[12+b], e[18+b], e[24+b], e[30+b])
		v[b*stride], v[(6+b)*stride], v[(12+b)*stride] = v0, v1, v2
		v[(18+b)*stride], v[(24+b)*stride], v[(30+b)*stride] = v3, v4, v5
	}
}

// F4OutGrad writes D̂ = A ∂Y Aᵀ of every tile t of the h×w plane dy into
// dh[ξ·stride + cols.off(t)] (∂Y is zero outside the plane).
func F4OutGrad(dy []float32, h, w int, dh []float32, stride int, cols Cols) {
	th, tw := F4Tiles(h, w)
	for ty := 0; ty < th; ty++ {
		r0 := 4 * ty
		tx := 0
		if useAsm && r0+4 <= h {
			for ; 4*tx+32 <= w && cols.run(ty*tw+tx, 8); tx += 8 {
				f4outGrad8(&dy[r0*w+4*tx], w, &dh[cols.off(ty*tw+tx)], stride)
			}
			for ; 4*tx+16 <= w && cols.run(ty*tw+tx, 4); tx += 4 {
				f4outGrad4(&dy[r0*w+4*tx], w, &dh[cols.off(ty*tw+tx)], stride)
			}
			if t := tw - 4; tx > t && tx < tw && t >= 0 && w%4 == 0 && cols.run(ty*tw+t, 4) { // the row's last four tiles again
				f4outGrad4(&dy[r0*w+4*t], w, &dh[cols.off(ty*tw+t)], stride)
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			var y [16]float32
			for a := 0; a < 4 && r0+a < h; a++ {
				for b := 0; b < 4 && 4*tx+b < w; b++ {
					y[4*a+b] = dy[(r0+a)*w+4*tx+b]
				}
			}
			f4outGradTile(&y, dh[cols.off(ty*tw+tx):], stride)
		}
	}
}

// f4outGradTile is f4outGrad8 for one tile: the rows of ∂Y first
// (e = ∂Y Aᵀ, 4×6), then the columns (D̂ = A e).
func f4outGradTile(y *[16]float32, dh []float32, stride int) {
	var e [24]float32
	for a := 0; a < 4; a++ {
		e[6*a], e[6*a+1], e[6*a+2], e[6*a+3], e[6*a+4], e[6*a+5] = a6(y[4*a], y[4*a+1], y[4*a+2], y[4*a+3])
	}
	for j := 0; j < 6; j++ {
		r0, r1, r2, r3, r4, r5 := a6(e[j], e[6+j], e[12+j], e[18+j])
		dh[j*stride], dh[(6+j)*stride], dh[(12+j)*stride] = r0, r1, r2
		dh[(18+j)*stride], dh[(24+j)*stride], dh[(30+j)*stride] = r3, r4, r5
	}
}

// F4Output writes Y = Aᵀ m A + bias of every tile into the h×w plane y from
// m[ξ·stride + t]; pad is scratch of F4PadSize(h, w) values.
func F4Output(m []float32, stride int, h, w int, bias float32, pad, y []float32) {
	th, tw := F4Tiles(h, w)
	if tpi := th * tw; tpi >= 32 {
		// The 36 rows copied one after the other (gather): from a group
		// buffer, a tile row of the 36 rows is 36 streams far apart. A
		// plane of fewer tiles is read where it is: its rows are a cache
		// line or two, and 36 copies would cost more than they save.
		m, stride = gather36(m, stride, tpi, pad), tpi
	}
	for ty := 0; ty < th; ty++ {
		r0 := 4 * ty
		tx := 0
		if useAsm && r0+4 <= h {
			for ; 4*tx+32 <= w; tx += 8 {
				f4output8(&m[ty*tw+tx], stride, bias, &y[r0*w+4*tx], w)
			}
			for ; 4*tx+16 <= w; tx += 4 {
				f4output4(&m[ty*tw+tx], stride, bias, &y[r0*w+4*tx], w)
			}
			if t := tw - 4; tx > t && tx < tw && t >= 0 && w%4 == 0 { // the row's last four tiles again
				f4output4(&m[ty*tw+t], stride, bias, &y[r0*w+4*t], w)
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			out := f4outputTile(m[ty*tw+tx:], stride, bias)
			for a := 0; a < 4 && r0+a < h; a++ {
				for b := 0; b < 4 && 4*tx+b < w; b++ {
					y[(r0+a)*w+4*tx+b] = out[4*a+b]
				}
			}
		}
	}
}

// f4outputTile is f4output8 for one tile: the columns first (s = Aᵀ m,
// 4×6), then the rows (Y = s A + bias).
func f4outputTile(m []float32, stride int, bias float32) (y [16]float32) {
	var s [24]float32
	for j := 0; j < 6; j++ {
		s[j], s[6+j], s[12+j], s[18+j] = at6(m[j*stride], m[(6+j)*stride], m[(12+j)*stride], m[(18+j)*stride], m[(24+j)*stride], m[(30+j)*stride])
	}
	for a := 0; a < 4; a++ {
		y0, y1, y2, y3 := at6(s[6*a], s[6*a+1], s[6*a+2], s[6*a+3], s[6*a+4], s[6*a+5])
		y[4*a], y[4*a+1], y[4*a+2], y[4*a+3] = y0+bias, y1+bias, y2+bias, y3+bias
	}
	return y
}

// F4InputGrad writes into the h×w plane dx the sum, over the tiles, of
// B z Bᵀ (z from z[ξ·stride + t]) on the patch each tile read; pad is
// scratch of F4PadSize(h, w) values.
//
// It gathers, as InputGrad does: with q = B z per tile, a padded row
// ρ = 4y + α is covered by tile row y (patch row α) and, for α < 2, by tile
// row y − 1 (patch row α + 4), so S_l = q_{α,l}(y) + q_{α+4,l}(y−1) is made
// first, one padded row at a time, then the columns: c = S Bᵀ, and padded
// column 4x + β receives c_β(x) + c_{β+4}(x−1) (β < 2) or c_β(x).
func F4InputGrad(z []float32, stride int, h, w int, pad, dx []float32) {
	th, tw := F4Tiles(h, w)
	// The 36 rows one after the other, each between two tile rows of zeros
	// (the tiles outside the plane).
	tpi, ls := th*tw, th*tw+2*tw
	local := pad[:36*ls]
	for xi := 0; xi < 36; xi++ {
		row := local[xi*ls : (xi+1)*ls]
		for i := range tw { // a row of tw, too short for a call to clear
			row[i], row[tw+tpi+i] = 0, 0
		}
		copy(row[tw:tw+tpi], z[xi*stride:xi*stride+tpi])
	}
	// Each stage runs over all the rows before the next reads them: a load
	// that spans two vector stores still in flight (S(x − 1) read one value
	// left of where it was written, a ∂x row one value right) waits for
	// them to retire, and the stages back to back, row by row, waited so on
	// every load.
	sw := tw + 2 // S rows: a zero, tw values, a zero
	ss, rw := 6*sw, 4*tw+8
	s := pad[36*ls : 36*ls+h*ss]
	rows := pad[36*ls+h*ss : 36*ls+h*ss+h*rw] // padded columns 0 … 4·tw + 3 of each row
	for rho := 1; rho <= h; rho++ {
		sr := s[(rho-1)*ss : rho*ss]
		for l := 0; l < 6; l++ {
			sr[l*sw], sr[l*sw+tw+1] = 0, 0
		}
		f4gradS(local, ls, tw, rho/4, rho%4, sr, sw)
	}
	for rho := 1; rho <= h; rho++ {
		f4inputGradRow(s[(rho-1)*ss:rho*ss], sw, tw, rows[(rho-1)*rw:rho*rw])
	}
	for r := 0; r < h; r++ {
		copy(dx[r*w:(r+1)*w], rows[r*rw+1:r*rw+1+w])
	}
}

// f4gradS writes S_l(tx) for the tw tiles of a tile row and l = 0 … 5 into
// the rows s[l·sw + 1:]: z holds, in row ξ, a tile row of zeros, the
// plane's tile rows, and zeros again (tile row y at ξ·stride + (y+1)·tw).
func f4gradS(z []float32, stride, tw, y, alpha int, s []float32, sw int) {
	cur, prev := (y+1)*tw, y*tw
	tx := 0
	if useAsm {
		k8, k4 := f4gradS8[alpha], f4gradS4[alpha]
		for ; tx+8 <= tw; tx += 8 {
			k8(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
		}
		for ; tx+4 <= tw; tx += 4 {
			k4(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
		}
		if t := tw - 4; tx > t && tx < tw && t >= 0 { // the row's last four tiles again
			k4(&z[cur+t], &z[prev+t], stride, &s[1+t], sw)
			tx = tw
		}
	}
	r := 6 * stride
	for ; tx < tw; tx++ {
		for l := 0; l < 6; l++ {
			c, p := z[l*stride+cur+tx:], z[l*stride+prev+tx:]
			var v float32
			switch alpha {
			case 0:
				v = 4*c[0] + b6q4(p[0], p[r], p[2*r], p[3*r], p[4*r])
			case 1:
				_, q1, _, _ := b6(c[0], c[r], c[2*r], c[3*r], c[4*r], c[5*r])
				v = q1 + p[5*r]
			case 2:
				_, _, v, _ = b6(c[0], c[r], c[2*r], c[3*r], c[4*r], c[5*r])
			case 3:
				_, _, _, v = b6(c[0], c[r], c[2*r], c[3*r], c[4*r], c[5*r])
			}
			s[l*sw+1+tx] = v
		}
	}
}

// f4inputGradRow writes the padded columns 0 … 4·tw + 3 of one row of ∂x
// into row from the six S rows (sw apart, S_l(x) = s[l·sw + 1 + x] for
// −1 ≤ x ≤ tw): column 4x + β is c_β(x) + c_{β+4}(x−1) for β < 2 and c_β(x)
// for β = 2, 3, with c = S Bᵀ.
func f4inputGradRow(s []float32, sw, tw int, row []float32) {
	x := 0
	if useAsm {
		for ; x+8 <= tw+1; x += 8 {
			f4inputGradRow8(&s[1+x], sw, &row[4*x])
		}
		for ; x+4 <= tw+1; x += 4 {
			f4inputGradRow4(&s[1+x], sw, &row[4*x])
		}
		if t := tw - 3; x > t && x <= tw && t >= 0 { // the last four tile columns again
			f4inputGradRow4(&s[1+t], sw, &row[4*t])
			x = tw + 1
		}
	}
	for ; x <= tw; x++ {
		row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = f4inputGradCol(s[x:], sw)
	}
}

// f4inputGradCol is f4inputGradRow8 for one tile column x, s at S_0(x−1).
func f4inputGradCol(s []float32, sw int) (p0, p1, p2, p3 float32) {
	c0, c1, c2, c3 := b6(s[1], s[sw+1], s[2*sw+1], s[3*sw+1], s[4*sw+1], s[5*sw+1])
	c4 := b6q4(s[0], s[sw], s[2*sw], s[3*sw], s[4*sw])
	return c0 + c4, c1 + s[5*sw], c2, c3
}

// g6 is G on a column of three weights.
func g6(g0, g1, g2 float32) (u0, u1, u2, u3, u4, u5 float32) {
	const sixth = float32(1.0 / 6)
	a := float32(g0 + g2)
	b := float32(0.25*g0 + g2)
	return 0.25 * g0, -float32(a+g1) * sixth, -float32(a-g1) * sixth,
		float32(b+0.5*g1) * sixth, float32(b-0.5*g1) * sixth, g2
}

// gt6 is Gᵀ on a column of six values.
func gt6(u0, u1, u2, u3, u4, u5 float32) (r0, r1, r2 float32) {
	const sixth = float32(1.0 / 6)
	a, b, c, d := float32(u1+u2), float32(u1-u2), float32(u3+u4), float32(u3-u4)
	r0 = float32(0.25*u0) + float32(float32(0.25*c-a)*sixth)
	r1 = float32(0.5*d-b) * sixth
	r2 = float32(float32(c-a)*sixth) + u5
	return
}

// F4Weights writes U_ξ[k,c] = (G g_{k,c} Gᵀ)_ξ into u (36 matrices K×C,
// the ξ-th at u[ξ·stride:]) for the K×C×3×3 weights w, for output channels
// [k0, k1).
func F4Weights(w []float32, K, C, k0, k1 int, u []float32, stride int) {
	for o := k0; o < k1; o++ {
		for i := 0; i < C; i++ {
			at := o*C + i
			g := w[at*9 : at*9+9]
			var t [18]float32 // t = G g (6×3)
			for j := 0; j < 3; j++ {
				t[j], t[3+j], t[6+j], t[9+j], t[12+j], t[15+j] = g6(g[j], g[3+j], g[6+j])
			}
			for r := 0; r < 6; r++ { // U = t Gᵀ (6×6)
				u0, u1, u2, u3, u4, u5 := g6(t[3*r], t[3*r+1], t[3*r+2])
				u[(6*r)*stride+at], u[(6*r+1)*stride+at], u[(6*r+2)*stride+at] = u0, u1, u2
				u[(6*r+3)*stride+at], u[(6*r+4)*stride+at], u[(6*r+5)*stride+at] = u3, u4, u5
			}
		}
	}
}

// F4WeightGrad writes ∂g = Gᵀ ∂U G into dw (K×C×3×3) from the 36 K×C
// matrices du (the ξ-th at du[ξ·stride:]), for output channels [k0, k1).
func F4WeightGrad(du []float32, stride, K, C, k0, k1 int, dw []float32) {
	for o := k0; o < k1; o++ {
		for i := 0; i < C; i++ {
			at := o*C + i
			var p [18]float32 // p = Gᵀ ∂U (3×6)
			for j := 0; j < 6; j++ {
				p[j], p[6+j], p[12+j] = gt6(du[j*stride+at], du[(6+j)*stride+at], du[(12+j)*stride+at],
					du[(18+j)*stride+at], du[(24+j)*stride+at], du[(30+j)*stride+at])
			}
			g := dw[at*9 : at*9+9]
			for r := 0; r < 3; r++ { // ∂g = p G (3×3)
				g[3*r], g[3*r+1], g[3*r+2] = gt6(p[6*r], p[6*r+1], p[6*r+2], p[6*r+3], p[6*r+4], p[6*r+5])
			}
		}
	}
}
