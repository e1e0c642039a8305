package data

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadSVHNValues(t *testing.T) {
	labels := []float64{10, 1, 7}
	for _, tc := range []struct {
		name     string
		order    matOrder
		compress bool
		ytyp     uint32
	}{
		{"little-endian plain, y double", binary.LittleEndian, false, miDOUBLE},
		{"little-endian compressed, y stored as uint8", binary.LittleEndian, true, miUINT8},
		{"big-endian compressed, y double", binary.BigEndian, true, miDOUBLE},
		{"big-endian plain, y stored as int32", binary.BigEndian, false, miINT32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := matFile(tc.order, tc.compress, svhnVars(3, tc.ytyp, labels)...)
			d, err := ReadSVHN(bytes.NewReader(b), "train_32x32.mat")
			require.NoError(t, err)
			shape := fmt.Sprintf("shape N=%d D=%d %d×%d×%d K=%d", d.N, d.D, d.Channels, d.Height, d.Width, d.NumClasses)
			require.Equal(t, 3, d.N, shape)
			require.Equal(t, 3072, d.D, shape)
			require.Equal(t, 3, d.Channels, shape)
			require.Equal(t, 32, d.Height, shape)
			require.Equal(t, 32, d.Width, shape)
			require.Equal(t, 10, d.NumClasses, shape)
			assert.Equalf(t, []int{0, 1, 7}, d.Y[:3], "labels %v, want [0 1 7] (10 means digit 0)", d.Y)
			for i := 0; i < 3; i++ {
				for c := 0; c < 3; c++ {
					for h := 0; h < 32; h++ {
						for w := 0; w < 32; w++ {
							got := d.X[i*3072+c*1024+h*32+w]
							want := float32(svhnPixel(h, w, c, i)) / 255
							require.Equalf(t, want, got, "image %d channel %d row %d col %d = %v, want %v", i, c, h, w, got, want)
						}
					}
				}
			}
		})
	}
}

func TestReadMATArrays(t *testing.T) {
	// Arrays of several storage types, including a name longer than 4 bytes
	// (not the small element format) and a non-numeric class, which is skipped.
	b := matFile(binary.LittleEndian, false,
		matVar{name: "weights", class: mxDOUBLE, dims: []int32{2, 2}, typ: miSINGLE, vals: []float64{0.5, -1, 2, 3}},
		matVar{name: "k", class: mxINT8, dims: []int32{1, 3}, typ: miINT8, vals: []float64{-3, 0, 5}},
		matVar{name: "cell", class: 1, dims: []int32{1, 1}, typ: miUINT8, vals: []float64{1}},
	)
	arrays, err := ReadMAT(bytes.NewReader(b), "a.mat")
	require.NoError(t, err)
	require.Lenf(t, arrays, 2, "arrays %v, want weights and k", matNames(arrays))
	require.Nilf(t, arrays["cell"], "arrays %v, want weights and k", matNames(arrays))
	w := arrays["weights"]
	for i, want := range []float64{0.5, -1, 2, 3} {
		assert.Equalf(t, want, w.At(i), "weights(%d) = %v, want %v", i, w.At(i), want)
	}
	k := arrays["k"]
	assert.Equalf(t, 3, k.Len(), "k = %v %v %v", k.At(0), k.At(1), k.At(2))
	assert.Equalf(t, -3.0, k.At(0), "k = %v %v %v", k.At(0), k.At(1), k.At(2))
	assert.Equalf(t, 5.0, k.At(2), "k = %v %v %v", k.At(0), k.At(1), k.At(2))
}

func TestReadMATCorrupt(t *testing.T) {
	good := matFile(binary.LittleEndian, false, svhnVars(1, miDOUBLE, []float64{3})...)
	goodZ := matFile(binary.LittleEndian, true, svhnVars(1, miDOUBLE, []float64{3})...)
	mod := func(src []byte, f func([]byte)) []byte {
		b := append([]byte(nil), src...)
		f(b)
		return b
	}
	cases := []struct {
		name string
		in   []byte
		want []string
	}{
		{"short header", good[:100], []string{"byte 100", "truncated MAT-file header"}},
		{"not MATLAB", mod(good, func(b []byte) { b[0] = 'X' }), []string{"byte 0", "MATLAB"}},
		{"endian", mod(good, func(b []byte) { b[126] = 'Z' }), []string{"byte 126", "endian"}},
		{"version", mod(good, func(b []byte) { b[124] = 0; b[125] = 2 }), []string{"byte 124", "version 0x0200"}},
		{"truncated element", good[:128+8+40], []string{"byte 176", "truncated data element"}},
		{"truncated tag", good[:128+3], []string{"byte 131", "truncated data element tag"}},
		{"truncated zlib", goodZ[:len(goodZ)-20], []string{"truncated data element"}},
		{"corrupt zlib", mod(goodZ, func(b []byte) { b[128+8+5] ^= 0xff; b[128+8+9] ^= 0xff }), []string{"byte 136", "compressed element"}},
		{"label 11", matFile(binary.LittleEndian, true, svhnVars(1, miDOUBLE, []float64{11})...), []string{"y(1) is 11", "1…10"}},
		{"label 2.5", matFile(binary.LittleEndian, false, svhnVars(1, miDOUBLE, []float64{2.5})...), []string{"y(1) is 2.5"}},
		{"no y", matFile(binary.LittleEndian, false, svhnVars(1, miDOUBLE, []float64{1})[0]), []string{"needs arrays X and y", "[X]"}},
		{"complex", matFile(binary.LittleEndian, false, matVar{name: "X", class: mxDOUBLE, dims: []int32{1, 1}, typ: miDOUBLE, vals: []float64{1}, cmplx: true}), []string{"complex"}},
		{"X shape", matFile(binary.LittleEndian, false, matVar{name: "X", class: mxUINT8, dims: []int32{28, 28, 3, 1}, typ: miUINT8, vals: make([]float64, 28*28*3)}, svhnVars(1, miDOUBLE, []float64{1})[1]), []string{"X is class 9", "[28 28 3 1]"}},
		{"dims vs data", matFile(binary.LittleEndian, false, matVar{name: "y", class: mxDOUBLE, dims: []int32{5, 1}, typ: miDOUBLE, vals: []float64{1, 2}}), []string{"byte 1", "need 5 values of 8 bytes", "16 bytes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadSVHN(bytes.NewReader(c.in), "train_32x32.mat")
			wantErr(t, err, append([]string{"train_32x32.mat"}, c.want...)...)
		})
	}
}

// TestReadSVHNScipyFiles reads MAT-files written by SciPy's independent
// level-5 writer (testdata/gen_svhn_mat.py: one compressed with y double, one
// plain with y uint8) and checks every pixel and label.
func TestReadSVHNScipyFiles(t *testing.T) {
	for _, f := range []string{"testdata/svhn_scipy_compressed.mat", "testdata/svhn_scipy_plain.mat"} {
		d, err := ReadSVHNFile(f)
		require.NoError(t, err)
		require.Equalf(t, 3, d.N, "%s: N=%d labels %v, want 3 images labelled [0 1 7]", f, d.N, d.Y)
		require.Equalf(t, []int{0, 1, 7}, d.Y[:3], "%s: N=%d labels %v, want 3 images labelled [0 1 7]", f, d.N, d.Y)
		for i := 0; i < 3; i++ {
			for c := 0; c < 3; c++ {
				for h := 0; h < 32; h++ {
					for w := 0; w < 32; w++ {
						want := float32(svhnPixel(h, w, c, i)) / 255
						require.Equalf(t, want, d.X[i*3072+c*1024+h*32+w], "%s: image %d channel %d row %d col %d", f, i, c, h, w)
					}
				}
			}
		}
	}
}
