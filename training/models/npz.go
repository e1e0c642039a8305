package models

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"strings"

	"codeberg.org/sbinet/npyio/npz"
	"github.com/llpfc/llpfc/internal/npy"
)

// WriteNPZ writes a state dict as a NumPy .npz archive, one member
// "KEY.npy" per key in the order given (numpy.savez's layout): float32
// arrays of the entries' shapes in C order and an int64 scalar for each
// num_batches_tracked (internal/npy), so that
//
//	sd = {k: torch.from_numpy(v) for k, v in np.load(F).items()}
//
// is what model.load_state_dict takes. ReadNPZ reads with npyio.
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

// writeNPY writes one entry as a .npy array.
func writeNPY(w io.Writer, t StateTensor) error {
	if t.Count != nil {
		return npy.WriteInt64Scalar(w, *t.Count)
	}
	return npy.WriteFloat32(w, t.Shape, t.Data)
}

// ReadNPZ reads an archive written by WriteNPZ (or by numpy.savez from a
// PyTorch state_dict of float32 tensors and int64 counters) into a state
// dict, in the archive's order.
func ReadNPZ(r io.ReaderAt, size int64) ([]StateTensor, error) {
	zr, err := npz.NewReader(r, size)
	if err != nil {
		if strings.HasPrefix(err.Error(), "npz: ") {
			return nil, err // the reader names itself (else: "npz: npz: …")
		}
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
