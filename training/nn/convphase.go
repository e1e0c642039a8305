package nn

// Strided convolutions read through their input's polyphase components (a
// speed lever, bench/NOTES.md "Lever 22"). Row (c, ki, kj) of a stride-s
// unfolding reads x[c][s·oh − pad + ki][s·ow − pad + kj]: every s-th value
// of an image row, a gather of one value at a time (im2colRow's strided
// loop, col2imRowAdd's strided adds). Write ki − pad = s·qi + a with
// 0 ≤ a < s (and kj − pad = s·qj + b): the row is then the plane
// P_cab[i][j] = x[c][s·i+a][s·j+b] shifted by (qi, qj), read in whole rows.
// So an image is split once into its s² planes (each value moved once), and
// every row of the unfolding is one contiguous copy of a shifted plane with
// its border zeroed, as for a stride-1 "same" convolution (im2colRowSame);
// ∂/∂x is folded onto the planes (col2imRowAddSame) and merged back once.
//
// The values are the same and are summed in the same order: the unfolding
// is entry for entry im2colRow's, so the forward and ∂/∂W are bit for bit
// the strided path's; each entry of ∂/∂x receives the same values in the
// same order of rows, starting from +0, plus +0 where a shifted plane
// reads padding (which leaves every sum as it is: a sum that starts at +0
// is never −0). TestConvPhasedMatchesStrided checks this on every path.
//
// The planes are hp × wp = ⌈h/s⌉ × ⌈w/s⌉; the shifted copy needs the output
// map to have that size too, which holds whenever 2·pad = k − 1 (the
// strided 3×3 layers of the paper's networks, with padding 1, and
// ResNet18's 7×7 stem, with padding 3). Other geometries, and kernels no
// wider than the stride (the 1×1 shortcuts, which read each value once),
// keep the strided gathers.

// usePhases enables the polyphase path (tests switch it off to compare it
// with the strided gathers).
var usePhases = true

// phases is the polyphase layout of a stride-s convolution's input: plane
// (c, a, b), at offset ((c·s + a)·s + b)·hp·wp, holds x[c][s·i+a][s·j+b] at
// (i, j), and 0 where s·i+a ≥ h or s·j+b ≥ w.
type phases struct {
	g         convGeom
	s, hp, wp int
	plane     convGeom // one plane as an image (h = hp, w = wp): the shifted copies' geometry
}

// phasesOf returns g's polyphase layout, and whether g takes the
// polyphase path: strided, with an output map of the planes' size, and a
// kernel wider than the stride — then every phase is read, and each plane
// by several rows of the unfolding (k²/s² on average); a 1×1 kernel of
// stride 2 reads each value once, and the split would only add a copy.
func phasesOf(g convGeom) (phases, bool) {
	s := g.stride
	if !usePhases || s < 2 || g.k <= s {
		return phases{}, false
	}
	hp, wp := (g.h+s-1)/s, (g.w+s-1)/s
	if g.ho != hp || g.wo != wp {
		return phases{}, false
	}
	return phases{g: g, s: s, hp: hp, wp: wp, plane: convGeom{c: 1, h: hp, w: wp, ho: hp, wo: wp}}, true
}

// phase splits kernel offset k (a row's ki or kj) into its phase a and its
// shift q on the planes: k − pad = s·q + a, 0 ≤ a < s.
func (p phases) phase(k int) (a, q int) {
	d := k - p.g.pad
	a = ((d % p.s) + p.s) % p.s
	return a, (d - a) / p.s
}

// size is the number of values of the planes of c channels (0 for the
// zero phases phasesOf returns when a geometry does not take the planes).
func (p phases) size(c int) int { return c * p.s * p.s * p.hp * p.wp }

// planeOf returns plane (c, a, b) of the planes xp.
func (p phases) planeOf(xp []float32, c, a, b int) []float32 {
	n := p.hp * p.wp
	at := ((c*p.s+a)*p.s + b) * n
	return xp[at : at+n]
}

// split writes the planes of channels c0:c1 of image x (c×h×w) into xp
// (laid out for all c channels).
func (p phases) split(x []float32, c0, c1 int, xp []float32) {
	g, s, wp := p.g, p.s, p.wp
	for c := c0; c < c1; c++ {
		img := x[c*g.h*g.w : (c+1)*g.h*g.w]
		for a := 0; a < s; a++ {
			if s == 2 {
				e, o := p.planeOf(xp, c, a, 0), p.planeOf(xp, c, a, 1)
				for i := 0; i < p.hp; i++ {
					ei, oi := e[i*wp:(i+1)*wp], o[i*wp:(i+1)*wp]
					if ih := 2*i + a; ih < g.h {
						deinterleave(img[ih*g.w:(ih+1)*g.w], ei, oi)
					} else {
						clear(ei)
						clear(oi)
					}
				}
				continue
			}
			for b := 0; b < s; b++ {
				pl := p.planeOf(xp, c, a, b)
				for i := 0; i < p.hp; i++ {
					d := pl[i*wp : (i+1)*wp]
					ih := s*i + a
					if ih >= g.h {
						clear(d)
						continue
					}
					src := img[ih*g.w : (ih+1)*g.w]
					for j := range d {
						if iw := s*j + b; iw < g.w {
							d[j] = src[iw]
						} else {
							d[j] = 0
						}
					}
				}
			}
		}
	}
}

// deinterleave writes src's even entries to e and its odd ones to o, each
// ⌈len(src)/2⌉ long (o's last entry 0 when len(src) is odd).
func deinterleave(src, e, o []float32) {
	n := len(src) / 2
	e0, o0 := e[:n], o[:n]
	for j := range e0 {
		e0[j], o0[j] = src[2*j], src[2*j+1]
	}
	if len(src)%2 == 1 {
		e[n], o[n] = src[len(src)-1], 0
	}
}

// interleave is deinterleave's inverse: dst's even entries from e, its odd
// ones from o.
func interleave(e, o, dst []float32) {
	n := len(dst) / 2
	e0, o0 := e[:n], o[:n]
	for j := range e0 {
		dst[2*j], dst[2*j+1] = e0[j], o0[j]
	}
	if len(dst)%2 == 1 {
		dst[len(dst)-1] = e[n]
	}
}

// row writes row r of the unfolding (ho·wo values) from the planes xp:
// im2colRow's values.
func (p phases) row(xp []float32, r int, dst []float32) {
	c, a, b, qi, qj := p.locate(r)
	if p.outside(qi, qj) {
		clear(dst)
		return
	}
	im2colRowSame(p.plane, p.planeOf(xp, c, a, b), qi, qj, dst)
}

// locate returns the plane (c, a, b) and the shift (qi, qj) of row r of
// the unfolding (channel r/k², kernel offset (r/k mod k, r mod k)).
func (p phases) locate(r int) (c, a, b, qi, qj int) {
	k := p.g.k
	c = r / (k * k)
	a, qi = p.phase(r / k % k)
	b, qj = p.phase(r % k)
	return c, a, b, qi, qj
}

// outside reports a shift by (qi, qj) that moves the plane off every
// output position (a wide kernel on a small map): the row reads padding
// only. Smaller shifts are im2colRowSame's, as for a "same" convolution.
func (p phases) outside(qi, qj int) bool {
	return qi <= -p.hp || qi >= p.hp || qj <= -p.wp || qj >= p.wp
}

// foldRow adds row r of the unfolding's gradient (src, ho·wo values; its
// entries that read padding are zeroed) onto the planes dxp:
// col2imRowAdd's sums, on the planes.
func (p phases) foldRow(src []float32, r int, dxp []float32) {
	c, a, b, qi, qj := p.locate(r)
	if p.outside(qi, qj) {
		return
	}
	col2imRowAddSame(p.plane, src, qi, qj, p.planeOf(dxp, c, a, b))
}

// merge writes image dx (c×h×w) from its planes dxp, each entry from its
// plane.
func (p phases) merge(dxp, dx []float32) {
	g, s, wp := p.g, p.s, p.wp
	for c := 0; c < g.c; c++ {
		img := dx[c*g.h*g.w : (c+1)*g.h*g.w]
		for ih := 0; ih < g.h; ih++ {
			a, i := ih%s, ih/s
			d := img[ih*g.w : (ih+1)*g.w]
			if s == 2 {
				interleave(p.planeOf(dxp, c, a, 0)[i*wp:(i+1)*wp], p.planeOf(dxp, c, a, 1)[i*wp:(i+1)*wp], d)
				continue
			}
			for iw := range d {
				d[iw] = p.planeOf(dxp, c, a, iw%s)[i*wp+iw/s]
			}
		}
	}
}
