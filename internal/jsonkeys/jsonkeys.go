package jsonkeys

import (
	"bytes"
	"errors"
	"fmt"

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
