package main

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxCmdFuncLines is the longest a function in cmd/ may be, counted from its
// `func` line to its closing brace inclusive (commands as thin shells; the
// work belongs in the library packages below).
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

// A command family is a command and its files: the file that registers it
// (register(command{name: "NAME", …}): NAME.go) and the files named
// NAME_*.go beside it (train_flags.go, train_out.go for train). Every other
// non-test file of the package holds the shared helpers (main.go, flags.go,
// guard.go, …), which stand below all commands.

// noImports refuses every import: the check needs only the package's own
// objects, which go/types resolves without its imports (their errors are
// ignored), so the test needs no export data or build.
type noImports struct{}

func (noImports) Import(string) (*types.Package, error) { return nil, errors.New("not loaded") }

// commandFamilies parses the non-test Go files of dir that build on this
// platform and returns each file's family (its command's name, or "" for the
// shared helpers) and every use of a package-level identifier, or of a
// field or method of a package type, in a file other than the one that
// defines it.
func commandFamilies(t *testing.T, dir string, extra map[string]string) (family map[string]string, uses []crossUse) {
	t.Helper()
	pkg, err := build.ImportDir(dir, 0)
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files []*ast.File
	names := append([]string(nil), pkg.GoFiles...)
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		var src any
		if s, ok := extra[name]; ok {
			src = s
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), src, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	family = map[string]string{}
	for _, f := range files {
		if name := registeredCommand(f); name != "" {
			family[filepath.Base(fset.Position(f.Pos()).Filename)] = name
		}
	}
	commandsByName := map[string]bool{}
	for _, c := range family {
		commandsByName[c] = true
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".go")
		prefix, _, _ := strings.Cut(base, "_")
		if commandsByName[prefix] {
			family[name] = prefix
		} else if _, ok := family[name]; !ok {
			family[name] = ""
		}
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: noImports{}, Error: func(error) {}}
	tpkg, _ := conf.Check("main", fset, files, info)
	for id, obj := range info.Uses {
		if obj == nil || obj.Pkg() != tpkg || !obj.Pos().IsValid() {
			continue
		}
		if v, isVar := obj.(*types.Var); obj.Parent() != tpkg.Scope() && !(isVar && v.IsField()) {
			if _, isFunc := obj.(*types.Func); !isFunc { // methods have no parent scope
				continue // a local
			}
		}
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to {
			uses = append(uses, crossUse{from: from, to: to, name: obj.Name()})
		}
	}
	return family, uses
}

type crossUse struct{ from, to, name string }

// registeredCommand returns the name a file registers in an init function
// (register(command{name: "…"})), or "".
func registeredCommand(f *ast.File) string {
	name := ""
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		if fn, ok := call.Fun.(*ast.Ident); !ok || fn.Name != "register" {
			return true
		}
		lit, ok := call.Args[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if k, isIdent := kv.Key.(*ast.Ident); ok && isIdent && k.Name == "name" {
				if b, isLit := kv.Value.(*ast.BasicLit); isLit {
					name, _ = strconv.Unquote(b.Value)
				}
			}
		}
		return false
	})
	return name
}

// familyViolations lists each use of an identifier defined in one command
// family's file from a file of another family or from the shared helpers.
func familyViolations(family map[string]string, uses []crossUse) []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range uses {
		owner := family[u.to]
		if owner == "" || owner == family[u.from] {
			continue // the shared helpers, or the same family
		}
		user := "shared helpers"
		if family[u.from] != "" {
			user = "command " + family[u.from]
		}
		msg := fmt.Sprintf("%s (%s) uses %s from %s (command %s)", u.from, user, u.name, u.to, owner)
		if !seen[msg] {
			seen[msg] = true
			out = append(out, msg)
		}
	}
	sort.Strings(out)
	return out
}

// TestCommandFamiliesKeepApart: no file of one command family uses what
// another family's files define, and the shared helpers use no family's
// (a command file reads only its own family and the helpers below all
// commands, so that a family can be read alone).
func TestCommandFamiliesKeepApart(t *testing.T) {
	family, uses := commandFamilies(t, ".", nil)
	fams := map[string]int{}
	for _, f := range family {
		fams[f]++
	}
	assert.GreaterOrEqual(t, len(fams), 10, "expected the commands' families and the shared helpers: %v", family)
	assert.Equal(t, "train", family["train_flags.go"])
	assert.Equal(t, "", family["main.go"])
	assert.NotEmpty(t, uses, "no use across files seen: the check reads nothing")
	assert.Empty(t, familyViolations(family, uses),
		"a command file reads only its own family's files and the shared helpers, which read no family's: move what two families share into a shared file")
}

// TestCommandFamiliesCatchACrossUse plants a file of the bench family that
// calls into the train family, and a helper that reads a train flag: both
// are reported, naming the files and identifiers.
func TestCommandFamiliesCatchACrossUse(t *testing.T) {
	planted := map[string]string{
		"bench_planted.go":  "package main\n\nfunc plantedBench(f *trainFlags) { _ = f.check }\n",
		"shared_planted.go": "package main\n\nfunc plantedHelper() { _ = trainSynopsis }\n",
	}
	family, uses := commandFamilies(t, ".", planted)
	got := familyViolations(family, uses)
	assert.Contains(t, got, "bench_planted.go (command bench) uses trainFlags from train_flags.go (command train)")
	assert.Contains(t, got, "bench_planted.go (command bench) uses check from train_flags.go (command train)")
	assert.Contains(t, got, "shared_planted.go (shared helpers) uses trainSynopsis from train.go (command train)")
	assert.Len(t, got, 3, "only the planted uses: %v", got)
}
