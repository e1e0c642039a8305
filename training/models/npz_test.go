package models

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readNPYByHand parses a .npy member the way NumPy's format document
// describes it (magic, version, little-endian header length, a Python
// dict with descr, fortran_order and shape, then the raw data): an
// independent reader for the archives WriteNPZ makes.
func readNPYByHand(t *testing.T, b []byte) (descr string, shape []int, data []byte) {
	require.True(t, bytes.HasPrefix(b, []byte("\x93NUMPY")), "magic")
	var hlen, off int
	switch b[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:10])), 10
	default:
		hlen, off = int(binary.LittleEndian.Uint32(b[8:12])), 12
	}
	h := string(b[off : off+hlen])
	require.Contains(t, h, "'fortran_order': False")
	descr = regexp.MustCompile(`'descr': '([^']+)'`).FindStringSubmatch(h)[1]
	dims := regexp.MustCompile(`'shape': \(([^)]*)\)`).FindStringSubmatch(h)[1]
	for _, s := range strings.Split(dims, ",") {
		if s = strings.TrimSpace(s); s != "" {
			n, err := strconv.Atoi(s)
			require.NoError(t, err)
			shape = append(shape, n)
		}
	}
	return descr, shape, b[off+hlen:]
}

// TestWriteNPZReadByHand: every array of a WRN-16-4 state dict written by
// WriteNPZ is read back by a hand-written .npy parser with its key, order,
// shape, type and every value; and ReadNPZ gives the state dict back.
func TestWriteNPZReadByHand(t *testing.T) {
	_, m, _ := buildFor(t, ModelWRN164, 3, 32, 10, 1)
	sd, err := StateDict(m)
	require.NoError(t, err)
	*sd[len(sd)-3].Count = 7 // the last batch norm's num_batches_tracked
	var buf bytes.Buffer
	require.NoError(t, WriteNPZ(&buf, sd))
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	require.NoError(t, err)
	require.Len(t, zr.File, len(sd))
	for i, f := range zr.File {
		want := sd[i]
		assert.Equal(t, want.Name+".npy", f.Name, "member %d", i)
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		descr, shape, data := readNPYByHand(t, b)
		if want.Count != nil {
			assert.Equal(t, "<i8", descr)
			assert.Empty(t, shape)
			assert.Equal(t, *want.Count, int64(binary.LittleEndian.Uint64(data)), want.Name)
			continue
		}
		assert.Equal(t, "<f4", descr, want.Name)
		assert.Equal(t, want.Shape, shape, want.Name)
		require.Len(t, data, 4*len(want.Data), want.Name)
		for j, v := range want.Data {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*j:])); got != v {
				t.Fatalf("%s[%d] = %v, want %v", want.Name, j, got, v)
			}
		}
	}
	back, err := ReadNPZBytes(buf.Bytes())
	require.NoError(t, err)
	assert.Equal(t, sd, back)
}

// TestReadNPZRefuses an archive of another element type, naming the key
// and what it wants.
func TestReadNPZRefuses(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteNPZ(&buf, []StateTensor{{Name: "a", Shape: []int{2}, Data: []float32{1, 2}}}))
	_, err := ReadNPZBytes(buf.Bytes())
	require.NoError(t, err)
	_, err = ReadNPZBytes(buf.Bytes()[:buf.Len()/2])
	assert.Error(t, err, "a truncated archive")
	assert.ErrorContains(t, WriteNPZ(io.Discard, []StateTensor{{Name: "b", Shape: []int{3}, Data: []float32{1}}}), "b has 1 values for shape [3]")
}
