package data

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCIFAR10Values(t *testing.T) {
	d, err := ReadCIFAR10(nil, bytes.NewReader(cifarBytes([]byte{3, 9})), "b1")
	require.NoError(t, err)
	d, err = ReadCIFAR10(d, bytes.NewReader(cifarBytes([]byte{0})), "b2")
	require.NoError(t, err)
	shape := fmt.Sprintf("shape N=%d D=%d %d×%d×%d", d.N, d.D, d.Channels, d.Height, d.Width)
	require.Equal(t, 3, d.N, shape)
	require.Equal(t, 3072, d.D, shape)
	require.Equal(t, 3, d.Channels, shape)
	require.Equal(t, 32, d.Height, shape)
	require.Equal(t, 32, d.Width, shape)
	want := []int{3, 9, 0}
	for i := range want {
		assert.Equalf(t, want[i], d.Y[i], "Y[%d] = %d, want %d", i, d.Y[i], want[i])
	}
	// Record i (within its batch) has byte(7i+p) at CHW position p; spot
	// check channel 2, row 5, column 7 of image 1 and image 2 (first of b2).
	p := 2*1024 + 5*32 + 7
	assert.Equalf(t, float32(byte(7+p))/255, d.X[1*3072+p], "image 1 pixel %d", p)
	assert.Equalf(t, float32(byte(p))/255, d.X[2*3072+p], "image 2 pixel %d", p)
	assert.NoError(t, d.Validate())
}

func TestReadCIFAR10Corrupt(t *testing.T) {
	good := cifarBytes([]byte{1, 2})
	bad := append([]byte(nil), good...)
	bad[3073] = 10
	cases := []struct {
		name string
		in   []byte
		want []string
	}{
		{"empty", nil, []string{"byte 0", "empty"}},
		{"truncated", good[:3073+100], []string{"byte 3173", "truncated CIFAR-10 record 1", "100 of 3073"}},
		{"label", bad, []string{"byte 3073", "record 1 has label 10"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCIFAR10(nil, bytes.NewReader(c.in), "data_batch_1.bin")
			wantErr(t, err, append([]string{"data_batch_1.bin"}, c.want...)...)
		})
	}
}
