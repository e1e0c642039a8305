package data

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// npyBytes writes a .npy file (format 1.0) with the given header dict and
// raw data, for tests of damaged and unusual headers.
func npyBytes(header string, data []byte) []byte {
	header += strings.Repeat(" ", 63-(10+len(header))%64) + "\n"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)), byte(len(header)>>8))
	return append(append(b, header...), data...)
}

// TestReadNPYNumpyFiles reads arrays NumPy wrote (testdata/numpy,
// gen_numpy.py): every supported dtype and byte order, Fortran order (of 2
// and 3 dimensions) transposed to C order, format version 2.0; and refuses
// the unsupported dtypes naming the dtype and what is wanted.
func TestReadNPYNumpyFiles(t *testing.T) {
	v := []float64{0.5, 1.5, 2.5, 3.5, 10.5, 11.5, 12.5, 13.5, 20.5, 21.5, 22.5, 23.5}
	seq := func(n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = float64(i)
		}
		return out
	}
	cases := []struct {
		file  string
		shape []int
		vals  []float64
		want  []string // error fragments; nil: no error
	}{
		{"c_f4.npy", []int{3, 4}, v, nil},
		{"f_f4.npy", []int{3, 4}, v, nil},
		{"c_f8_be.npy", []int{3, 4}, v, nil},
		{"f_i2_3d.npy", []int{2, 3, 4}, seq(24), nil},
		{"c_u8_be.npy", []int{5}, seq(5), nil},
		{"c_u1.npy", []int{2, 3}, seq(6), nil},
		{"v2_i4.npy", []int{4}, seq(4), nil},
		{"f2.npy", nil, nil, []string{"f2.npy", `dtype "<f2" (float16) is not supported`, "want float32, float64 or an integer type"}},
		{"bool.npy", nil, nil, []string{"bool.npy", "(bool)", "not supported"}},
		{"str.npy", nil, nil, []string{"str.npy", "(strings)", "not supported"}},
		{"obj.npy", nil, nil, []string{"obj.npy", "object", "not supported"}},
		{"rec.npy", nil, nil, []string{"rec.npy", "structured (record) arrays are not read"}},
		{"c16.npy", nil, nil, []string{"c16.npy", "complex128", "not supported"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			a, err := readNPYFile(filepath.Join("testdata", "numpy", c.file))
			if c.want != nil {
				wantErr(t, err, c.want...)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.shape, a.shape)
			got := make([]float64, a.len())
			for i := range got {
				got[i] = a.float(i)
			}
			assert.Equal(t, c.vals, got)
		})
	}
}

// TestReadNPYCorrupt: a damaged .npy file is an error naming the file and
// what was expected, never a panic or an array of zeros (npyio reads a
// truncated array as zeros, and its header parser panics without the
// trailing newline or with the keys in another order).
func TestReadNPYCorrupt(t *testing.T) {
	ok := "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }"
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"empty", nil, []string{"magic string"}},
		{"not npy", []byte("PK\x03\x04 a zip file"), []string{"magic string"}},
		{"version 9", append([]byte("\x93NUMPY\x09\x00"), 0, 0), []string{"format version 9.0"}},
		{"truncated data", npyBytes(ok, []byte{1, 0, 2}), []string{"3 bytes of data, want 4", "truncated"}},
		{"trailing data", npyBytes(ok, []byte{1, 0, 2, 0, 9}), []string{"5 bytes of data, want 4"}},
		{"keys reordered", npyBytes("{'shape': (2,), 'fortran_order': False, 'descr': '<i2'}", []byte{1, 0, 2, 0}), nil},
		{"no newline", append(append(append([]byte("\x93NUMPY\x01\x00"), byte(len(ok)), 0), ok...), 1, 0, 2, 0), nil},
		{"missing shape", npyBytes("{'descr': '<i2', 'fortran_order': False, }", nil), []string{`no key "shape"`}},
		{"negative dim", npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (-1,), }", nil), []string{"shape: want a tuple of non-negative integers"}},
		{"huge shape", npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 4000000000), }", nil), []string{"too many values"}},
		{"bad order", npyBytes("{'descr': '<i2', 'fortran_order': maybe, 'shape': (2,), }", nil), []string{"fortran_order: want True or False"}},
		{"unknown key", npyBytes("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), 'x': 1}", nil), []string{`unknown key "x"`}},
		{"header too long", append([]byte("\x93NUMPY\x02\x00"), 0xff, 0xff, 0xff, 0x7f), []string{"want at most"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := readNPY(bytes.NewReader(c.b), "t.npy", int64(len(c.b)))
			if c.want == nil {
				require.NoError(t, err)
				assert.Equal(t, []int64{1, 2}, a.i64)
				return
			}
			wantErr(t, err, append([]string{"t.npy"}, c.want...)...)
		})
	}
}

// TestNPZBombRefused: an .npz member claiming far more bytes than deflate
// can make of its compressed size is refused before anything is allocated.
func TestNPZBombRefused(t *testing.T) {
	b, err := os.ReadFile("testdata/numpy/bagonly_compressed.npz")
	require.NoError(t, err)
	z, err := openNPZ(bytes.NewReader(b), int64(len(b)), "b.npz")
	require.NoError(t, err)
	f := z.members["X"]
	f.UncompressedSize64 = 1 << 40
	_, err = z.read("X")
	wantErr(t, err, "b.npz, array X", fmt.Sprintf("claims %d bytes", f.UncompressedSize64), "damaged")
}
