package choice

import "fmt"

// Set names the values of an enumeration T: Names[v] is value v's name, the
// zero value's the empty string.
type Set[T ~uint16] struct {
	// What names the setting in errors ("KL scale").
	What string
	// Names are the values' names, index 0 "" (not stated).
	Names []string
	// Want says in words what a valid name is ("authors (…) or paper (…)").
	Want string
	// Err, if not nil, wraps a parse error (an estimators.InputError).
	Err func(error) error
}

// String is v's name; a value outside the set is T(n).
func (s Set[T]) String(v T) string {
	if int(v) < len(s.Names) {
		return s.Names[v]
	}
	return fmt.Sprintf("%s(%d)", s.What, uint16(v))
}

// Parse returns the value named text; the empty text and an unknown name
// are errors.
func (s Set[T]) Parse(text string) (T, error) {
	for i, n := range s.Names {
		if i > 0 && n == text {
			return T(i), nil
		}
	}
	err := fmt.Errorf("%s %q: want %s", s.What, text, s.Want)
	if s.Err != nil {
		err = s.Err(err)
	}
	return 0, err
}

// Unmarshal sets *dst to the value named b, or to the zero value when b is
// empty.
func (s Set[T]) Unmarshal(dst *T, b []byte) error {
	if len(b) == 0 {
		*dst = 0
		return nil
	}
	v, err := s.Parse(string(b))
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// Marshal writes v's name; a value outside the set is an error.
func (s Set[T]) Marshal(v T) ([]byte, error) {
	if int(v) >= len(s.Names) {
		return nil, fmt.Errorf("%s: no value %d", s.What, uint16(v))
	}
	return []byte(s.Names[v]), nil
}
