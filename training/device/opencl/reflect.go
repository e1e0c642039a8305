package opencl

import (
	"fmt"
	"reflect"

	"gorgonia.org/gorgonia"
)

// gorgonia's op types are unexported; the back end reads the fields it
// needs (axes, permutations, kernel geometry) by reflection. The field
// names are gorgonia v0.9.18's, the version go.mod pins; a field that is
// not there is an error naming it, never a guess.

// opField returns op's field name (promoted fields of embedded structs
// included).
func opField(op gorgonia.Op, name string) (reflect.Value, error) {
	v := reflect.ValueOf(op)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return reflect.Value{}, fmt.Errorf("nil %T", op)
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%T is not a struct", op)
	}
	f := v.FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf("gorgonia's %T has no field %q (the OpenCL back end reads gorgonia v0.9.18's op fields; go.mod pins that version)", op, name)
	}
	return f, nil
}

// intField reads an integer field.
func intField(op gorgonia.Op, name string) (int, error) {
	f, err := opField(op, name)
	if err != nil {
		return 0, err
	}
	switch f.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return int(f.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int(f.Uint()), nil
	}
	return 0, fmt.Errorf("gorgonia's %T field %q is a %v, want an integer", op, name, f.Kind())
}

// boolField reads a boolean field.
func boolField(op gorgonia.Op, name string) (bool, error) {
	f, err := opField(op, name)
	if err != nil {
		return false, err
	}
	if f.Kind() != reflect.Bool {
		return false, fmt.Errorf("gorgonia's %T field %q is a %v, want a bool", op, name, f.Kind())
	}
	return f.Bool(), nil
}

// intsField reads an []int field (axes, permutations, shapes).
func intsField(op gorgonia.Op, name string) ([]int, error) {
	f, err := opField(op, name)
	if err != nil {
		return nil, err
	}
	if f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Int {
		return nil, fmt.Errorf("gorgonia's %T field %q is a %v, want []int", op, name, f.Type())
	}
	out := make([]int, f.Len())
	for i := range out {
		out[i] = int(f.Index(i).Int())
	}
	return out, nil
}
