package jsonkeys

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestUnique(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" for no error
	}{
		{`{"a":1,"b":[1,2],"c":{"d":null}}`, ""},
		{`{"seeds":[0],"hyper":{},"seeds":[1]}`, `the key "seeds" appears twice in the top-level object`},
		{`{"hyper":{"lr":1,"lr":2}}`, `the key "lr" appears twice in the object at /hyper`},
		{`{"bags":[{"id":0},{"id":1,"size":2,"id":3}]}`, `the key "id" appears twice in the object at /bags/1`},
		{`[{"a":1},{"a":1}]`, ""},                     // the same name in two objects
		{`{"a":{"x":1},"b":{"x":1}}`, ""},             // and in nested ones
		{`{"a":1,"a":1`, `the key "a" appears twice`}, // before the syntax error
		{`{"a":1,}`, ""},                              // a syntax error alone: the decoder's to report
		{``, ""},
	} {
		err := Unique([]byte(tc.in))
		if tc.want == "" {
			assert.NoError(t, err, tc.in)
			continue
		}
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

// The oracle is a slow obvious walk: encoding/json decodes each object into
// its ordered members (json.Decoder.Token), and a name seen twice in one
// object is a duplicate. Generated objects, nested two deep, with names
// drawn from a small set so that repeats are common.
func TestUniqueMatchesObviousWalk(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 500
	properties := gopter.NewProperties(params)
	names := gen.OneConstOf("a", "b", "c", "d")
	leaf := gen.OneConstOf(`1`, `"x"`, `null`, `[1,2]`, `{}`)
	member := gopter.CombineGens(names, leaf).Map(func(v []any) string { return fmt.Sprintf("%q:%s", v[0], v[1]) })
	object := gen.SliceOfN(3, member).Map(func(ms []string) string { return "{" + strings.Join(ms, ",") + "}" })
	outer := gopter.CombineGens(gen.SliceOfN(3, names), gen.SliceOfN(3, object)).Map(func(v []any) string {
		ns, os := v[0].([]string), v[1].([]string)
		var ms []string
		for i := range ns {
			ms = append(ms, fmt.Sprintf("%q:%s", ns[i], os[i]))
		}
		return "{" + strings.Join(ms, ",") + "}"
	})
	properties.Property("Unique errs exactly when some object repeats a name", prop.ForAll(func(doc string) bool {
		return (Unique([]byte(doc)) != nil) == obviousDuplicate(doc)
	}, outer))
	properties.TestingRun(t)
}

// obviousDuplicate walks doc with encoding/json's tokens, one set of names
// per open object.
func obviousDuplicate(doc string) bool {
	dec := json.NewDecoder(strings.NewReader(doc))
	type frame struct {
		object, wantKey bool
		names           map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
				continue
			}
			name := tok.(string)
			if top.names[name] {
				return true
			}
			top.names[name] = true
			top.wantKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantKey: true, names: map[string]bool{}})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].wantKey = true
		}
	}
}
