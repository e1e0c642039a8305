package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// IDX is a decoded IDX file (the format of MNIST, Fashion-MNIST and EMNIST):
// an array of unsigned bytes with the given dimensions, in row-major order.
type IDX struct {
	Dims []int
	Data []byte
}

// idxUbyte is the IDX element type code for unsigned bytes, the only type the
// image data sets use.
const idxUbyte = 0x08

// maxElements bounds the element count a header may declare (2^34 bytes =
// 16 GiB), so that a corrupt header fails cleanly instead of overflowing.
const maxElements = 1 << 34

// openMaybeGzip returns a reader of r's content, gunzipping it when it starts
// with the gzip magic bytes 1f 8b. The returned label says which stream byte
// offsets refer to.
func openMaybeGzip(r io.Reader, name string) (io.Reader, string, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	magic, err := br.Peek(2)
	if err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, "", fmt.Errorf("%s: gzip header: %w", name, err)
		}
		return zr, name + " (gunzipped)", nil
	}
	return br, name, nil
}

// ReadIDX decodes an IDX file of unsigned bytes from r; gzip-compressed input
// is detected by its magic bytes and decompressed. name labels errors, which
// give the byte offset (in the decompressed stream for gzip input) where the
// file broke a rule: magic 00 00 08 nd, 1 ≤ nd ≤ 4 dimensions, each ≥ 1, and
// exactly ∏dims data bytes.
func ReadIDX(r io.Reader, name string) (*IDX, error) {
	rr, label, err := openMaybeGzip(r, name)
	if err != nil {
		return nil, err
	}
	var magic [4]byte
	if n, err := io.ReadFull(rr, magic[:]); err != nil {
		return nil, fmt.Errorf("%s: byte %d: truncated IDX magic number (%d of 4 bytes): %v", label, n, n, err)
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("%s: byte 0: IDX magic number starts % x, want 00 00 (not an IDX file?)", label, magic[:2])
	}
	if magic[2] != idxUbyte {
		return nil, fmt.Errorf("%s: byte 2: IDX element type 0x%02x, want 0x08 (unsigned byte)", label, magic[2])
	}
	nd := int(magic[3])
	if nd < 1 || nd > 4 {
		return nil, fmt.Errorf("%s: byte 3: IDX has %d dimensions, want 1…4", label, nd)
	}
	hdr := make([]byte, 4*nd)
	if n, err := io.ReadFull(rr, hdr); err != nil {
		return nil, fmt.Errorf("%s: byte %d: truncated IDX header: %d dimensions need %d bytes, got %d", label, 4+n, nd, 4*nd, n)
	}
	dims := make([]int, nd)
	total := int64(1)
	for i := range dims {
		v := binary.BigEndian.Uint32(hdr[4*i:])
		if v == 0 {
			return nil, fmt.Errorf("%s: byte %d: IDX dimension %d is 0, want ≥ 1", label, 4+4*i, i)
		}
		dims[i] = int(v)
		if total > maxElements/int64(v) {
			return nil, fmt.Errorf("%s: byte %d: IDX dimensions %v declare more than %d elements", label, 4+4*i, dims[:i+1], int64(maxElements))
		}
		total *= int64(v)
	}
	off := int64(4 + 4*nd)
	// Pre-size the buffer from the header, but by at most 64 MiB, so a
	// corrupt header cannot make a tiny file allocate gigabytes.
	var buf bytes.Buffer
	buf.Grow(int(min(total+bytes.MinRead, 1<<26)))
	_, err = buf.ReadFrom(io.LimitReader(rr, total))
	data := buf.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: byte %d: reading IDX data: %w", label, off+int64(len(data)), err)
	}
	if int64(len(data)) < total {
		return nil, fmt.Errorf("%s: byte %d: truncated IDX data: dimensions %v need %d bytes after the %d-byte header, file has %d", label, off+int64(len(data)), dims, total, off, len(data))
	}
	var extra [1]byte
	if n, err := rr.Read(extra[:]); n > 0 {
		return nil, fmt.Errorf("%s: byte %d: trailing bytes after the IDX data (dimensions %v)", label, off+total, dims)
	} else if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: byte %d: %w", label, off+total, err)
	}
	return &IDX{Dims: dims, Data: data}, nil
}

// ReadIDXFile reads the IDX file at path (gzip or raw).
func ReadIDXFile(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadIDX(f, path)
}

// IDXDataset pairs an image IDX (N×H×W) with a label IDX (N) into a
// Dataset of N one-channel images. Labels are shifted by −labelBase (1 for
// EMNIST letters, whose labels are 1…26; 0 otherwise) and must then lie in
// 0…numClasses−1. imagesName and labelsName label errors.
func IDXDataset(name string, images *IDX, imagesName string, labels *IDX, labelsName string, labelBase, numClasses int) (*Dataset, error) {
	if len(images.Dims) != 3 {
		return nil, fmt.Errorf("%s: image IDX has dimensions %v, want 3 (N×H×W)", imagesName, images.Dims)
	}
	if len(labels.Dims) != 1 {
		return nil, fmt.Errorf("%s: label IDX has dimensions %v, want 1 (N)", labelsName, labels.Dims)
	}
	n, h, w := images.Dims[0], images.Dims[1], images.Dims[2]
	if labels.Dims[0] != n {
		return nil, fmt.Errorf("%s: %d labels, but %s has %d images", labelsName, labels.Dims[0], imagesName, n)
	}
	y := make([]int, n)
	for i, v := range labels.Data {
		c := int(v) - labelBase
		if c < 0 || c >= numClasses {
			return nil, fmt.Errorf("%s: byte %d: label of image %d is %d, want %d…%d", labelsName, 8+i, i, v, labelBase, labelBase+numClasses-1)
		}
		y[i] = c
	}
	x := make([]float32, len(images.Data))
	for i, v := range images.Data {
		x[i] = pixelScale[v]
	}
	return &Dataset{Name: name, X: x, Y: y, N: n, D: h * w, NumClasses: numClasses, Channels: 1, Height: h, Width: w}, nil
}

// EncodeIDX writes dims and data as a raw (uncompressed) IDX file of
// unsigned bytes: the inverse of ReadIDX. It is used to build fixtures.
func EncodeIDX(w io.Writer, dims []int, data []byte) error {
	if len(dims) < 1 || len(dims) > 4 {
		return fmt.Errorf("IDX: %d dimensions, want 1…4", len(dims))
	}
	total := 1
	hdr := []byte{0, 0, idxUbyte, byte(len(dims))}
	for _, d := range dims {
		if d < 1 || int64(d) > 0xffffffff {
			return fmt.Errorf("IDX: dimension %d out of range", d)
		}
		total *= d
		hdr = binary.BigEndian.AppendUint32(hdr, uint32(d))
	}
	if total != len(data) {
		return fmt.Errorf("IDX: dimensions %v need %d bytes, have %d", dims, total, len(data))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}
