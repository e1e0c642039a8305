package jsonkeys

import (
	"bytes"
	jsonv1 "encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Unique returns nil when no object in the JSON text data names a member
// twice, else an error naming the member and the object that holds it.
// Text that is not valid JSON otherwise returns nil: the decoder that reads
// it reports its syntax in its own words.
func Unique(data []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for {
		_, err := dec.ReadToken()
		if err == nil {
			continue
		}
		var se *jsontext.SyntacticError
		if errors.As(err, &se) && errors.Is(se.Err, jsontext.ErrDuplicateName) {
			where := "the top-level object"
			if parent := se.JSONPointer.Parent(); parent != "" {
				where = fmt.Sprintf("the object at %s", parent)
			}
			return fmt.Errorf("the key %q appears twice in %s (offset %d): JSON does not say which one counts; keep one",
				se.JSONPointer.LastToken(), where, se.ByteOffset)
		}
		return nil
	}
}

// Exact returns nil when every member name of the objects in the JSON text
// data is a field of v's type spelled as its tag spells it, else an error
// naming the first that is not (encoding/json matches names without
// case, so a spec holding "epochs" and "EPOCHS" once trained with the
// last, and "Name" read as "name"). v is a pointer to a fresh value of the
// type data decodes into; it is filled as a side effect. Other errors
// (unknown names in any case, syntax, types) return nil: the decoder that
// reads the file reports them in its own words. The check is go-json-
// experiment's Unmarshal, which matches names as written and, with
// RejectUnknownMembers, names the first it cannot place (a JSON Pointer).
func Exact(data []byte, v any) error {
	dec := jsonv1.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if dec.Decode(reflect.New(reflect.TypeOf(v).Elem()).Interface()) != nil {
		return nil // encoding/json refuses it: its error is the one to show
	}
	err := json.Unmarshal(data, v, json.RejectUnknownMembers(true))
	var se *json.SemanticError
	if !errors.As(err, &se) || !errors.Is(se.Err, json.ErrUnknownName) {
		return nil
	}
	name := se.JSONPointer.LastToken()
	where := "the top-level object"
	if parent := se.JSONPointer.Parent(); parent != "" {
		where = fmt.Sprintf("the object at %s", parent)
	}
	hint := "keys are read as written, not without case: spell it as documented"
	if low := strings.ToLower(name); low != name {
		hint = fmt.Sprintf("keys are read as written, not without case: write it %q", low)
	}
	return fmt.Errorf("the key %q in %s is not spelled as documented; %s", name, where, hint)
}
