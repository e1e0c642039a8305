package data

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Parquet files are read with github.com/parquet-go/parquet-go (pure Go,
// no cgo). It was chosen over github.com/apache/arrow-go/v18's pqarrow,
// which reads the same files equally well and is also pure Go, because
// arrow-go is about three times the code to compile (a cold build of a
// one-file reader took 2 min 32 s here against 45 s, on the 2 cores this
// project is built and tested on), makes a 50 MB binary against 18 MB, and
// would hand us Arrow tables to convert again, while parquet-go's pages of
// typed values map directly onto the columns of a table.

// parquetOptions are the file options: no page index and no bloom
// filters, which a reader of whole columns does not need.
var parquetOptions = []parquet.FileOption{parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true)}

// parquetKind is how a Parquet column is read.
type parquetKind int

const (
	parquetNumber parquetKind = iota
	parquetUnsigned
	parquetText
)

// readParquetTable reads every column of a Parquet file into a table: the
// numeric physical types (INT32, INT64, FLOAT, DOUBLE; unsigned integer
// logical types honoured) as numbers, BOOLEAN and byte arrays (STRING,
// ENUM, binary) as text. The columns text(…) names are read as text
// whatever their type (a number written in Go's shortest form). Every
// top-level field must be a plain column (no groups or lists) and no
// value may be null: a missing value is an error naming its row, never
// dropped. Decimal, date and time columns are refused (cast them to
// float64 or int64 before writing).
func readParquetTable(r io.ReaderAt, size int64, name string, na naRule, text csvTextColumns) (t *table, err error) {
	defer func() {
		if p := recover(); p != nil { // a damaged file must not crash the reader
			t, err = nil, fmt.Errorf("%s: the Parquet decoder failed (%v): the file is damaged or not a Parquet file", name, p)
		}
	}()
	if err := checkParquetFrame(r, size, name); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(r, size, parquetOptions...)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Parquet file: %v", name, err)
	}
	fields := f.Schema().Fields()
	if len(fields) == 0 {
		return nil, fmt.Errorf("%s: no columns", name)
	}
	rows := f.NumRows()
	if rows < 0 || rows*int64(len(fields)) > denseLimit {
		return nil, fmt.Errorf("%s: %d rows × %d columns is more than the memory available allows", name, rows, len(fields))
	}
	t = &table{name: name, parquet: true, header: true, rows: int(rows), na: na}
	kinds := make([]parquetKind, len(fields))
	for j, fld := range fields {
		t.names = append(t.names, fld.Name())
		if kinds[j], err = parquetColumnKind(name, fld); err != nil {
			return nil, err
		}
	}
	if err := t.checkHeader(); err != nil {
		return nil, err
	}
	isText, err := text(t.names, len(fields))
	if err != nil {
		return nil, err
	}
	for j := range fields {
		if kinds[j] == parquetText && isText[j] == asNumber {
			return nil, fmt.Errorf("%s: column %q holds text (%v), want numbers", name, t.names[j], fields[j].Type())
		}
		c := &tcol{text: kinds[j] == parquetText || isText[j] == asText, firstRow: 0}
		t.cols = append(t.cols, c)
	}
	for _, rg := range f.RowGroups() {
		chunks := rg.ColumnChunks()
		if len(chunks) != len(fields) {
			return nil, fmt.Errorf("%s: a row group has %d column chunks for %d columns", name, len(chunks), len(fields))
		}
		for j, cc := range chunks {
			if err := t.readChunk(j, cc, kinds[j]); err != nil {
				return nil, err
			}
		}
	}
	for j, c := range t.cols {
		if n := len(c.num) + len(c.str); n != t.rows {
			return nil, fmt.Errorf("%s: column %q has %d values for %d rows", name, t.names[j], n, t.rows)
		}
		if t.rows > 0 {
			c.firstText = c.value(0)
		}
	}
	return t, nil
}

// checkParquetFrame checks the magic "PAR1" at both ends and that the
// footer's length fits in the file, before parquet-go reads the footer (it
// allocates the length it is told).
func checkParquetFrame(r io.ReaderAt, size int64, name string) error {
	var head, tail [8]byte
	if size < 12 {
		return fmt.Errorf("%s: not a readable Parquet file: %d bytes, want the magic PAR1 at both ends and a footer", name, size)
	}
	if _, err := r.ReadAt(head[:4], 0); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	if string(head[:4]) != "PAR1" || string(tail[4:]) != "PAR1" {
		return fmt.Errorf("%s: not a readable Parquet file: want the magic PAR1 at both ends", name)
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); n > size-12 {
		return fmt.Errorf("%s: not a readable Parquet file: a footer of %d bytes in a file of %d (damaged or truncated)", name, n, size)
	}
	return nil
}

// parquetColumnKind returns how field is read, or an error for a field that
// is not a plain column of a supported type.
func parquetColumnKind(name string, fld parquet.Field) (parquetKind, error) {
	switch {
	case !fld.Leaf():
		return 0, fmt.Errorf("%s: column %q is a group or list (%v): want plain columns, one value per row", name, fld.Name(), fld.Type())
	case fld.Repeated():
		return 0, fmt.Errorf("%s: column %q is repeated: want plain columns, one value per row", name, fld.Name())
	}
	typ := fld.Type()
	logical := ""
	if lt := typ.LogicalType(); lt != nil {
		logical = lt.String()
	}
	switch {
	case logical == "STRING" || logical == "ENUM" || logical == "UUID" || logical == "JSON":
		return parquetText, nil
	case strings.HasPrefix(logical, "INT("):
		if strings.HasSuffix(logical, ",false)") {
			return parquetUnsigned, nil
		}
		return parquetNumber, nil
	case logical != "":
		return 0, fmt.Errorf("%s: column %q has logical type %s, which is not read: cast it to float64, int64 or string before writing", name, fld.Name(), logical)
	}
	switch typ.Kind() {
	case parquet.Boolean, parquet.ByteArray, parquet.FixedLenByteArray:
		return parquetText, nil
	case parquet.Int32, parquet.Int64, parquet.Float, parquet.Double:
		return parquetNumber, nil
	}
	return 0, fmt.Errorf("%s: column %q has type %v, which is not read: want an integer, float, boolean or string column", name, fld.Name(), typ)
}

// readChunk appends the values of one column chunk to column j.
func (t *table) readChunk(j int, cc parquet.ColumnChunk, kind parquetKind) error {
	pages := cc.Pages()
	defer pages.Close()
	c := t.cols[j]
	buf := make([]parquet.Value, 1024)
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: column %q: %v", t.name, t.names[j], err)
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				if err := c.add(t, j, v, kind); err != nil {
					return err
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: column %q: %v", t.name, t.names[j], err)
			}
			if n == 0 {
				return fmt.Errorf("%s: column %q: a page ended without its values", t.name, t.names[j])
			}
		}
	}
}

// add appends one value to column j of t.
func (c *tcol) add(t *table, j int, v parquet.Value, kind parquetKind) error {
	row := len(c.num) + len(c.str)
	if row >= t.rows {
		return fmt.Errorf("%s: column %q has more values than the file's %d rows", t.name, t.names[j], t.rows)
	}
	if v.IsNull() {
		return fmt.Errorf("%s: row %d, column %q: missing value (null): %s before writing the file (pandas: df.dropna() or df.fillna(…))", t.name, row+1, t.names[j], MissingWayOut)
	}
	var x float64
	switch v.Kind() {
	case parquet.Boolean:
		c.str = append(c.str, strconv.FormatBool(v.Boolean()))
		return nil
	case parquet.ByteArray, parquet.FixedLenByteArray:
		c.str = append(c.str, string(v.ByteArray()))
		return nil
	case parquet.Int32:
		x = float64(v.Int32())
		if kind == parquetUnsigned {
			x = float64(v.Uint32())
		}
	case parquet.Int64:
		x = float64(v.Int64())
		if kind == parquetUnsigned {
			x = float64(v.Uint64())
		}
	case parquet.Float:
		x = float64(v.Float())
	case parquet.Double:
		x = v.Double()
	default:
		return fmt.Errorf("%s: row %d, column %q: a value of type %v", t.name, row+1, t.names[j], v.Kind())
	}
	if c.text { // a numeric column read as text: bag ids, labels, declared categories
		c.str = append(c.str, strconv.FormatFloat(x, 'g', -1, 64))
		return nil
	}
	if math.IsNaN(x) && t.na.missing("NaN") { // pandas writes a missing number as NaN
		return fmt.Errorf("%s: row %d, column %q: feature NaN is a missing value: %s (pandas: df.dropna(subset=[%q]) or df.fillna(…))", t.name, row+1, t.names[j], MissingWayOut, t.names[j])
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
		return fmt.Errorf("%s: row %d, column %q: feature %v is not a finite float32 number: write a finite value (|x| ≤ 3.4e38), or drop the row", t.name, row+1, t.names[j], x)
	}
	c.num = append(c.num, x)
	return nil
}

// ReadParquet decodes a Parquet file (size bytes from r) with one label
// column, as ReadCSV decodes a CSV file: the label column is
// TabularOptions.LabelColumn or the column named label, class, y or target;
// numeric columns are features as they are, string and boolean columns
// (and the columns TabularOptions.Categorical names) one-hot blocks.
func ReadParquet(r io.ReaderAt, size int64, name string, opt TabularOptions) (*Dataset, error) {
	labelCol := -1
	t, err := readParquetTable(r, size, name, opt.na, func(header []string, ncols int) (map[int]colMode, error) {
		if ncols < 2 {
			return nil, tooFewColumns(fmt.Sprintf("%s: %d column(s), want a label column and at least one feature", name, ncols), name, "parquet", header, ncols, opt.LabelColumn)
		}
		var text map[int]colMode
		var err error
		labelCol, text, err = labelledModes(name, "parquet", header, ncols, opt.LabelColumn, opt)
		return text, err
	})
	if err != nil {
		return nil, err
	}
	return t.labelled(labelCol, opt)
}

// ReadParquetFile reads the Parquet file at path.
func ReadParquetFile(path string, opt TabularOptions) (*Dataset, error) {
	f, size, err := openSized(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadParquet(f, size, path, opt)
}

// openSized opens a file and returns its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if st.IsDir() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a directory, want a file", path)
	}
	return f, st.Size(), nil
}
