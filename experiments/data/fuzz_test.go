package data

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fuzz targets check that no input makes a reader panic, and that every
// input a reader accepts gives a Dataset that passes Validate. Their seed
// corpora (valid files built here plus truncations of them) run in every
// `go test`; `go test -fuzz FuzzX -fuzztime 20s ./experiments/data` searches
// further.

// addTruncations adds b and several prefixes of it to the corpus.
func addTruncations(f *testing.F, b []byte) {
	f.Add(b)
	for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 16, 100, 127, 128, 129, 136, 140, len(b) / 2, len(b) - 1} {
		if n >= 0 && n < len(b) {
			f.Add(b[:n])
		}
	}
}

func FuzzIDX(f *testing.F) {
	addTruncations(f, idxBytes(f, []int{2, 2, 3}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, false))
	addTruncations(f, idxBytes(f, []int{2, 2, 3}, []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, true))
	addTruncations(f, idxBytes(f, []int{3}, []byte{1, 2, 9}, false))
	f.Fuzz(func(t *testing.T, b []byte) {
		im, err := ReadIDX(bytes.NewReader(b), "fuzz")
		if err != nil {
			return
		}
		n := 1
		for _, d := range im.Dims {
			n *= d
		}
		require.Lenf(t, im.Data, n, "dims %v but %d data bytes", im.Dims, len(im.Data))
		// Use the array as labels of itself reshaped; accepted pairs must validate.
		if len(im.Dims) == 3 {
			lb := &IDX{Dims: []int{im.Dims[0]}, Data: im.Data[:im.Dims[0]]}
			if d, err := IDXDataset("fuzz", im, "im", lb, "lb", 0, 10); err == nil {
				require.NoError(t, d.Validate())
			}
		}
	})
}

func FuzzCIFAR(f *testing.F) {
	addTruncations(f, cifarBytes([]byte{3, 9}))
	bad := cifarBytes([]byte{1})
	bad[0] = 200
	f.Add(bad)
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ReadCIFAR10(nil, bytes.NewReader(b), "fuzz")
		if err != nil {
			return
		}
		require.NoError(t, d.Validate())
	})
}

func FuzzMAT(f *testing.F) {
	addTruncations(f, matFile(binary.LittleEndian, true, svhnVars(1, miDOUBLE, []float64{10})...))
	addTruncations(f, matFile(binary.LittleEndian, false, svhnVars(1, miUINT8, []float64{3})...))
	addTruncations(f, matFile(binary.BigEndian, true, svhnVars(1, miDOUBLE, []float64{1})...))
	for _, p := range []string{"testdata/svhn_scipy_compressed.mat", "testdata/svhn_scipy_plain.mat"} {
		if b, err := os.ReadFile(p); err == nil {
			addTruncations(f, b)
		}
	}
	f.Add(matFile(binary.BigEndian, false, matVar{name: "weights", class: mxDOUBLE, dims: []int32{2, 1}, typ: miSINGLE, vals: []float64{1, 2}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		arrays, err := ReadMAT(bytes.NewReader(b), "fuzz")
		if err == nil {
			for _, a := range arrays {
				n := 1
				for _, d := range a.Dims {
					n *= d
				}
				require.Equalf(t, n, a.Len(), "array %q: dims %v but %d values", a.Name, a.Dims, a.Len())
				for i := 0; i < n && i < 64; i++ {
					_ = a.At(i)
				}
			}
		}
		d, err := ReadSVHN(bytes.NewReader(b), "fuzz")
		if err != nil {
			return
		}
		require.NoError(t, d.Validate())
	})
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"f1,f2,label\n1.5,2,3\n-1,0,1\n",
		"7,0.25,1\n2,1e2,3\n",
		"a,kind,b\n1,cat,2\n",
		"label,x\n1,\"2\"\n",
		"label,x\n1,2\n0,1,5\n",
		"label,x\n1,NaN\n",
		"\"unterminated\n",
		"",
	} {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadCSV(strings.NewReader(s), "fuzz", TabularOptions{})
		if err != nil {
			return
		}
		require.NoError(t, d.Validate())
	})
}

func FuzzLIBSVM(f *testing.F) {
	for _, s := range []string{
		"+1 1:0.5 3:-2 # c\n\n-1 2:4\n",
		"3 1:1\n5 2:1\n",
		"1 3:2 2:1\n",
		"1,2 1:2\n",
		"1 99999999:1\n",
		"# only a comment\n",
	} {
		f.Add(s)
		f.Add(s[:len(s)/2])
	}
	f.Fuzz(func(t *testing.T, s string) {
		old := denseLimit
		denseLimit = 1 << 16 // keep a tiny input from asking for gigabytes
		defer func() { denseLimit = old }()
		d, err := ReadLIBSVM(strings.NewReader(s), "fuzz", TabularOptions{})
		if err != nil {
			return
		}
		require.NoError(t, d.Validate())
	})
}
