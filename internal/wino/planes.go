package wino

// The *Planes functions run F(2×2, 3×3)'s transforms for n planes of one
// channel at once (n images of a group): plane i at src[i·ss:] (or y[i·ys:])
// and its tiles the columns cols.First + i·tpi … of the transformed rows.
// They give the bits of the one-plane functions plane by plane
// (TestPlanesMatchOnePlane). On the small maps a plane's tiles are a
// fraction of a cache line a row, and the one-plane functions spent more on
// their calls, copies and clears than on the transforms (bench/NOTES.md,
// "Lever 20"): a 4×4 plane (ResNet18's and VGG16's) has kernels of its own,
// one call a transform; on the other even maps narrower than 8, and for the
// output transform up to 16 wide, the eight-tile kernels run along the
// group's columns, across the planes, and the copies are of rows.

// outGradAcross and outputAcross report whether the output gradients' and
// the output's transforms of h×w planes run along the columns, across the
// planes: on even maps other than 4×4 (which has its own kernels) narrower
// than 8, where the one-plane kernels do not run; and the output's up to 16
// wide too, where it saves Output's copy of each plane's 16 rows (ResNet18's
// 64-channel 8×8 layer's forward −15 %, WRN-16-4's 8×8 and 16×16 ones −1 to
// −6 %; the output gradients' gained nothing there).
func outGradAcross(h, w int) bool {
	return useAsm && h%2 == 0 && w%2 == 0 && w < 8 && (h != 4 || w != 4)
}

func outputAcross(h, w int) bool {
	return useAsm && h%2 == 0 && w%2 == 0 && w <= 16 && (h != 4 || w != 4)
}

// PlanesScratch is the length of the scratch InputPlanes, OutGradPlanes and
// OutputPlanes need for n h×w planes: PadSize, or two rows of two values a
// tile for ⌈n·tpi⌉₈ tiles.
func PlanesScratch(n, h, w int) int {
	th, tw := Tiles(h, w)
	return max(PadSize(h, w), 4*((n*th*tw+7)&^7))
}

// InputPlanes is Input for the n planes src[i·ss:], plane i's tiles at
// cols.First + i·tpi. The padded copy's border is cleared once, not per
// plane: only its interior is rewritten.
func InputPlanes(src []float32, ss, n, h, w int, pad, v []float32, stride int, cols Cols) {
	th, tw := Tiles(h, w)
	first := cols.First
	if useAsm && h == 4 && w == 4 {
		for i := 0; i < n; i++ {
			cols.First = first + 4*i
			Input(src[i*ss:], h, w, pad, v, stride, cols)
		}
		return
	}
	pw := 2*tw + 2
	clear(pad[:PadSize(h, w)])
	for i := 0; i < n; i++ {
		s := src[i*ss : i*ss+h*w]
		for r := 0; r < h; r++ {
			copy(pad[(r+1)*pw+1:(r+1)*pw+1+w], s[r*w:(r+1)*w])
		}
		cols.First = first + i*th*tw
		inputTiles(pad, th, tw, pw, v, stride, cols)
	}
}

// OutGradPlanes is OutGrad for the n planes dy[i·ys:], plane i's tiles at
// cols.First + i·tpi.
func OutGradPlanes(dy []float32, ys, n, h, w int, pad, dh []float32, stride int, cols Cols) {
	th, tw := Tiles(h, w)
	tpi := th * tw
	if !outGradAcross(h, w) {
		first := cols.First
		for i := 0; i < n; i++ {
			cols.First = first + i*tpi
			OutGrad(dy[i*ys:], h, w, dh, stride, cols)
		}
		return
	}
	// Tile c's ∂Y pairs (y00, y01) and (y10, y11) at y0[2c:] and y1[2c:],
	// as the eight-tile kernel reads them: a tile row's top rows are one
	// row of its plane, its bottom rows the next.
	nt := n * tpi
	t8 := (nt + 7) &^ 7
	y0, y1 := pad[:2*t8], pad[2*t8:4*t8]
	for i := 0; i < n; i++ {
		p := dy[i*ys : i*ys+h*w]
		for ty := 0; ty < th; ty++ {
			at := 2 * (i*tpi + ty*tw)
			copy(y0[at:at+w], p[2*ty*w:(2*ty+1)*w])
			copy(y1[at:at+w], p[(2*ty+1)*w:(2*ty+2)*w])
		}
	}
	// Eight tiles a call where they lie in one strip, one at a time where
	// they do not and at the end.
	for c := 0; c < nt; {
		if c+8 <= nt && cols.run(c, 8) {
			outGrad8(&y0[2*c], &y1[2*c], &dh[cols.off(c)], stride)
			c += 8
			continue
		}
		outGradTile(y0[2*c], y0[2*c+1], y1[2*c], y1[2*c+1], dh[cols.off(c):], stride)
		c++
	}
}

// OutputPlanes is Output for the n planes y[i·ys:], plane i's tiles the
// columns i·tpi … of m's rows. Across planes, the eight-tile kernel reads
// the columns up to ⌈n·tpi⌉₈ (m must hold them; their values are not
// used).
func OutputPlanes(m []float32, stride, n, h, w int, bias float32, pad, y []float32, ys int) {
	th, tw := Tiles(h, w)
	tpi := th * tw
	if !outputAcross(h, w) {
		for i := 0; i < n; i++ {
			Output(m[i*tpi:], stride, h, w, bias, pad, y[i*ys:])
		}
		return
	}
	nt := n * tpi
	t8 := (nt + 7) &^ 7
	_ = m[15*stride+t8-1]
	y0, y1 := pad[:2*t8], pad[2*t8:4*t8]
	for c := 0; c < t8; c += 8 {
		output8(&m[c], stride, bias, &y0[2*c], &y1[2*c])
	}
	for i := 0; i < n; i++ {
		p := y[i*ys : i*ys+h*w]
		for ty := 0; ty < th; ty++ {
			at := 2 * (i*tpi + ty*tw)
			copy(p[2*ty*w:(2*ty+1)*w], y0[at:at+w])
			copy(p[(2*ty+1)*w:(2*ty+2)*w], y1[at:at+w])
		}
	}
}
