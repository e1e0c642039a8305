package data

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npy"
)

// NumPy arrays (.npy files, and .npz archives of them) are read in two
// steps. The header — the magic string, the format version and the Python
// dict literal {'descr': …, 'fortran_order': …, 'shape': (…)} — is parsed
// and checked here, strictly: npyio's own header parser assumes numpy's key
// order and panics on a header without its trailing newline, and npyio
// reads a truncated array as zeros, so the header is checked before npyio
// sees it and the data's length is checked against the shape. The values
// are then decoded by npyio (codeberg.org/sbinet/npyio/npy), which handles
// both byte orders, from a canonical header of the same dtype.

// npyArray is one NumPy array as read: its shape in C order and its values
// in C (row-major) order, whatever the file's order. Exactly one of the
// value slices is set: u8 for uint8, f32 for float32, f64 for float64, i64
// for every other integer type.
type npyArray struct {
	name  string // the file, or "archive.npz, member KEY.npy", for messages
	dtype string // numpy's spelling, e.g. "<f4"
	shape []int
	u8    []uint8
	f32   []float32
	f64   []float64
	i64   []int64
}

// npyMaxHeader bounds the header dict of a .npy file: numpy writes a few
// hundred bytes (its own reader refuses headers over 10,000 bytes unless
// told otherwise).
const npyMaxHeader = 1 << 16

// npyHeader is a parsed .npy header.
type npyHeader struct {
	descr   string
	fortran bool
	shape   []int
}

// npyDtypes are the element types read: numpy's type character and size,
// and the name a message gives.
var npyDtypes = map[string]string{
	"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
	"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
	"f4": "float32", "f8": "float64",
}

// npyTypeNames names some dtypes that are not read, for the message.
var npyTypeNames = map[string]string{
	"f2": "float16", "c8": "complex64", "c16": "complex128", "b1": "bool", "O": "object (pickled Python objects)",
	"M8": "datetime64", "m8": "timedelta64", "f16": "float128", "f12": "float96",
}

// ReadNPYFile reads the .npy file at path (see readNPY).
func readNPYFile(path string) (*npyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readNPY(bufio.NewReaderSize(f, 1<<16), path, st.Size())
}

// readNPY reads one .npy array of size bytes from r. Every error names the
// array (name) and what was expected: the magic string, a header dict
// with descr, fortran_order and shape, a supported dtype (unsigned and
// signed integers of 1 to 8 bytes, float32, float64; either byte order),
// non-negative dimensions, and exactly as many data bytes as the shape
// needs. A Fortran-order array is transposed to C order.
func readNPY(r io.Reader, name string, size int64) (a *npyArray, err error) {
	defer func() {
		if p := recover(); p != nil { // npyio must not crash the reader on any input
			a, err = nil, fmt.Errorf("%s: the NumPy decoder failed (%v): the file is not a valid .npy array", name, p)
		}
	}()
	h, headerLen, err := readNPYHeader(r, name)
	if err != nil {
		return nil, err
	}
	order, code, err := npyDtype(name, h.descr)
	if err != nil {
		return nil, err
	}
	n, err := npyElements(name, h.shape)
	if err != nil {
		return nil, err
	}
	esize, _ := strconv.Atoi(code[1:])
	if want := int64(n) * int64(esize); size-headerLen != want {
		return nil, fmt.Errorf("%s: %d bytes of data, want %d for shape %s of dtype %s (the file is truncated or has trailing bytes)",
			name, size-headerLen, want, shapeString(h.shape), h.descr)
	}
	if int64(n) > denseLimit {
		return nil, fmt.Errorf("%s: shape %s holds %d values, more than the memory available allows (%d)", name, shapeString(h.shape), n, denseLimit)
	}
	a = &npyArray{name: name, dtype: h.descr, shape: h.shape}
	if err := a.decode(r, order, code, n); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if h.fortran && len(h.shape) > 1 {
		a.toCOrder()
	}
	return a, nil
}

// readNPYHeader reads and parses the magic string, version and header dict,
// and returns the header and the number of bytes it took.
func readNPYHeader(r io.Reader, name string) (npyHeader, int64, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil || string(pre[:6]) != "\x93NUMPY" {
		return npyHeader{}, 0, fmt.Errorf("%s: not a NumPy .npy array: want the magic string \\x93NUMPY at offset 0", name)
	}
	major := pre[6]
	var hlen, off int64
	switch major {
	case 1:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return npyHeader{}, 0, fmt.Errorf("%s: offset 8: truncated header length", name)
		}
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return npyHeader{}, 0, fmt.Errorf("%s: offset 8: truncated header length", name)
		}
		hlen, off = int64(binary.LittleEndian.Uint32(l[:])), 12
	default:
		return npyHeader{}, 0, fmt.Errorf("%s: offset 6: format version %d.%d, want 1.0, 2.0 or 3.0", name, major, pre[7])
	}
	if hlen > npyMaxHeader {
		return npyHeader{}, 0, fmt.Errorf("%s: offset %d: header of %d bytes, want at most %d", name, off-4, hlen, npyMaxHeader)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return npyHeader{}, 0, fmt.Errorf("%s: offset %d: header of %d bytes is truncated", name, off, hlen)
	}
	h, err := parseNPYHeader(string(buf))
	if err != nil {
		return npyHeader{}, 0, fmt.Errorf("%s: header %q: %v", name, strings.TrimSpace(string(buf)), err)
	}
	return h, off + hlen, nil
}

// parseNPYHeader parses the Python dict literal of a .npy header.
func parseNPYHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyLit{s: strings.TrimRight(s, " \n\x00")}
	if !p.eat('{') {
		return h, errors.New("want a dict {'descr': …, 'fortran_order': …, 'shape': (…)}")
	}
	seen := map[string]bool{}
	for !p.eat('}') {
		key, ok := p.str()
		if !ok || !p.eat(':') {
			return h, fmt.Errorf("at byte %d: want 'key': value", p.i)
		}
		if seen[key] {
			return h, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		switch key {
		case "descr":
			if p.peek() == '[' {
				return h, errors.New("descr is a list: structured (record) arrays are not read; save a plain numeric array")
			}
			if h.descr, ok = p.str(); !ok {
				return h, errors.New("descr: want a dtype string such as '<f4'")
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.fortran = true
			case p.word("False"):
			default:
				return h, errors.New("fortran_order: want True or False")
			}
		case "shape":
			if h.shape, ok = p.tuple(); !ok {
				return h, errors.New("shape: want a tuple of non-negative integers")
			}
		default:
			return h, fmt.Errorf("unknown key %q: want descr, fortran_order and shape", key)
		}
		if !p.eat(',') && p.peek() != '}' {
			return h, fmt.Errorf("at byte %d: want ',' or '}'", p.i)
		}
	}
	if p.skip(); p.i != len(p.s) {
		return h, fmt.Errorf("at byte %d: trailing text after the dict", p.i)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("no key %q", k)
		}
	}
	return h, nil
}

// pyLit scans the small subset of Python literals a .npy header uses.
type pyLit struct {
	s string
	i int
}

func (p *pyLit) skip() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n') {
		p.i++
	}
}

func (p *pyLit) peek() byte {
	p.skip()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyLit) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyLit) word(w string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], w) {
		p.i += len(w)
		return true
	}
	return false
}

// str reads a quoted string without escapes.
func (p *pyLit) str() (string, bool) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", false
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, !strings.ContainsRune(v, '\\')
}

// tuple reads (d0, d1, …) of non-negative integers; (n,) and () too.
func (p *pyLit) tuple() ([]int, bool) {
	if !p.eat('(') {
		return nil, false
	}
	dims := []int{}
	for !p.eat(')') {
		p.skip()
		j := p.i
		for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			j++
		}
		if j < len(p.s) && p.s[j] == 'L' { // Python 2's long suffix
			j++
		}
		v, err := strconv.Atoi(strings.TrimSuffix(p.s[p.i:j], "L"))
		if err != nil || v < 0 {
			return nil, false
		}
		dims = append(dims, v)
		p.i = j
		if !p.eat(',') && p.peek() != ')' {
			return nil, false
		}
	}
	return dims, true
}

// npyDtype checks a dtype string and returns its byte order and its type
// code without the order ("f4", "i8", …).
func npyDtype(name, descr string) (binary.ByteOrder, string, error) {
	code, order := descr, binary.ByteOrder(binary.LittleEndian)
	if len(code) > 0 && strings.ContainsRune("<>|=", rune(code[0])) {
		if code[0] == '>' {
			order = binary.BigEndian
		}
		code = code[1:]
	}
	if _, ok := npyDtypes[code]; ok {
		return order, code, nil
	}
	what := npyTypeNames[code]
	if what == "" {
		switch {
		case strings.HasPrefix(code, "U"), strings.HasPrefix(code, "S"):
			what = "strings"
		default:
			what = "an unknown type"
		}
	}
	return nil, "", fmt.Errorf("%s: dtype %q (%s) is not supported: want float32, float64 or an integer type (convert with .astype(np.float32) or .astype(np.int64))", name, descr, what)
}

// npyElements returns the number of elements of shape, refusing a product
// that overflows.
func npyElements(name string, shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d != 0 && n > math.MaxInt32*64/d {
			return 0, fmt.Errorf("%s: shape %s holds too many values", name, shapeString(shape))
		}
		n *= d
	}
	return n, nil
}

// shapeString writes a shape as numpy prints it: (3, 4), (5,), ().
func shapeString(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// decode reads n values of type code with npyio, from a canonical header
// of the same dtype (a flat C-order array of n values).
func (a *npyArray) decode(r io.Reader, order binary.ByteOrder, code string, n int) error {
	bo := "<"
	if order == binary.BigEndian {
		bo = ">"
	}
	if code == "u1" || code == "i1" {
		bo = "|"
	}
	hdr := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': False, 'shape': (%d,), }", bo, code, n)
	hdr += strings.Repeat(" ", 63-(10+len(hdr))%64) + "\n"
	head := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), byte(len(hdr)>>8))
	nr, err := npy.NewReader(io.MultiReader(bytes.NewReader(append(head, hdr...)), r))
	if err != nil {
		return err
	}
	read := func(ptr any) error {
		if n == 0 {
			return nil // npyio would allocate nothing and read nothing
		}
		return nr.Read(ptr)
	}
	switch code {
	case "u1":
		a.u8 = make([]uint8, n)
		return read(&a.u8)
	case "f4":
		a.f32 = make([]float32, n)
		return read(&a.f32)
	case "f8":
		a.f64 = make([]float64, n)
		return read(&a.f64)
	}
	a.i64 = make([]int64, n)
	switch code {
	case "i1":
		return readInts[int8](read, a.i64)
	case "i2":
		return readInts[int16](read, a.i64)
	case "i4":
		return readInts[int32](read, a.i64)
	case "i8":
		return read(&a.i64)
	case "u2":
		return readInts[uint16](read, a.i64)
	case "u4":
		return readInts[uint32](read, a.i64)
	}
	v := make([]uint64, n)
	if err := read(&v); err != nil {
		return err
	}
	for i, x := range v {
		if x > math.MaxInt64 {
			return fmt.Errorf("value %d at flat index %d does not fit an int64", x, i)
		}
		a.i64[i] = int64(x)
	}
	return nil
}

// readInts reads len(out) integers of type T and widens them into out.
func readInts[T int8 | int16 | int32 | uint16 | uint32](read func(any) error, out []int64) error {
	v := make([]T, len(out))
	if err := read(&v); err != nil {
		return err
	}
	for i, x := range v {
		out[i] = int64(x)
	}
	return nil
}

// toCOrder permutes the values of a Fortran-order (column-major) array into
// C (row-major) order.
func (a *npyArray) toCOrder() {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	perm := make([]int, n) // perm[c] = the Fortran position of C position c
	idx := make([]int, len(a.shape))
	for c := 0; c < n; c++ {
		f, stride := 0, 1
		for k := range a.shape {
			f += idx[k] * stride
			stride *= a.shape[k]
		}
		perm[c] = f
		for k := len(a.shape) - 1; k >= 0; k-- { // next C index
			if idx[k]++; idx[k] < a.shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	switch {
	case a.u8 != nil:
		a.u8 = permute(a.u8, perm)
	case a.f32 != nil:
		a.f32 = permute(a.f32, perm)
	case a.f64 != nil:
		a.f64 = permute(a.f64, perm)
	case a.i64 != nil:
		a.i64 = permute(a.i64, perm)
	}
}

func permute[T any](v []T, perm []int) []T {
	out := make([]T, len(v))
	for c, f := range perm {
		out[c] = v[f]
	}
	return out
}

// len returns the number of values.
func (a *npyArray) len() int {
	switch {
	case a.u8 != nil:
		return len(a.u8)
	case a.f32 != nil:
		return len(a.f32)
	case a.f64 != nil:
		return len(a.f64)
	}
	return len(a.i64)
}

// isInt reports whether the array holds integers.
func (a *npyArray) isInt() bool { return a.u8 != nil || a.i64 != nil }

// float returns value i as a float64 (exactly, for every dtype but the
// integers beyond 2^53).
func (a *npyArray) float(i int) float64 {
	switch {
	case a.u8 != nil:
		return float64(a.u8[i])
	case a.f32 != nil:
		return float64(a.f32[i])
	case a.f64 != nil:
		return a.f64[i]
	}
	return float64(a.i64[i])
}

// int returns value i of an integer array.
func (a *npyArray) int(i int) int64 {
	if a.u8 != nil {
		return int64(a.u8[i])
	}
	return a.i64[i]
}

// npzMaxRatio bounds the compression ratio of an .npz member: deflate
// cannot exceed about 1032:1, so a member claiming more is damaged (or a
// zip bomb) and is refused before anything is allocated.
const npzMaxRatio = 1100

// npzArchive is an opened .npz file: numpy.savez (stored) or
// numpy.savez_compressed (deflate) members KEY.npy.
type npzArchive struct {
	name    string
	members map[string]*zip.File
}

// openNPZ opens the .npz archive in r (size bytes) and lists its members.
func openNPZ(r io.ReaderAt, size int64, name string) (*npzArchive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: not a NumPy .npz archive (a zip file of .npy arrays): %v", name, err)
	}
	z := &npzArchive{name: name, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		key := strings.TrimSuffix(f.Name, ".npy")
		if key == f.Name || strings.Contains(key, "/") {
			return nil, fmt.Errorf("%s: member %q is not a KEY.npy array (numpy.savez writes only those)", name, f.Name)
		}
		if _, dup := z.members[key]; dup {
			return nil, fmt.Errorf("%s: member %q twice", name, f.Name)
		}
		z.members[key] = f
	}
	return z, nil
}

// keys lists the archive's arrays, sorted.
func (z *npzArchive) keys() []string {
	out := make([]string, 0, len(z.members))
	for k := range z.members {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// read reads the member KEY.npy.
func (z *npzArchive) read(key string) (*npyArray, error) {
	f := z.members[key]
	name := fmt.Sprintf("%s, array %s", z.name, key)
	if f.UncompressedSize64 > uint64(f.CompressedSize64)*npzMaxRatio+1<<20 || f.UncompressedSize64 > math.MaxInt64/2 {
		return nil, fmt.Errorf("%s: claims %d bytes from %d compressed: the archive is damaged", name, f.UncompressedSize64, f.CompressedSize64)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	defer rc.Close()
	a, err := readNPY(bufio.NewReaderSize(rc, 1<<16), name, int64(f.UncompressedSize64))
	if err != nil {
		return nil, err
	}
	// Reading to the end lets archive/zip check the member's CRC-32.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return a, nil
}

// npySource is where the arrays of a NumPy data set live: an .npz archive
// or a directory of .npy files.
type npySource struct {
	name string
	npz  *npzArchive
	dir  string
}

// openNPYSource opens path: a .npz file or a directory of .npy files.
func openNPYSource(path string) (*npySource, func(), error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		return &npySource{name: path, dir: path}, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	z, err := openNPZ(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &npySource{name: path, npz: z}, func() { f.Close() }, nil
}

// keys are the names of the source's arrays: an archive's members, or a
// directory's .npy files as the directory lists them (never by Stat, which
// on a case-insensitive file system finds X.npy under x.npy too).
func (s *npySource) keys() []string {
	if s.npz != nil {
		return s.npz.keys()
	}
	var keys []string
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".npy") && e.Type().IsRegular() {
			keys = append(keys, strings.TrimSuffix(n, ".npy"))
		}
	}
	return keys
}

// find returns the one array of a role (its accepted names, keys) the
// source holds, or "" when it holds none. Two arrays of one role (X and x,
// bag and bags, test_X and X_test) are an error naming both (one of them
// was once silently ignored).
func (s *npySource) find(role string, keys ...string) (string, error) {
	held := map[string]bool{}
	for _, k := range s.keys() {
		held[k] = true
	}
	var found []string
	for _, k := range keys {
		if held[k] {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s: arrays %q and %q are both %s: which one to read is ambiguous; keep one (names accepted for it: %s)",
		s.name, found[0], found[1], role, strings.Join(keys, ", "))
}

// read reads the array key.
func (s *npySource) read(key string) (*npyArray, error) {
	if s.npz != nil {
		return s.npz.read(key)
	}
	return readNPYFile(filepath.Join(s.dir, key+".npy"))
}

// list names the source's arrays for messages.
func (s *npySource) list() string {
	keys := s.keys()
	if len(keys) == 0 {
		return "no arrays"
	}
	return "arrays " + strings.Join(keys, ", ")
}
