package data

import (
	"bytes"
	"testing"
)

func TestReadIDXRoundTrip(t *testing.T) {
	payload := make([]byte, 3*4*5)
	for i := range payload {
		payload[i] = byte(i * 4)
	}
	for _, gz := range []bool{false, true} {
		b := idxBytes(t, []int{3, 4, 5}, payload, gz)
		got, err := ReadIDX(bytes.NewReader(b), "t.idx")
		if err != nil {
			t.Fatalf("gz=%v: %v", gz, err)
		}
		if len(got.Dims) != 3 || got.Dims[0] != 3 || got.Dims[1] != 4 || got.Dims[2] != 5 {
			t.Errorf("gz=%v: dims %v, want [3 4 5]", gz, got.Dims)
		}
		if !bytes.Equal(got.Data, payload) {
			t.Errorf("gz=%v: data differ", gz)
		}
	}
}

func TestIDXDatasetValues(t *testing.T) {
	// Two 2×3 images; pixel value v must become v/255, layout kept row-major.
	img := []byte{0, 255, 51, 102, 153, 204, 1, 2, 3, 4, 5, 6}
	im, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{2, 2, 3}, img, true)), "im")
	lb, _ := ReadIDX(bytes.NewReader(idxBytes(t, []int{2}, []byte{1, 26}, false)), "lb")
	d, err := IDXDataset("emnist-letters", im, "im", lb, "lb", 1, 26)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 2 || d.D != 6 || d.Channels != 1 || d.Height != 2 || d.Width != 3 || d.NumClasses != 26 {
		t.Fatalf("shape N=%d D=%d C=%d H=%d W=%d K=%d", d.N, d.D, d.Channels, d.Height, d.Width, d.NumClasses)
	}
	for i, v := range img {
		if want := float32(v) / 255; d.X[i] != want {
			t.Errorf("X[%d] = %v, want %v", i, d.X[i], want)
		}
	}
	if d.Y[0] != 0 || d.Y[1] != 25 {
		t.Errorf("labels %v, want [0 25] (EMNIST 1…26 → 0…25)", d.Y)
	}
	if err := d.Validate(); err != nil {
		t.Error(err)
	}
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
