package device

import (
	"fmt"
	"reflect"

	"gorgonia.org/gorgonia"
)

// gorgonia's op types are unexported; a back end reads the fields it
// needs (axes, permutations, kernel geometry) by reflection. The field
// names are gorgonia v0.9.18's, the version go.mod pins; a field that is
// not there is an error naming it, never a guess.

// OpField returns op's field name (promoted fields of embedded structs
// included).
func OpField(op gorgonia.Op, name string) (reflect.Value, error) {
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
		return reflect.Value{}, fmt.Errorf("gorgonia's %T has no field %q (the back ends read gorgonia v0.9.18's op fields; go.mod pins that version)", op, name)
	}
	return f, nil
}

// IntField reads an integer field.
func IntField(op gorgonia.Op, name string) (int, error) {
	f, err := OpField(op, name)
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

// BoolField reads a boolean field.
func BoolField(op gorgonia.Op, name string) (bool, error) {
	f, err := OpField(op, name)
	if err != nil {
		return false, err
	}
	if f.Kind() != reflect.Bool {
		return false, fmt.Errorf("gorgonia's %T field %q is a %v, want a bool", op, name, f.Kind())
	}
	return f.Bool(), nil
}

// IntsField reads an []int field (axes, permutations, shapes).
func IntsField(op gorgonia.Op, name string) ([]int, error) {
	f, err := OpField(op, name)
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
