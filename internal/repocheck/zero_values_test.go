package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// zeroSaid matches a doc comment that says what a zero value means.
var zeroSaid = regexp.MustCompile(`(?i)\bzero\b|\b0\s+(means|is)\b|\bempty\b|\bnil\b|\bfalse\b`)

// TestZeroValuesDocumented (one meaning of every zero value,
// documented on the field as gonum's optimize.Settings does): every field of
// the types that describe a training run — experiments.Config, Hyper and
// Schedule; training.Config (training/methods/config.go) and optim.Config — has a doc comment that
// says what its zero value means ("zero", "0 means", "0 is", "empty", "nil"
// or "false"), its own or, for a field declared without one right after
// another (Beta1 and Beta2), the comment of that group.
func TestZeroValuesDocumented(t *testing.T) {
	for _, tc := range []struct{ file, typ string }{
		{"experiments/config.go", "Config"},
		{"experiments/hyper.go", "Hyper"},
		{"experiments/hyper.go", "Schedule"},
		{"training/methods/config.go", "Config"},
		{"training/optim/optim.go", "Config"},
	} {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, tc.file), nil, parser.ParseComments)
		require.NoError(t, err)
		st := structType(f, tc.typ)
		require.NotNil(t, st, "%s: no struct %s", tc.file, tc.typ)
		group := ""
		for _, field := range st.Fields.List {
			doc := field.Doc.Text()
			if doc == "" {
				doc = group
			}
			group = doc
			for _, name := range field.Names {
				assert.Regexp(t, zeroSaid, doc, "%s: %s.%s: the doc comment does not say what its zero value means", tc.file, tc.typ, name.Name)
			}
		}
	}
}

// structType returns the struct type named name declared in f, or nil.
func structType(f *ast.File, name string) *ast.StructType {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.Name == name {
				st, _ := ts.Type.(*ast.StructType)
				return st
			}
		}
	}
	return nil
}
