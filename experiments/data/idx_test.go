package data

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadIDXRoundTrip(t *testing.T) {
	payload := make([]byte, 3*4*5)
	for i := range payload {
		payload[i] = byte(i * 4)
	}
	for _, gz := range []bool{false, true} {
		b := idxBytes(t, []int{3, 4, 5}, payload, gz)
		got, err := ReadIDX(bytes.NewReader(b), "t.idx")
		require.NoErrorf(t, err, "gz=%v: %v", gz, err)
		assert.Equalf(t, []int{3, 4, 5}, got.Dims, "gz=%v: dims %v, want [3 4 5]", gz, got.Dims)
		assert.Equalf(t, payload, got.Data, "gz=%v: data differ", gz)
	}
}

func TestIDXDatasetValues(t *testing.T) {
	// Two 2×3 images; pixel value v must become v/255, layout kept row-major.
	img := []byte{0, 255, 51, 102, 153, 204, 1, 2, 3, 4, 5, 6}
	im, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{2, 2, 3}, img, true)), "im")
	lb, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{2}, []byte{1, 26}, false)), "lb")
	d, err := IDXDataset("emnist-letters", im, "im", lb, "lb", 1, 26)
	require.NoError(t, err)
	shape := fmt.Sprintf("shape N=%d D=%d C=%d H=%d W=%d K=%d", d.N, d.D, d.Channels, d.Height, d.Width, d.NumClasses)
	require.Equal(t, 2, d.N, shape)
	require.Equal(t, 6, d.D, shape)
	require.Equal(t, 1, d.Channels, shape)
	require.Equal(t, 2, d.Height, shape)
	require.Equal(t, 3, d.Width, shape)
	require.Equal(t, 26, d.NumClasses, shape)
	for i, v := range img {
		want := float32(v) / 255
		assert.Equalf(t, want, d.X[i], "X[%d] = %v, want %v", i, d.X[i], want)
	}
	assert.Equalf(t, 0, d.Y[0], "labels %v, want [0 25] (EMNIST 1…26 → 0…25)", d.Y)
	assert.Equalf(t, 25, d.Y[1], "labels %v, want [0 25] (EMNIST 1…26 → 0…25)", d.Y)
	assert.NoError(t, d.Validate())
	// Label 0 is outside EMNIST's 1…26.
	lb0, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{2}, []byte{0, 3}, false)), "lb0")
	_, err = IDXDataset("emnist-letters", im, "im", lb0, "lb0", 1, 26)
	wantErr(t, err, "lb0", "byte 8", "label of image 0 is 0", "want 1…26")
	// Mismatched counts.
	lb3, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{3}, []byte{1, 2, 3}, false)), "lb3")
	_, err = IDXDataset("x", im, "im", lb3, "lb3", 0, 10)
	wantErr(t, err, "lb3", "3 labels", "2 images")
}

func TestReadIDXCorrupt(t *testing.T) {
	good := idxBytes(t, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6}, false)
	mod := func(f func([]byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		in   []byte
		want []string
	}{
		{"empty", nil, []string{"byte 0", "truncated IDX magic"}},
		{"bad magic", mod(func(b []byte) []byte { b[0] = 1; return b }), []string{"byte 0", "magic"}},
		{"bad type", mod(func(b []byte) []byte { b[2] = 0x0d; return b }), []string{"byte 2", "element type 0x0d"}},
		{"zero dims", mod(func(b []byte) []byte { b[3] = 0; return b }), []string{"byte 3", "0 dimensions"}},
		{"zero dim", mod(func(b []byte) []byte { b[7] = 0; return b }), []string{"byte 4", "dimension 0 is 0"}},
		{"huge dims", mod(func(b []byte) []byte { copy(b[4:], []byte{255, 255, 255, 255, 255, 255, 255, 255}); return b }), []string{"byte 8", "more than"}},
		{"truncated header", good[:9], []string{"byte 9", "truncated IDX header"}},
		{"truncated data", good[:len(good)-2], []string{"byte 16", "truncated IDX data", "need 6 bytes", "has 4"}},
		{"trailing", append(append([]byte(nil), good...), 9), []string{"byte 18", "trailing"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadIDX(bytes.NewReader(c.in), "f.idx")
			wantErr(t, err, append([]string{"f.idx"}, c.want...)...)
		})
	}
	// A truncated gzip stream is an error, named as the decompressed stream.
	gz := idxBytes(t, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6}, true)
	_, err := ReadIDX(bytes.NewReader(gz[:len(gz)-6]), "f.gz")
	wantErr(t, err, "f.gz (gunzipped)")
}
