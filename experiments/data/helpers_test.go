package data

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idxBytes encodes an IDX file, gzip-compressed when gz.
func idxBytes(t testing.TB, dims []int, payload []byte, gz bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, EncodeIDX(&buf, dims, payload))
	if !gz {
		return buf.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(buf.Bytes())
	zw.Close()
	return z.Bytes()
}

// cifarBytes encodes CIFAR-10 records: record i has label labels[i] and
// pixel p (0…3071, CHW order) equal to byte(7*i + p).
func cifarBytes(labels []byte) []byte {
	var b []byte
	for i, l := range labels {
		b = append(b, l)
		for p := 0; p < cifarPixels; p++ {
			b = append(b, byte(7*i+p))
		}
	}
	return b
}

// matOrder is a byte order that can append (binary.LittleEndian, BigEndian).
type matOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// matVar is one array written by matFile.
type matVar struct {
	name  string
	class uint32
	dims  []int32
	typ   uint32    // storage data type
	vals  []float64 // converted to typ
	cmplx bool
}

// matElem encodes a data element: tag, data, padding to 8 bytes. Data of at
// most 4 bytes use the small data element format when small is true.
func matElem(o matOrder, typ uint32, data []byte, small bool) []byte {
	var b []byte
	if small && len(data) <= 4 {
		b = o.AppendUint32(b, uint32(len(data))<<16|typ)
		b = append(b, data...)
		for len(b) < 8 {
			b = append(b, 0)
		}
		return b
	}
	b = o.AppendUint32(b, typ)
	b = o.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

func matValues(o matOrder, typ uint32, vals []float64) []byte {
	var b []byte
	for _, v := range vals {
		switch typ {
		case miUINT8:
			b = append(b, byte(v))
		case miINT8:
			b = append(b, byte(int8(v)))
		case miUINT16:
			b = o.AppendUint16(b, uint16(v))
		case miINT32:
			b = o.AppendUint32(b, uint32(int32(v)))
		case miSINGLE:
			b = o.AppendUint32(b, math.Float32bits(float32(v)))
		case miDOUBLE:
			b = o.AppendUint64(b, math.Float64bits(v))
		}
	}
	return b
}

// matFile writes a level-5 MAT-file holding vars, each in an miCOMPRESSED
// element when compress, else in a plain miMATRIX element.
func matFile(o matOrder, compress bool, vars ...matVar) []byte {
	hdr := []byte(strings.Repeat(" ", 116))
	copy(hdr, "MATLAB 5.0 MAT-file, written by the llpfc tests")
	hdr = append(hdr, make([]byte, 8)...)
	hdr = o.AppendUint16(hdr, 0x0100)
	if o.String() == binary.LittleEndian.String() {
		hdr = append(hdr, 'I', 'M')
	} else {
		hdr = append(hdr, 'M', 'I')
	}
	out := hdr
	for _, v := range vars {
		flags := v.class
		if v.cmplx {
			flags |= matComplexFlag
		}
		var body []byte
		body = append(body, matElem(o, miUINT32, o.AppendUint32(o.AppendUint32(nil, flags), 0), false)...)
		var dims []byte
		for _, d := range v.dims {
			dims = o.AppendUint32(dims, uint32(d))
		}
		body = append(body, matElem(o, miINT32, dims, false)...)
		body = append(body, matElem(o, miINT8, []byte(v.name), true)...)
		body = append(body, matElem(o, v.typ, matValues(o, v.typ, v.vals), true)...)
		if v.cmplx {
			body = append(body, matElem(o, v.typ, matValues(o, v.typ, v.vals), true)...)
		}
		elem := matElem(o, miMATRIX, body, false)
		if compress {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			zw.Write(elem)
			zw.Close()
			elem = o.AppendUint32(o.AppendUint32(nil, miCOMPRESSED), uint32(z.Len()))
			elem = append(elem, z.Bytes()...)
		}
		out = append(out, elem...)
	}
	return out
}

// svhnPixel is the test value of MATLAB X(h, w, c, i) (0-based indices).
func svhnPixel(h, w, c, i int) byte { return byte(h + 3*w + 50*c + 17*i) }

// svhnVars returns X (32×32×3×n) and y for n images with labels in 1…10.
func svhnVars(n int, ytyp uint32, labels []float64) []matVar {
	x := make([]float64, 32*32*3*n)
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			for w := 0; w < 32; w++ {
				for h := 0; h < 32; h++ {
					x[h+32*w+1024*c+3072*i] = float64(svhnPixel(h, w, c, i))
				}
			}
		}
	}
	yclass := uint32(mxDOUBLE)
	return []matVar{
		{name: "X", class: mxUINT8, dims: []int32{32, 32, 3, int32(n)}, typ: miUINT8, vals: x},
		{name: "y", class: yclass, dims: []int32{int32(n), 1}, typ: ytyp, vals: labels},
	}
}

// wantErr fails unless err is non-nil and mentions every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	require.Errorf(t, err, "got no error, want one mentioning %q", fragments)
	for _, f := range fragments {
		assert.Containsf(t, err.Error(), f, "error %q does not mention %q", err, f)
	}
}

// nanValue returns a NaN (a constant expression cannot).
func nanValue() float64 {
	zero := 0.0
	return zero / zero
}
