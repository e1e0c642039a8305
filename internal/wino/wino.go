package wino

// Tiles returns the tile rows and columns of an h×w plane.
func Tiles(h, w int) (th, tw int) { return (h + 1) / 2, (w + 1) / 2 }

// PadSize is the length of the scratch Input, Output and InputGrad need for
// an h×w plane: Input's padded copy, (2·th + 2) rows of 2·tw + 2 values and
// room for the eight-tile kernels' reads; or a transformed plane (16 rows of
// th + 2 tile rows) and InputGrad's four rows of tw + 2.
func PadSize(h, w int) int {
	th, tw := Tiles(h, w)
	return max((2*th+2)*(2*tw+2)+16, 16*(th+2)*tw+4*(tw+2))
}

// gather copies the plane's 16 transformed rows (tpi values each, stride
// apart in z) into buf, one after the other, and returns it (Output's copy;
// InputGrad makes its own, with rows of zeros between). Read straight from a
// group buffer, a tile row of the 16 rows is 16 cache lines from 16 places
// far apart, which the prefetchers do not follow: InputGrad waited on L3 for
// most of its time (bench/NOTES.md). Copied, each row is one sequential read.
func gather(z []float32, stride, tpi int, buf []float32) []float32 {
	for xi := 0; xi < 16; xi++ {
		copy(buf[xi*tpi:(xi+1)*tpi], z[xi*stride:xi*stride+tpi])
	}
	return buf[:16*tpi]
}

// Weights writes U_ξ[k,c] = (G g_{k,c} Gᵀ)_ξ into u (16 matrices K×C, the
// ξ-th at u[ξ·stride:]) for the K×C×3×3 weights w, for output channels
// [k0, k1). A stride that is a multiple of 4 KiB would put the 16 values
// of a kernel into one set of L1.
func Weights(w []float32, K, C, k0, k1 int, u []float32, stride int) {
	kc := stride
	for o := k0; o < k1; o++ {
		for i := 0; i < C; i++ {
			at := o*C + i
			g := w[at*9 : at*9+9]
			var t [12]float32 // t = G g (4×3)
			for j := 0; j < 3; j++ {
				g0, g1, g2 := g[j], g[3+j], g[6+j]
				t[j] = g0
				t[3+j] = 0.5 * (g0 + g1 + g2)
				t[6+j] = 0.5 * (g0 - g1 + g2)
				t[9+j] = g2
			}
			for r := 0; r < 4; r++ { // U = t Gᵀ (4×4)
				t0, t1, t2 := t[3*r], t[3*r+1], t[3*r+2]
				u[(4*r+0)*kc+at] = t0
				u[(4*r+1)*kc+at] = 0.5 * (t0 + t1 + t2)
				u[(4*r+2)*kc+at] = 0.5 * (t0 - t1 + t2)
				u[(4*r+3)*kc+at] = t2
			}
		}
	}
}

// WeightGrad writes ∂g = Gᵀ ∂U G into dw (K×C×3×3) from the 16 K×C
// matrices du (the ξ-th at du[ξ·stride:]), for output channels [k0, k1).
func WeightGrad(du []float32, stride, K, C, k0, k1 int, dw []float32) {
	kc := stride
	for o := k0; o < k1; o++ {
		for i := 0; i < C; i++ {
			at := o*C + i
			var p [12]float32 // p = Gᵀ ∂U (3×4)
			for j := 0; j < 4; j++ {
				u0, u1, u2, u3 := du[j*kc+at], du[(4+j)*kc+at], du[(8+j)*kc+at], du[(12+j)*kc+at]
				p[j] = u0 + 0.5*(u1+u2)
				p[4+j] = 0.5 * (u1 - u2)
				p[8+j] = 0.5*(u1+u2) + u3
			}
			g := dw[at*9 : at*9+9]
			for r := 0; r < 3; r++ { // ∂g = p G (3×3)
				p0, p1, p2, p3 := p[4*r], p[4*r+1], p[4*r+2], p[4*r+3]
				g[3*r] = p0 + 0.5*(p1+p2)
				g[3*r+1] = 0.5 * (p1 - p2)
				g[3*r+2] = 0.5*(p1+p2) + p3
			}
		}
	}
}

// Cols places the tiles of a plane among the columns of its transformed
// rows: tile t is column c = First + t, written at offset c (Strip = 0), or
// in a matrix packed in strips of Strip columns, StripStride apart, at
// (c/Strip)·StripStride + c%Strip (sgemm.PackedBRow: the transforms then
// write the operand of the products in their packed layout).
type Cols struct{ First, Strip, StripStride int }

func (cs Cols) off(t int) int {
	c := cs.First + t
	if cs.Strip == 0 {
		return c
	}
	return c/cs.Strip*cs.StripStride + c%cs.Strip
}

// run reports whether the n tiles from t lie at consecutive offsets (one
// strip holds them all), as an n-tile kernel writes them.
func (cs Cols) run(t, n int) bool {
	return cs.Strip == 0 || (cs.First+t)%cs.Strip+n <= cs.Strip
}

// Input writes V = Bᵀ d B of every tile t of the h×w plane src into
// v[ξ·stride + cols.off(t)]; pad is scratch of PadSize(h, w) values.
func Input(src []float32, h, w int, pad, v []float32, stride int, cols Cols) {
	if useAsm && h == 4 && w == 4 && cols.run(0, 4) {
		_, _ = src[15], v[15*stride+cols.off(3)]
		input4x4(&src[0], &v[cols.off(0)], stride)
		return
	}
	th, tw := Tiles(h, w)
	pw := 2*tw + 2
	clear(pad[:PadSize(h, w)])
	for r := 0; r < h; r++ {
		copy(pad[(r+1)*pw+1:(r+1)*pw+1+w], src[r*w:(r+1)*w])
	}
	inputTiles(pad, th, tw, pw, v, stride, cols)
}

// inputTiles is Input's transforms of the th×tw tiles of the padded plane
// pad (rows pw apart).
func inputTiles(pad []float32, th, tw, pw int, v []float32, stride int, cols Cols) {
	for ty := 0; ty < th; ty++ {
		tx := 0
		if useAsm {
			for ; tx+8 <= tw && cols.run(ty*tw+tx, 8); tx += 8 {
				input8(&pad[2*ty*pw+2*tx], pw, &v[cols.off(ty*tw+tx)], stride)
			}
			for ; tx+4 <= tw && cols.run(ty*tw+tx, 4); tx += 4 {
				input4(&pad[2*ty*pw+2*tx], pw, &v[cols.off(ty*tw+tx)], stride)
			}
			// The last one to three tiles of a row: the four-tile kernel on
			// the row's last four, rewriting some already written with the
			// same bits (the other kernels' tails below likewise).
			if t := tw - 4; tx > t && tx < tw && t >= 0 && cols.run(ty*tw+t, 4) {
				input4(&pad[2*ty*pw+2*t], pw, &v[cols.off(ty*tw+t)], stride)
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			inputTile(pad[2*ty*pw+2*tx:], pw, v[cols.off(ty*tw+tx):], stride)
		}
	}
}

// inputTile is input8 for one tile: d is its patch (rows pw apart), V goes
// to v[ξ·stride]. Each row is transformed first (e = d B), then the rows
// are combined (V = Bᵀ e).
func inputTile(d []float32, pw int, v []float32, stride int) {
	var e [16]float32
	for r := 0; r < 4; r++ {
		row := d[r*pw : r*pw+4]
		d0, d1, d2, d3 := row[0], row[1], row[2], row[3]
		e[4*r] = d0 - d2
		e[4*r+1] = d1 + d2
		e[4*r+2] = d2 - d1
		e[4*r+3] = d1 - d3
	}
	for b := 0; b < 4; b++ {
		e0, e1, e2, e3 := e[b], e[4+b], e[8+b], e[12+b]
		v[b*stride] = e0 - e2
		v[(4+b)*stride] = e1 + e2
		v[(8+b)*stride] = e2 - e1
		v[(12+b)*stride] = e1 - e3
	}
}

// OutGrad writes D̂ = A ∂Y Aᵀ of every tile t of the h×w plane dy into
// dh[ξ·stride + cols.off(t)] (∂Y is zero outside the plane).
func OutGrad(dy []float32, h, w int, dh []float32, stride int, cols Cols) {
	if useAsm && h == 4 && w == 4 && cols.run(0, 4) {
		_, _ = dy[15], dh[15*stride+cols.off(3)]
		outGrad4x4(&dy[0], &dh[cols.off(0)], stride)
		return
	}
	th, tw := Tiles(h, w)
	for ty := 0; ty < th; ty++ {
		r0 := 2 * ty
		tx := 0
		if useAsm && r0+1 < h {
			for ; 2*tx+16 <= w && cols.run(ty*tw+tx, 8); tx += 8 {
				outGrad8(&dy[r0*w+2*tx], &dy[(r0+1)*w+2*tx], &dh[cols.off(ty*tw+tx)], stride)
			}
			for ; 2*tx+8 <= w && cols.run(ty*tw+tx, 4); tx += 4 {
				outGrad4(&dy[r0*w+2*tx], &dy[(r0+1)*w+2*tx], &dh[cols.off(ty*tw+tx)], stride)
			}
			if t := tw - 4; tx > t && tx < tw && t >= 0 && w%2 == 0 && cols.run(ty*tw+t, 4) { // the row's last four tiles again
				outGrad4(&dy[r0*w+2*t], &dy[(r0+1)*w+2*t], &dh[cols.off(ty*tw+t)], stride)
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			c0 := 2 * tx
			var y00, y01, y10, y11 float32
			y00 = dy[r0*w+c0]
			if c0+1 < w {
				y01 = dy[r0*w+c0+1]
			}
			if r0+1 < h {
				y10 = dy[(r0+1)*w+c0]
				if c0+1 < w {
					y11 = dy[(r0+1)*w+c0+1]
				}
			}
			outGradTile(y00, y01, y10, y11, dh[cols.off(ty*tw+tx):], stride)
		}
	}
}

// outGradTile is outGrad8 for one tile: the rows of r = A ∂Y, then
// D̂ = r Aᵀ.
func outGradTile(y00, y01, y10, y11 float32, dh []float32, stride int) {
	r := [8]float32{y00, y01, y00 + y10, y01 + y11, y00 - y10, y01 - y11, -y10, -y11}
	for i := 0; i < 4; i++ {
		a, b := r[2*i], r[2*i+1]
		dh[(4*i)*stride] = a
		dh[(4*i+1)*stride] = a + b
		dh[(4*i+2)*stride] = a - b
		dh[(4*i+3)*stride] = -b
	}
}

// Output writes Y = Aᵀ m A + bias of every tile into the h×w plane y from
// m[ξ·stride + t]; pad is scratch of PadSize(h, w) values.
func Output(m []float32, stride int, h, w int, bias float32, pad, y []float32) {
	if useAsm && h == 4 && w == 4 {
		_, _ = m[15*stride+3], y[15]
		output4x4(&m[0], stride, bias, &y[0])
		return
	}
	th, tw := Tiles(h, w)
	m, stride = gather(m, stride, th*tw, pad), th*tw
	for ty := 0; ty < th; ty++ {
		r0 := 2 * ty
		tx := 0
		if useAsm && r0+1 < h {
			for ; 2*tx+16 <= w; tx += 8 {
				output8(&m[ty*tw+tx], stride, bias, &y[r0*w+2*tx], &y[(r0+1)*w+2*tx])
			}
			for ; 2*tx+8 <= w; tx += 4 {
				output4(&m[ty*tw+tx], stride, bias, &y[r0*w+2*tx], &y[(r0+1)*w+2*tx])
			}
			if t := tw - 4; tx > t && tx < tw && t >= 0 && w%2 == 0 { // the row's last four tiles again
				output4(&m[ty*tw+t], stride, bias, &y[r0*w+2*t], &y[(r0+1)*w+2*t])
				tx = tw
			}
		}
		for ; tx < tw; tx++ {
			y00, y01, y10, y11 := outputTile(m[ty*tw+tx:], stride, bias)
			c0 := 2 * tx
			y[r0*w+c0] = y00
			if c0+1 < w {
				y[r0*w+c0+1] = y01
			}
			if r0+1 < h {
				y[(r0+1)*w+c0] = y10
				if c0+1 < w {
					y[(r0+1)*w+c0+1] = y11
				}
			}
		}
	}
}

// outputTile is output8 for one tile: s = Aᵀ m (2×4), then Y = s A + bias.
func outputTile(m []float32, stride int, bias float32) (y00, y01, y10, y11 float32) {
	var s [8]float32
	for j := 0; j < 4; j++ {
		m0, m1, m2, m3 := m[j*stride], m[(4+j)*stride], m[(8+j)*stride], m[(12+j)*stride]
		s[j] = m0 + m1 + m2
		s[4+j] = m1 - m2 - m3
	}
	return s[0] + s[1] + s[2] + bias, s[1] - s[2] - s[3] + bias,
		s[4] + s[5] + s[6] + bias, s[5] - s[6] - s[7] + bias
}

// InputGrad writes into the h×w plane dx the sum, over the tiles, of
// B z Bᵀ (z from z[ξ·stride + t]) on the patch each tile read; pad is
// scratch of PadSize(h, w) values.
//
// It gathers rather than scatters: with q = B z per tile, the sums over the
// (at most two) tile rows that cover a padded row ρ = 2y + α,
// S_l = q_{α,l}(y) + q_{α+2,l}(y−1), are made first, one padded row at a
// time, then the columns: c = S Bᵀ, and the value at padded column 2x + β is
// c_β(x) + c_{β+2}(x−1). A tile outside the plane enters either sum as
// zeros. z's 16 rows are first copied into pad one after the other: read
// straight from a group buffer, a tile row of the 16 rows is 16 cache lines
// from 16 places several hundred KiB apart, which the prefetchers do not
// follow, and InputGrad waited on L3 for most of its time.
func InputGrad(z []float32, stride int, h, w int, pad, dx []float32) {
	if useAsm && h == 4 && w == 4 {
		_, _ = z[15*stride+3], dx[15]
		inputGrad4x4(&z[0], stride, &dx[0])
		return
	}
	th, tw := Tiles(h, w)
	// The 16 rows copied one after the other, each between two tile rows
	// of zeros (the tiles outside the plane).
	tpi, ls := th*tw, th*tw+2*tw
	local := pad[:16*ls]
	for xi := 0; xi < 16; xi++ {
		clear(local[xi*ls : xi*ls+tw])
		copy(local[xi*ls+tw:xi*ls+tw+tpi], z[xi*stride:xi*stride+tpi])
		clear(local[xi*ls+tw+tpi : (xi+1)*ls])
	}
	sw := tw + 2 // S rows: a zero, tw values, a zero
	s := pad[16*ls : 16*ls+4*sw]
	clear(s)
	for rho := 1; rho <= h; rho++ {
		y, alpha := rho/2, rho%2
		gradS(local, ls, tw, y, alpha, s, sw)
		inputGradRow(s, sw, w, dx[(rho-1)*w:rho*w])
	}
}

// gradS writes S_l(tx) = q_{α,l}(y, tx) + q_{α+2,l}(y−1, tx) for the tw
// tiles of a tile row and l = 0 … 3 into the rows s[l·sw + 1:]; q = B z:
// q_0 = z_0, q_1 = z_1 − z_2 + z_3, q_2 = z_1 + z_2 − z_0, q_3 = −z_3 (z_a
// standing for z_{4a+l}). Row ξ of z holds a tile row of zeros, then the
// plane's th tile rows, then zeros again (tile row y at ξ·stride + (y+1)·tw),
// so the tile rows −1 and th outside the plane read zeros.
func gradS(z []float32, stride, tw, y, alpha int, s []float32, sw int) {
	cur, prev := (y+1)*tw, y*tw
	tx := 0
	if useAsm {
		for ; tx+8 <= tw; tx += 8 {
			if alpha == 0 {
				gradSEven8(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
			} else {
				gradSOdd8(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
			}
		}
		for ; tx+4 <= tw; tx += 4 {
			if alpha == 0 {
				gradSEven4(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
			} else {
				gradSOdd4(&z[cur+tx], &z[prev+tx], stride, &s[1+tx], sw)
			}
		}
		if t := tw - 4; tx > t && tx < tw && t >= 0 { // the row's last four tiles again
			if alpha == 0 {
				gradSEven4(&z[cur+t], &z[prev+t], stride, &s[1+t], sw)
			} else {
				gradSOdd4(&z[cur+t], &z[prev+t], stride, &s[1+t], sw)
			}
			tx = tw
		}
		if tx == tw {
			return
		}
	}
	n := tw - tx
	for l := 0; l < 4; l++ {
		row := s[l*sw+1+tx : l*sw+1+tw]
		zc, zp := z[l*stride+cur+tx:], z[l*stride+prev+tx:]
		if alpha == 0 {
			c0, p0, p1, p2 := zc[:n], zp[:n], zp[4*stride:4*stride+n], zp[8*stride:8*stride+n]
			for i := range row {
				row[i] = c0[i] + (p1[i] + p2[i] - p0[i])
			}
			continue
		}
		c1, c2, c3 := zc[4*stride:4*stride+n], zc[8*stride:8*stride+n], zc[12*stride:12*stride+n]
		p3 := zp[12*stride : 12*stride+n]
		for i := range row {
			row[i] = c1[i] - c2[i] + c3[i] - p3[i]
		}
	}
}

// inputGradRow writes one row of ∂x from the four S rows (sw apart, each a
// zero, tw values, a zero; S_l(x) = s[l·sw + 1 + x] for −1 ≤ x ≤ tw):
// ∂x[2m] = c_1(m) + c_3(m−1) and ∂x[2m+1] = c_0(m+1) + c_2(m), with
// c = S Bᵀ: c_0 = S_0, c_1 = S_1 − S_2 + S_3, c_2 = S_1 + S_2 − S_0,
// c_3 = −S_3.
func inputGradRow(s []float32, sw, w int, dx []float32) {
	m := 0
	if useAsm {
		for ; 2*m+16 <= w; m += 8 {
			inputGradRow8(&s[1+m], sw, &dx[2*m])
		}
		for ; 2*m+8 <= w; m += 4 {
			inputGradRow4(&s[1+m], sw, &dx[2*m])
		}
		if t := w/2 - 4; m > t && 2*m < w && t >= 0 && w%2 == 0 { // the row's last eight values again
			inputGradRow4(&s[1+t], sw, &dx[2*t])
			m = w / 2
		}
	}
	for ; 2*m < w; m++ {
		s0, s1, s2, s3 := s[1+m], s[sw+1+m], s[2*sw+1+m], s[3*sw+1+m]
		dx[2*m] = s1 - s2 + s3 - s[3*sw+m]
		if 2*m+1 < w {
			dx[2*m+1] = s[2+m] + (s1 + s2 - s0)
		}
	}
}
