package experiments

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// InputError is an error of a run's input — a spec, its data, the sizes a
// cell would allocate — found before training: a command reports it as bad
// input (exit status 2).
type InputError struct{ Err error }

// JSONError rewrites the errors of encoding/json's decoder in the words of
// the file rather than of Go (an edited manifest, or a spec whose lr was
// 1e999, once printed "cannot unmarshal number 1e999 into Go struct field
// Hyper.hyper.lr of type float64"): a value of the wrong kind names the
// field by its dotted JSON path, the value found and what the field takes;
// an unknown field is named as the file spells it; a syntax error gives its
// byte offset. Other errors are returned as they are.
func JSONError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the document"
		}
		got := te.Value
		if strings.HasPrefix(got, "number ") && jsonKind(te.Type) == "a finite number" {
			got += " (outside float64's range)"
		}
		return fmt.Errorf("%s: is %s, want %s", field, got, jsonKind(te.Type))
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON at byte %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: "))
	case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return err
}

// jsonKind says in words what a JSON value of Go type t must be.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a finite number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number in " + t.Kind().String() + "'s range"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "a value of another kind"
}

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }
