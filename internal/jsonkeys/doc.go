// Package jsonkeys refuses JSON text whose objects name a member twice
// (Unique), or spell a member in another case than the type it decodes into
// (Exact: encoding/json matches names without case, so "EPOCHS" beside
// "epochs" overrode it without a word).
//
// RFC 8259 leaves the meaning of a repeated name open, and encoding/json
// keeps the last value without a word: a spec file with "seeds" twice ran
// the second list only. The files a user writes (grid specs, bags files)
// are checked here before they are decoded. The token walk is jsontext from
// github.com/go-json-experiment/json, the prototype of the standard
// library's encoding/json/jsontext (behind GOEXPERIMENT=jsonv2 in Go 1.25
// and 1.26, to which that module defers when the experiment is on), which
// rejects repeated names by default and says where (a JSON Pointer, RFC
// 6901); nothing here is hand-written beyond the message.
package jsonkeys
