// Command assertcount counts assertion sites in Go test files, per package and per
// top-level function (converting tests to testify may not drop assertions).
//
// An assertion site is a call of Error, Errorf, Fatal, Fatalf, Fail or FailNow on a
// value declared as a *testing.T, *testing.B, *testing.F or testing.TB parameter, a call
// of a function of github.com/stretchr/testify/assert or .../require (New and the
// non-asserting helpers excepted), or a method call on a value made by assert.New or
// require.New. Sites are counted syntactically: a call inside a loop counts once.
//
// Usage:
//
//	assertcount [-only p1,p2] [-v] DIR          counts in one tree
//	assertcount [-only p1,p2] [-md] BEFORE AFTER compares two trees
//
// With two trees it prints, per package, the count before and after, then every
// function whose count dropped (or that is gone); it exits 1 if there is any.
// -only keeps the packages whose directory (relative to DIR) equals one of the given
// paths or lies under it.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// failMethods are the methods of testing.T/B/F that record a failure.
var failMethods = map[string]bool{
	"Error": true, "Errorf": true, "Fatal": true, "Fatalf": true, "Fail": true, "FailNow": true,
}

// notAssertions are exported functions of assert/require that check nothing.
var notAssertions = map[string]bool{
	"New": true, "ObjectsAreEqual": true, "ObjectsAreEqualValues": true,
	"ObjectsExportedFieldsAreEqual": true, "CallerInfo": true, "HTTPBody": true,
}

const (
	assertPath  = "github.com/stretchr/testify/assert"
	requirePath = "github.com/stretchr/testify/require"
)

// counts maps package directory -> function key -> assertion sites.
type counts map[string]map[string]int

func main() {
	only := flag.String("only", "", "comma-separated package directories to keep (and their subdirectories)")
	verbose := flag.Bool("v", false, "with one tree: print every function's count")
	md := flag.Bool("md", false, "print the package table as Markdown")
	flag.Parse()
	var prefixes []string
	if *only != "" {
		for _, p := range strings.Split(*only, ",") {
			prefixes = append(prefixes, filepath.Clean(strings.TrimSpace(p)))
		}
	}
	switch flag.NArg() {
	case 1:
		c, err := countTree(flag.Arg(0), prefixes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "assertcount:", err)
			os.Exit(2)
		}
		total := 0
		for _, pkg := range sortedKeys(c) {
			n := sum(c[pkg])
			total += n
			fmt.Printf("%-40s %6d\n", pkg, n)
			if *verbose {
				for _, fn := range sortedKeys(c[pkg]) {
					fmt.Printf("    %-60s %4d\n", fn, c[pkg][fn])
				}
			}
		}
		fmt.Printf("%-40s %6d\n", "total", total)
	case 2:
		before, err := countTree(flag.Arg(0), prefixes)
		if err == nil {
			var after counts
			after, err = countTree(flag.Arg(1), prefixes)
			if err == nil {
				if compare(before, after, *md) {
					os.Exit(1)
				}
				return
			}
		}
		fmt.Fprintln(os.Stderr, "assertcount:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "usage: assertcount [-only p1,p2] [-v] DIR | [-md] BEFORE AFTER")
		os.Exit(2)
	}
}

// compare prints the package table and the dropped functions; it reports whether any dropped.
func compare(before, after counts, md bool) bool {
	pkgs := map[string]bool{}
	for p := range before {
		pkgs[p] = true
	}
	for p := range after {
		pkgs[p] = true
	}
	if md {
		fmt.Println("| package | before | after |")
		fmt.Println("|---|---:|---:|")
	} else {
		fmt.Printf("%-40s %7s %7s\n", "package", "before", "after")
	}
	tb, ta := 0, 0
	var dropped []string
	for _, p := range sortedKeys(pkgs) {
		b, a := sum(before[p]), sum(after[p])
		tb += b
		ta += a
		if md {
			fmt.Printf("| %s | %d | %d |\n", p, b, a)
		} else {
			fmt.Printf("%-40s %7d %7d\n", p, b, a)
		}
		for _, fn := range sortedKeys(before[p]) {
			if nb, na := before[p][fn], after[p][fn]; na < nb {
				dropped = append(dropped, fmt.Sprintf("%s %s: %d -> %d", p, fn, nb, na))
			}
		}
	}
	if md {
		fmt.Printf("| **total** | **%d** | **%d** |\n", tb, ta)
	} else {
		fmt.Printf("%-40s %7d %7d\n", "total", tb, ta)
	}
	if len(dropped) > 0 {
		fmt.Println("\nfunctions whose assertion count dropped:")
		for _, d := range dropped {
			fmt.Println("  " + d)
		}
		return true
	}
	return false
}

// countTree counts the assertion sites of every _test.go file under root.
func countTree(root string, prefixes []string) (counts, error) {
	c := counts{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "vendor" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if !kept(rel, prefixes) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(rel)
		if c[pkg] == nil {
			c[pkg] = map[string]int{}
		}
		countFile(f, c[pkg])
		return nil
	})
	return c, err
}

func kept(rel string, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if rel == p || strings.HasPrefix(rel, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// countFile adds the sites of each top-level function of f to into, keyed by
// "pkgname.Func" or "pkgname.(Recv).Method".
func countFile(f *ast.File, into map[string]int) {
	imports := map[string]string{} // local name -> path, for testing/assert/require
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		local := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		if p == "testing" || p == assertPath || p == requirePath {
			imports[local] = p
		}
	}
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		key := f.Name.Name + "." + fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) > 0 {
			key = f.Name.Name + ".(" + typeName(fd.Recv.List[0].Type) + ")." + fd.Name.Name
		}
		into[key] += countFunc(fd, imports)
	}
}

func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + typeName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return typeName(x.X)
	case *ast.IndexListExpr:
		return typeName(x.X)
	}
	return "?"
}

// countFunc counts the sites in one top-level function, closures included.
func countFunc(fd *ast.FuncDecl, imports map[string]string) int {
	testers := map[string]bool{}   // names of *testing.T/B/F and testing.TB parameters
	asserters := map[string]bool{} // names bound to assert.New(...) or require.New(...)
	isTesting := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || imports[id.Name] != "testing" {
			return false
		}
		switch sel.Sel.Name {
		case "T", "B", "F", "TB":
			return true
		}
		return false
	}
	isTestify := func(e ast.Expr) (string, bool) {
		sel, ok := e.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		p := imports[id.Name]
		return sel.Sel.Name, p == assertPath || p == requirePath
	}
	addParams := func(ft *ast.FuncType) {
		if ft.Params == nil {
			return
		}
		for _, fl := range ft.Params.List {
			if isTesting(fl.Type) {
				for _, n := range fl.Names {
					testers[n.Name] = true
				}
			}
		}
	}
	// First pass: the names that can assert.
	addParams(fd.Type)
	if fd.Recv != nil {
		addParams(&ast.FuncType{Params: fd.Recv})
	}
	ast.Inspect(fd, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			addParams(x.Type)
		case *ast.AssignStmt:
			for i, rhs := range x.Rhs {
				if call, ok := rhs.(*ast.CallExpr); ok && i < len(x.Lhs) {
					if name, ok := isTestify(call.Fun); ok && name == "New" {
						if id, ok := x.Lhs[i].(*ast.Ident); ok {
							asserters[id.Name] = true
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, v := range x.Values {
				if call, ok := v.(*ast.CallExpr); ok && i < len(x.Names) {
					if name, ok := isTestify(call.Fun); ok && name == "New" {
						asserters[x.Names[i].Name] = true
					}
				}
			}
		}
		return true
	})
	// Second pass: the sites.
	n := 0
	ast.Inspect(fd, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok {
			return true
		}
		if name, ok := isTestify(call.Fun); ok {
			if !notAssertions[name] {
				n++
			}
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		if testers[id.Name] && failMethods[sel.Sel.Name] {
			n++
		} else if asserters[id.Name] && !notAssertions[sel.Sel.Name] {
			n++
		}
		return true
	})
	return n
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
