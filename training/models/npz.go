package models

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npz"
)

// WriteNPZ writes a state dict as a NumPy .npz archive, one member
// "KEY.npy" per key in the order given (numpy.savez's layout): float32
// arrays of the entries' shapes in C order and an int64 scalar for each
// num_batches_tracked, so that
//
//	sd = {k: torch.from_numpy(v) for k, v in np.load(F).items()}
//
// is what model.load_state_dict takes. The .npy members are written here
// (format 1.0: the magic, a header dict padded to 64 bytes, the raw
// little-endian values) because npyio's writer takes N-d arrays only as
// nested slices, which it walks value by value by reflection: writing a
// VGG16 state dict (134M values) took minutes. ReadNPZ reads with npyio.
func WriteNPZ(w io.Writer, ts []StateTensor) error {
	zw := zip.NewWriter(w)
	for _, t := range ts {
		if t.Count == nil && prod(t.Shape) != len(t.Data) {
			zw.Close()
			return fmt.Errorf("npz: %s has %d values for shape %v", t.Name, len(t.Data), t.Shape)
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: t.Name + ".npy", Method: zip.Store})
		if err == nil {
			err = writeNPY(f, t)
		}
		if err != nil {
			zw.Close()
			return fmt.Errorf("npz: %s: %w", t.Name, err)
		}
	}
	return zw.Close()
}

// writeNPY writes one .npy array (NumPy format 1.0).
func writeNPY(w io.Writer, t StateTensor) error {
	descr, dims := "<f4", make([]string, len(t.Shape))
	if t.Count != nil {
		descr = "<i8"
	}
	for i, d := range t.Shape {
		dims[i] = strconv.Itoa(d)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	pad := 64 - (10+len(h)+1)%64
	h += strings.Repeat(" ", pad%64) + "\n"
	head := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	if _, err := w.Write(append(head, h...)); err != nil {
		return err
	}
	if t.Count != nil {
		return binary.Write(w, binary.LittleEndian, *t.Count)
	}
	buf := make([]byte, 4*min(len(t.Data), 1<<16))
	for start := 0; start < len(t.Data); start += len(buf) / 4 {
		part := t.Data[start:min(start+len(buf)/4, len(t.Data))]
		for i, v := range part {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		if _, err := w.Write(buf[:4*len(part)]); err != nil {
			return err
		}
	}
	return nil
}

// ReadNPZ reads an archive written by WriteNPZ (or by numpy.savez from a
// PyTorch state_dict of float32 tensors and int64 counters) into a state
// dict, in the archive's order.
func ReadNPZ(r io.ReaderAt, size int64) ([]StateTensor, error) {
	zr, err := npz.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	defer zr.Close()
	var out []StateTensor
	for _, member := range zr.Keys() {
		h := zr.Header(member)
		if h == nil {
			return nil, fmt.Errorf("npz: %s: no header", member)
		}
		k := strings.TrimSuffix(member, ".npy") // numpy.load's key
		shape := append([]int{}, h.Descr.Shape...)
		switch strings.Trim(h.Descr.Type, "'") {
		case "<i8":
			if len(shape) != 0 {
				return nil, fmt.Errorf("npz: %s: int64 array of shape %v, want a scalar (num_batches_tracked)", k, shape)
			}
			var c int64
			if err := zr.Read(member, &c); err != nil {
				return nil, fmt.Errorf("npz: %s: %w", k, err)
			}
			out = append(out, StateTensor{Name: k, Shape: shape, Count: &c})
		case "<f4":
			if h.Descr.Fortran {
				return nil, fmt.Errorf("npz: %s: Fortran-ordered array; save it C-ordered (np.ascontiguousarray)", k)
			}
			var d []float32
			if err := zr.Read(member, &d); err != nil {
				return nil, fmt.Errorf("npz: %s: %w", k, err)
			}
			if len(d) != prod(shape) {
				return nil, fmt.Errorf("npz: %s: %d values for shape %v", k, len(d), shape)
			}
			out = append(out, StateTensor{Name: k, Shape: shape, Data: d})
		default:
			return nil, fmt.Errorf("npz: %s: element type %s, want float32 (<f4) or, for num_batches_tracked, int64 (<i8)", k, strings.Trim(h.Descr.Type, "'"))
		}
	}
	return out, nil
}

// ReadNPZBytes is ReadNPZ on an archive held in memory.
func ReadNPZBytes(b []byte) ([]StateTensor, error) {
	return ReadNPZ(bytes.NewReader(b), int64(len(b)))
}
