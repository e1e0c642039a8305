// Package choice is the small machinery of the project's named choices (a
// KL scale, a grouping mode, a model selection, …): enumerations of uint16 (not uint8: go vet flags string(x) of a uint16, which would read a value as a rune, and not of a uint8, a byte)
// whose zero value means "not stated", written and read by their names.
//
// A setting that names a choice is parsed once, where it enters — a spec or
// a result (encoding/json calls the type's UnmarshalText), a flag — into its
// type, and the layers below take the type: an untyped string
// cannot be assigned to it, so no layer below has a string to parse or a
// spelling to re-check. Hand-written because no library of the project's
// (gonum, gorgonia, testify, gopter) offers enumerations with text
// encoding; the standard library's encoding.TextMarshaler is the seam.
package choice
