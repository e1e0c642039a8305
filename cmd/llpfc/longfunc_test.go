package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxCmdFuncLines is the longest a function in cmd/ may be, counted from its
// `func` line to its closing brace inclusive (issue 13: commands as thin
// shells; the work belongs in the library packages below).
const maxCmdFuncLines = 60

// cmdFuncLengths returns the length in lines of every function and method
// declared in the non-test Go files under root, keyed "path:name".
func cmdFuncLengths(t *testing.T, root string) map[string]int {
	t.Helper()
	lengths := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				name = recvName(fn.Recv.List[0].Type) + "." + name
			}
			first := fset.Position(fn.Pos()).Line
			last := fset.Position(fn.End()).Line
			lengths[filepath.ToSlash(path)+":"+name] = last - first + 1
		}
		return nil
	})
	require.NoError(t, err)
	return lengths
}

func recvName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return recvName(x.X)
	case *ast.IndexExpr:
		return recvName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// TestNoLongFunctionsInCmd fails, naming the function, when any function in a
// non-test file under cmd/ is longer than maxCmdFuncLines lines.
func TestNoLongFunctionsInCmd(t *testing.T) {
	lengths := cmdFuncLengths(t, "..")
	require.NotEmpty(t, lengths, "found no functions under cmd/")
	require.Contains(t, lengths, "../llpfc/main.go:dispatch", "the walk covers cmd/llpfc")
	require.Contains(t, lengths, "../mutate/main.go:main", "the walk covers cmd/mutate")
	for name, n := range lengths {
		assert.LessOrEqual(t, n, maxCmdFuncLines, "%s is %d lines long, over %d: split it into flags, validation, config, run and report", name, n, maxCmdFuncLines)
	}
}
