package data

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// MAT-file level 5 data types (MATLAB "MAT-File Format", Table 1-1).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
)

// MAT-file array classes (the low byte of the array flags).
const (
	mxDOUBLE = 6
	mxSINGLE = 7
	mxINT8   = 8
	mxUINT8  = 9
	mxINT16  = 10
	mxUINT16 = 11
	mxINT32  = 12
	mxUINT32 = 13
	mxINT64  = 14
	mxUINT64 = 15
)

const matComplexFlag = 0x0800

// matElemSize is the byte size of one value of each numeric data type.
var matElemSize = map[uint32]int{
	miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
	miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8,
}

// MATArray is one real numeric array of a MAT-file: its name, MATLAB class,
// dimensions (column-major, as MATLAB stores them) and values.
type MATArray struct {
	Name  string
	Class int // mxDOUBLE_CLASS = 6, mxUINT8_CLASS = 9, …
	Dims  []int
	typ   uint32 // the storage data type of the values (may be narrower than Class)
	order binary.ByteOrder
	raw   []byte
}

// Len returns the number of values, the product of Dims.
func (a *MATArray) Len() int { return len(a.raw) / matElemSize[a.typ] }

// At returns value i (column-major order) as a float64.
func (a *MATArray) At(i int) float64 {
	switch a.typ {
	case miINT8:
		return float64(int8(a.raw[i]))
	case miUINT8:
		return float64(a.raw[i])
	case miINT16:
		return float64(int16(a.order.Uint16(a.raw[2*i:])))
	case miUINT16:
		return float64(a.order.Uint16(a.raw[2*i:]))
	case miINT32:
		return float64(int32(a.order.Uint32(a.raw[4*i:])))
	case miUINT32:
		return float64(a.order.Uint32(a.raw[4*i:]))
	case miSINGLE:
		return float64(math.Float32frombits(a.order.Uint32(a.raw[4*i:])))
	case miDOUBLE:
		return math.Float64frombits(a.order.Uint64(a.raw[8*i:]))
	case miINT64:
		return float64(int64(a.order.Uint64(a.raw[8*i:])))
	case miUINT64:
		return float64(a.order.Uint64(a.raw[8*i:]))
	}
	return math.NaN()
}

// matParser walks the data elements of a MAT-file held in memory. base is
// the offset of buf[0] in the file and where describes the stream (the file
// or a decompressed element) for error messages.
type matParser struct {
	name  string
	order binary.ByteOrder
}

func (p *matParser) errf(where string, off int64, format string, args ...any) error {
	return fmt.Errorf("%s: %sbyte %d: %s", p.name, where, off, fmt.Sprintf(format, args...))
}

// tag reads the data element tag at buf[pos:], handling the small data
// element format (data packed in the tag's second word). It returns the
// type, the data and the position of the next element (8-byte aligned).
func (p *matParser) tag(buf []byte, pos int, where string, base int64) (typ uint32, data []byte, next int, err error) {
	if len(buf)-pos < 8 {
		return 0, nil, 0, p.errf(where, base+int64(pos), "truncated data element tag: %d of 8 bytes", len(buf)-pos)
	}
	w := p.order.Uint32(buf[pos:])
	if w>>16 != 0 { // small data element: 2-byte size, 2-byte type, ≤ 4 bytes data
		typ, n := w&0xffff, int(w>>16)
		if n > 4 {
			return 0, nil, 0, p.errf(where, base+int64(pos), "small data element declares %d bytes, want ≤ 4", n)
		}
		return typ, buf[pos+4 : pos+4+n], pos + 8, nil
	}
	n := p.order.Uint32(buf[pos+4:])
	if uint64(n) > uint64(len(buf)-pos-8) {
		return 0, nil, 0, p.errf(where, base+int64(pos), "truncated data element: type %d declares %d bytes, %d remain", w, n, len(buf)-pos-8)
	}
	end := pos + 8 + int(n)
	next = end
	if w != miCOMPRESSED {
		next = (end + 7) &^ 7
		if next > len(buf) {
			next = len(buf)
		}
	}
	return w, buf[pos+8 : end], next, nil
}

// matrix decodes the body of an miMATRIX element. It returns nil (no error)
// for arrays that are not real numeric arrays (cells, structs, sparse, …),
// which the readers here never need.
func (p *matParser) matrix(body []byte, where string, base int64) (*MATArray, error) {
	pos := 0
	sub := func(what string, want uint32) ([]byte, error) {
		typ, data, next, err := p.tag(body, pos, where, base)
		if err != nil {
			return nil, err
		}
		if want != 0 && typ != want {
			return nil, p.errf(where, base+int64(pos), "%s element has type %d, want %d", what, typ, want)
		}
		pos = next
		return data, nil
	}
	flags, err := sub("array flags", miUINT32)
	if err != nil {
		return nil, err
	}
	if len(flags) != 8 {
		return nil, p.errf(where, base, "array flags are %d bytes, want 8", len(flags))
	}
	fw := p.order.Uint32(flags)
	class := int(fw & 0xff)
	if class < mxDOUBLE || class > mxUINT64 {
		return nil, nil // not a numeric array
	}
	if fw&matComplexFlag != 0 {
		return nil, p.errf(where, base, "complex arrays are not supported")
	}
	dimsPos := pos
	dimsRaw, err := sub("dimensions", miINT32)
	if err != nil {
		return nil, err
	}
	if len(dimsRaw) < 8 || len(dimsRaw)%4 != 0 {
		return nil, p.errf(where, base+int64(dimsPos), "dimensions element has %d bytes, want a multiple of 4 and ≥ 8", len(dimsRaw))
	}
	dims := make([]int, len(dimsRaw)/4)
	total := int64(1)
	for i := range dims {
		d := int32(p.order.Uint32(dimsRaw[4*i:]))
		if d < 0 {
			return nil, p.errf(where, base+int64(dimsPos), "dimension %d is %d, want ≥ 0", i, d)
		}
		dims[i] = int(d)
		if d > 0 && total > maxElements/int64(d) {
			return nil, p.errf(where, base+int64(dimsPos), "dimensions %v declare more than %d elements", dims[:i+1], int64(maxElements))
		}
		total *= int64(d)
	}
	nameRaw, err := sub("array name", miINT8)
	if err != nil {
		return nil, err
	}
	realPos := pos
	typ, data, _, err := p.tag(body, pos, where, base)
	if err != nil {
		return nil, err
	}
	size, ok := matElemSize[typ]
	if !ok {
		return nil, p.errf(where, base+int64(realPos), "array %q: values have data type %d, want a numeric type", nameRaw, typ)
	}
	if int64(len(data)) != total*int64(size) {
		return nil, p.errf(where, base+int64(realPos), "array %q: dimensions %v need %d values of %d bytes, element has %d bytes", nameRaw, dims, total, size, len(data))
	}
	return &MATArray{Name: string(nameRaw), Class: class, Dims: dims, typ: typ, order: p.order, raw: data}, nil
}

// ReadMAT decodes the real numeric arrays of a MATLAB level-5 MAT-file
// (MATLAB "MAT-File Format", R2019b): a 128-byte header (descriptive text
// starting "MATLAB", version 0x0100, endian indicator "IM" or "MI"), then
// data elements, each either miMATRIX or miCOMPRESSED (a zlib stream holding
// one miMATRIX). Arrays that are not real numeric arrays are skipped. Errors
// name the file and the byte offset, and for compressed elements the offset
// within the decompressed data.
func ReadMAT(r io.Reader, name string) (map[string]*MATArray, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var hdr [128]byte
	if n, err := io.ReadFull(br, hdr[:]); err != nil {
		return nil, fmt.Errorf("%s: byte %d: truncated MAT-file header: %d of 128 bytes", name, n, n)
	}
	if !bytes.HasPrefix(hdr[:], []byte("MATLAB")) {
		return nil, fmt.Errorf("%s: byte 0: MAT-file header text does not start with \"MATLAB\" (not a level-5 MAT-file?)", name)
	}
	p := &matParser{name: name}
	switch string(hdr[126:128]) {
	case "IM":
		p.order = binary.LittleEndian
	case "MI":
		p.order = binary.BigEndian
	default:
		return nil, fmt.Errorf("%s: byte 126: MAT-file endian indicator %q, want \"IM\" or \"MI\"", name, hdr[126:128])
	}
	if v := p.order.Uint16(hdr[124:]); v != 0x0100 {
		return nil, fmt.Errorf("%s: byte 124: MAT-file version 0x%04x, want 0x0100 (level 5; v7.3 HDF5 files are not supported)", name, v)
	}
	arrays := map[string]*MATArray{}
	off := int64(128)
	for {
		var tag [8]byte
		n, err := io.ReadFull(br, tag[:])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: truncated data element tag: %d of 8 bytes", name, off+int64(n), n)
		}
		typ := p.order.Uint32(tag[:])
		if typ>>16 != 0 { // a small data element at top level carries nothing we need
			off += 8
			continue
		}
		size := int64(p.order.Uint32(tag[4:]))
		body, err := io.ReadAll(io.LimitReader(br, size))
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: %w", name, off+8+int64(len(body)), err)
		}
		if int64(len(body)) < size {
			return nil, fmt.Errorf("%s: byte %d: truncated data element (type %d): declares %d bytes, file has %d", name, off+8+int64(len(body)), typ, size, len(body))
		}
		var a *MATArray
		switch typ {
		case miMATRIX:
			a, err = p.matrix(body, "", off+8)
		case miCOMPRESSED:
			a, err = p.compressed(body, off)
		}
		if err != nil {
			return nil, err
		}
		if a != nil {
			if _, dup := arrays[a.Name]; dup {
				return nil, fmt.Errorf("%s: byte %d: array %q appears twice", name, off, a.Name)
			}
			arrays[a.Name] = a
		}
		off += 8 + size
		if typ != miCOMPRESSED && size%8 != 0 { // uncompressed elements are padded to 8 bytes
			pad := 8 - size%8
			if k, _ := io.CopyN(io.Discard, br, pad); k != pad {
				break
			}
			off += pad
		}
	}
	return arrays, nil
}

// compressed inflates an miCOMPRESSED element's zlib stream (at file offset
// off) and decodes the miMATRIX inside it.
func (p *matParser) compressed(body []byte, off int64) (*MATArray, error) {
	zr, err := zlib.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: byte %d: compressed element: %w", p.name, off+8, err)
	}
	// Pre-size the output from the inner tag's declared size, bounded by the
	// most deflate can expand this many bytes (1032:1), so a lying tag cannot
	// make a small file allocate much.
	var buf bytes.Buffer
	var head [8]byte
	if n, err := io.ReadFull(zr, head[:]); err == nil {
		declared := int64(p.order.Uint32(head[4:])) + 8
		buf.Grow(int(min(declared, 1032*int64(len(body))+64, 1<<31)))
		buf.Write(head[:])
	} else {
		buf.Write(head[:n])
	}
	_, err = buf.ReadFrom(zr)
	plain := buf.Bytes()
	if err != nil {
		return nil, fmt.Errorf("%s: byte %d: compressed element: after %d decompressed bytes: %w", p.name, off+8, len(plain), err)
	}
	where := fmt.Sprintf("compressed element at byte %d, decompressed ", off)
	typ, data, _, err := p.tag(plain, 0, where, 0)
	if err != nil {
		return nil, err
	}
	if typ != miMATRIX {
		return nil, nil
	}
	return p.matrix(data, where, 8)
}

// ReadMATFile reads the MAT-file at path.
func ReadMATFile(path string) (map[string]*MATArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadMAT(f, path)
}

// ReadSVHN decodes an SVHN cropped-digits file (train_32x32.mat,
// test_32x32.mat): a uint8 array X of shape 32×32×3×N (row, column, channel,
// image; column-major) and a label array y of N values (double or integer
// class, shape N×1 or 1×N) in 1…10, where 10 means the digit 0. The result
// holds N 3×32×32 images in C×H×W order and labels 0…9 (the digit).
func ReadSVHN(r io.Reader, name string) (*Dataset, error) {
	arrays, err := ReadMAT(r, name)
	if err != nil {
		return nil, err
	}
	x, y := arrays["X"], arrays["y"]
	if x == nil || y == nil {
		return nil, fmt.Errorf("%s: SVHN file needs arrays X and y, has %v", name, matNames(arrays))
	}
	if len(x.Dims) == 3 { // MATLAB drops a trailing singleton dimension: one image
		x.Dims = append(x.Dims, 1)
	}
	if x.Class != mxUINT8 || x.typ != miUINT8 || len(x.Dims) != 4 || x.Dims[0] != 32 || x.Dims[1] != 32 || x.Dims[2] != 3 {
		return nil, fmt.Errorf("%s: SVHN array X is class %d stored as data type %d with dimensions %v, want uint8 (class 9, data type 2) 32×32×3×N", name, x.Class, x.typ, x.Dims)
	}
	n := x.Dims[3]
	if y.Len() != n || len(y.Dims) != 2 || (y.Dims[0] != 1 && y.Dims[1] != 1) {
		return nil, fmt.Errorf("%s: SVHN array y has dimensions %v, want %d×1 to match X's %d images", name, y.Dims, n, n)
	}
	ds := &Dataset{Name: "svhn", N: n, D: 3 * 32 * 32, NumClasses: 10, Channels: 3, Height: 32, Width: 32,
		X: make([]float32, n*3*32*32), Y: make([]int, n)}
	for i := 0; i < n; i++ {
		v := y.At(i)
		if v != math.Trunc(v) || v < 1 || v > 10 {
			return nil, fmt.Errorf("%s: SVHN label y(%d) is %v, want an integer 1…10 (10 means digit 0)", name, i+1, v)
		}
		ds.Y[i] = int(v) % 10
	}
	// MATLAB X(h, w, c, i) is at h + 32w + 1024c + 3072i (column-major); we
	// want row i of ds.X at c·1024 + h·32 + w.
	for i := 0; i < n; i++ {
		img := ds.X[i*3072 : (i+1)*3072]
		for c := 0; c < 3; c++ {
			for h := 0; h < 32; h++ {
				for w := 0; w < 32; w++ {
					img[c*1024+h*32+w] = pixelScale[x.raw[h+32*w+1024*c+3072*i]]
				}
			}
		}
	}
	return ds, nil
}

// ReadSVHNFile reads the SVHN file at path.
func ReadSVHNFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSVHN(f, path)
}

func matNames(m map[string]*MATArray) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}
