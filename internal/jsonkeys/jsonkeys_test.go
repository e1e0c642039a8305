package jsonkeys

import (
	"encoding/json"
	"fmt"
	"math/rand"
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

// exactDoc is the type the Exact tests decode into: fields, a nested
// object, a list of objects and a map (whose keys are the user's).
type exactInner struct {
	LR   float64 `json:"lr"`
	Kind string  `json:"kind,omitempty"`
}

type exactDoc struct {
	Name  string         `json:"name"`
	Seeds []int          `json:"seeds"`
	Hyper exactInner     `json:"hyper"`
	Bags  []exactInner   `json:"bags"`
	Extra map[string]int `json:"extra"`
}

func TestExact(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" for no error
	}{
		{`{"name":"t","seeds":[0],"hyper":{"lr":1},"bags":[{"lr":2}],"extra":{"ANY":1}}`, ""},
		{`{"name":"t","Name":"u"}`, `the key "Name" in the top-level object is not spelled as documented; keys are read as written, not without case: write it "name"`},
		{`{"hyper":{"lr":1,"LR":2}}`, `the key "LR" in the object at /hyper`},
		{`{"bags":[{"lr":1},{"Kind":"x"}]}`, `the key "Kind" in the object at /bags/1`},
		{`{"nope":1}`, ""}, // unknown in every case: the decoder's to report
		{`{"name":1}`, ""}, // a type error: the decoder's
	} {
		err := Exact([]byte(tc.in), new(exactDoc))
		if tc.want == "" {
			assert.NoError(t, err, tc.in)
			continue
		}
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

// Generated documents whose keys are spelled as the tags spell them or, one
// in five, in another case (a map's keys in any case): the oracle is the
// generator's own record of the first key spelled otherwise, in document
// order; encoding/json, which matches without case, decodes every one of
// them without an error (the fault Exact exists to catch).
func TestExactMatchesTheSpelling(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(51)
	params.MinSuccessfulTests = 500
	properties := gopter.NewProperties(params)
	properties.Property("Exact errs exactly on the first key spelled otherwise", prop.ForAll(func(seed int64) string {
		doc, first := genExactDoc(seed)
		if err := json.Unmarshal([]byte(doc), new(exactDoc)); err != nil {
			return "encoding/json refused " + doc + ": " + err.Error()
		}
		err := Exact([]byte(doc), new(exactDoc))
		switch {
		case first == "" && err != nil:
			return fmt.Sprintf("%s: %v, want none", doc, err)
		case first != "" && (err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", first))):
			return fmt.Sprintf("%s: %v, want the key %q named", doc, err, first)
		}
		return ""
	}, gen.Int64()))
	var log strings.Builder
	if !properties.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

// genExactDoc draws a document and its first key spelled otherwise ("" for
// none).
func genExactDoc(seed int64) (string, string) {
	r := rand.New(rand.NewSource(seed))
	first := ""
	key := func(k string, free bool) string {
		if r.Intn(5) > 0 {
			return k
		}
		v := strings.ToUpper(k[:1]) + k[1:]
		if r.Intn(2) == 0 {
			v = strings.ToUpper(k)
		}
		if first == "" && !free {
			first = v
		}
		return v
	}
	inner := func() string {
		ms := []string{fmt.Sprintf("%q:1", key("lr", false))}
		if r.Intn(2) == 0 {
			ms = append(ms, fmt.Sprintf("%q:\"x\"", key("kind", false)))
		}
		return "{" + strings.Join(ms, ",") + "}"
	}
	var ms []string
	for _, k := range r.Perm(5) {
		switch k {
		case 0:
			ms = append(ms, fmt.Sprintf("%q:\"t\"", key("name", false)))
		case 1:
			ms = append(ms, fmt.Sprintf("%q:[0,1]", key("seeds", false)))
		case 2:
			ms = append(ms, fmt.Sprintf("%q:%s", key("hyper", false), inner()))
		case 3:
			b := key("bags", false)
			ms = append(ms, fmt.Sprintf("%q:[%s,%s]", b, inner(), inner()))
		case 4:
			ms = append(ms, fmt.Sprintf("%q:{%q:1}", key("extra", false), key("any", true)))
		}
	}
	return "{" + strings.Join(ms, ",") + "}", first
}
