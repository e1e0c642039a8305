// Package npy writes NumPy's .npy format (version 1.0): the magic, a header
// dict ({'descr', 'fortran_order', 'shape'}) padded to a multiple of 64
// bytes, then the raw little-endian values in C order. Reading .npy and
// .npz files is left to codeberg.org/sbinet/npyio; its writer takes N-d
// arrays only as nested Go slices, walked value by value by reflection
// (writing a VGG16 state dict took minutes), so writing from a flat buffer
// with a shape is done here.
package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// header returns the .npy preamble for an array of the given dtype
// descriptor ("<f4", "<i8") and shape.
func header(descr string, shape []int) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	s := strings.Join(dims, ", ")
	if len(dims) == 1 {
		s += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, s)
	pad := (64 - (10+len(h)+1)%64) % 64
	h += strings.Repeat(" ", pad) + "\n"
	return append([]byte("\x93NUMPY\x01\x00"), append([]byte{byte(len(h)), byte(len(h) >> 8)}, h...)...)
}

// WriteFloat32 writes data, a float32 array of the given shape in C order
// (prod(shape) values; an empty shape is a scalar of one value).
func WriteFloat32(w io.Writer, shape []int, data []float32) error {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if n != len(data) {
		return fmt.Errorf("npy: %d values for shape %v", len(data), shape)
	}
	if _, err := w.Write(header("<f4", shape)); err != nil {
		return err
	}
	buf := make([]byte, 4*min(len(data), 1<<16))
	for start := 0; start < len(data); start += len(buf) / 4 {
		part := data[start:min(start+len(buf)/4, len(data))]
		for i, v := range part {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(buf[:4*len(part)]); err != nil {
			return err
		}
	}
	return nil
}

// WriteInt64Scalar writes a 0-d int64 array holding v.
func WriteInt64Scalar(w io.Writer, v int64) error {
	if _, err := w.Write(header("<i8", nil)); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, v)
}
