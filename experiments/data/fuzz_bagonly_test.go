package data

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Fuzz targets of the bag-only readers (see fuzz_test.go): no input
// makes them panic, and what they accept passes Validate.

func FuzzNPY(f *testing.F) {
	for _, p := range []string{"c_f4.npy", "f_f4.npy", "c_f8_be.npy", "f_i2_3d.npy", "c_u8_be.npy", "v2_i4.npy", "obj.npy", "rec.npy"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "numpy", p)); err == nil {
			addTruncations(f, b)
		}
	}
	f.Add(npyBytes("{'shape': (2,), 'fortran_order': False, 'descr': '<i2'}", []byte{1, 0, 2, 0}))
	f.Fuzz(func(t *testing.T, b []byte) {
		old := denseLimit
		denseLimit = 1 << 16
		defer func() { denseLimit = old }()
		a, err := readNPY(bytes.NewReader(b), "fuzz", int64(len(b)))
		if err != nil {
			return
		}
		n, err := npyElements("fuzz", a.shape)
		require.NoError(t, err)
		require.Equal(t, n, a.len())
	})
}

// fuzzBagOnly checks a bag-only set read from an accepted input.
func fuzzBagOnly(t *testing.T, train, test *Dataset) {
	require.NoError(t, train.Validate())
	require.NotNil(t, train.Bags)
	if test != nil {
		require.NoError(t, test.Validate())
		require.Equal(t, train.D, test.D)
	}
}

func FuzzBagOnlyNPZ(f *testing.F) {
	for _, p := range []string{"bagonly.npz", "bagonly_compressed.npz"} {
		if b, err := os.ReadFile(filepath.Join("testdata", "numpy", p)); err == nil {
			addTruncations(f, b)
		}
	}
	var b bytes.Buffer
	require.NoError(f, WriteNPZ(&b, []NPYArray{
		{Key: "X", Shape: []int{2, 1, 2, 2}, U8: []uint8{0, 255, 3, 4, 5, 6, 7, 8}},
		{Key: "bag", Shape: []int{2}, I64: []int64{1, 0}},
		{Key: "proportions", Shape: []int{2, 2}, F64: []float64{0, 1, 1, 0}},
	}))
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		old := denseLimit
		denseLimit = 1 << 16
		defer func() { denseLimit = old }()
		z, err := openNPZ(bytes.NewReader(b), int64(len(b)), "fuzz.npz")
		if err != nil {
			return
		}
		train, test, err := readBagNPY(&npySource{name: "fuzz.npz", npz: z}, false)
		if err != nil {
			return
		}
		fuzzBagOnly(t, train, test)
	})
}

func FuzzBagOnlyCSV(f *testing.F) {
	for _, c := range [][3]string{
		{"x,colour,bag\n1,red,a\n2,blue,b\n", "bag,cat,dog\nb,0.5,0.5\na,1,0\n", "label,colour,x\ndog,purple,5\n"},
		{"1,0\n2,0\n3,1\n", "0,2,0\n1,0,1\n", "0,1\n1,2\n"},
		{"x,bag\n1,0\n", "bag,0,1\n0,0.5,0.5\n", ""},
		{"x,bag\nred,0\n5,0\n", "bag,0,1\n0,NaN,1\n", "x,label\n1,1\n"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, tr, pr, te string) {
		old := denseLimit
		denseLimit = 1 << 16
		defer func() { denseLimit = old }()
		dir := t.TempDir()
		files := map[string]string{"train.csv": tr, "proportions.csv": pr}
		if te != "" {
			files["test.csv"] = te
		}
		for n, body := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte(body), 0o644))
		}
		train, test, err := ReadBagOnly("bags:" + dir)
		if err != nil {
			return
		}
		fuzzBagOnly(t, train, test)
	})
}

func FuzzParquet(f *testing.F) {
	good := parquetBytes(f, ParquetColumn{"x", []float64{1, 2}}, ParquetColumn{"c", []string{"a", "b"}}, ParquetColumn{"label", []int64{0, 1}})
	addTruncations(f, good)
	for _, n := range []int{len(good) - 8, len(good) - 20, len(good) - 60} {
		if n > 0 {
			bad := append([]byte(nil), good...)
			bad[n] ^= 0xff
			f.Add(bad)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		old := denseLimit
		denseLimit = 1 << 16
		defer func() { denseLimit = old }()
		d, err := ReadParquet(bytes.NewReader(b), int64(len(b)), "fuzz.parquet", TabularOptions{})
		if err != nil {
			return
		}
		require.NoError(t, d.Validate())
	})
}
