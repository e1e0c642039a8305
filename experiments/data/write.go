package data

import (
	"archive/zip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// Writers of the formats the bag-only readers take, for fixtures and tests
// (and for a Go program that prepares data for llpfc): WriteNPZ writes what
// numpy.savez_compressed writes, WriteParquet a Parquet file of plain
// columns in the given order.

// NPYArray is one array of an .npz archive: its key, its shape, and its
// values in C order as exactly one of U8 (dtype uint8), I64 (int64), F32
// (float32) and F64 (float64).
type NPYArray struct {
	Key   string
	Shape []int
	U8    []uint8
	I64   []int64
	F32   []float32
	F64   []float64
}

// WriteNPZ writes arrays as a NumPy .npz archive (numpy.savez_compressed's
// layout: one deflated member KEY.npy per array, format 1.0, little-endian,
// C order), with no time stamps, so the same arrays give the same bytes.
func WriteNPZ(w io.Writer, arrays []NPYArray) error {
	zw := zip.NewWriter(w)
	for _, a := range arrays {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: a.Key + ".npy", Method: zip.Deflate})
		if err == nil {
			err = writeNPYArray(f, a)
		}
		if err != nil {
			zw.Close()
			return fmt.Errorf("npz: %s: %w", a.Key, err)
		}
	}
	return zw.Close()
}

// writeNPYArray writes one .npy array.
func writeNPYArray(w io.Writer, a NPYArray) error {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	var descr string
	var data []byte
	switch {
	case a.U8 != nil:
		descr, data = "|u1", a.U8
	case a.I64 != nil:
		descr, data = "<i8", make([]byte, 8*len(a.I64))
		for i, v := range a.I64 {
			binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
		}
	case a.F32 != nil:
		descr, data = "<f4", make([]byte, 4*len(a.F32))
		for i, v := range a.F32 {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
		}
	case a.F64 != nil:
		descr, data = "<f8", make([]byte, 8*len(a.F64))
		for i, v := range a.F64 {
			binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(v))
		}
	default:
		return fmt.Errorf("no values")
	}
	if size, _ := strconv.Atoi(descr[2:]); len(data) != n*size {
		return fmt.Errorf("%d bytes of values for shape %s", len(data), shapeString(a.Shape))
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeString(a.Shape))
	h += strings.Repeat(" ", 63-(10+len(h))%64) + "\n"
	head := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	if _, err := w.Write(append(head, h...)); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// ParquetColumn is one column of WriteParquet: its name and its values, a
// []float64, []float32, []int64, []string or []bool.
type ParquetColumn struct {
	Name   string
	Values any
}

// WriteParquet writes columns (all of one length) as a Parquet file with
// one required column per entry, in the given order.
func WriteParquet(w io.Writer, columns []ParquetColumn) error {
	fields := make([]reflect.StructField, len(columns))
	rows := -1
	for j, c := range columns {
		v := reflect.ValueOf(c.Values)
		if v.Kind() != reflect.Slice {
			return fmt.Errorf("parquet: column %q: values are %T, want a slice", c.Name, c.Values)
		}
		switch v.Type().Elem().Kind() {
		case reflect.Float64, reflect.Float32, reflect.Int64, reflect.String, reflect.Bool:
		default:
			return fmt.Errorf("parquet: column %q: values are %T", c.Name, c.Values)
		}
		if rows >= 0 && v.Len() != rows {
			return fmt.Errorf("parquet: column %q has %d values, the others %d", c.Name, v.Len(), rows)
		}
		rows = v.Len()
		fields[j] = reflect.StructField{Name: fmt.Sprintf("F%d", j), Type: v.Type().Elem(),
			Tag: reflect.StructTag(fmt.Sprintf(`parquet:%q`, c.Name))}
	}
	typ := reflect.StructOf(fields)
	pw := parquet.NewWriter(w, parquet.SchemaOf(reflect.New(typ).Interface()))
	for i := 0; i < rows; i++ {
		row := reflect.New(typ).Elem()
		for j, c := range columns {
			row.Field(j).Set(reflect.ValueOf(c.Values).Index(i))
		}
		if err := pw.Write(row.Addr().Interface()); err != nil {
			return fmt.Errorf("parquet: row %d: %w", i, err)
		}
	}
	return pw.Close()
}
