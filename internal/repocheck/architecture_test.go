package repocheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// packageDecls maps each non-test Go package of the repository, by its name
// (data, estimators, training, …), to the names it declares at top level.
func packageDecls(t *testing.T) map[string]map[string]bool { return declsOf(t, false) }

// declsOf is packageDecls; with all, test files count too, and methods are
// declared under their own names beside the functions.
func declsOf(t *testing.T, all bool) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || (!all && strings.HasSuffix(p, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		decls := out[f.Name.Name]
		if decls == nil {
			decls = map[string]bool{}
			out[f.Name.Name] = decls
		}
		for _, dcl := range f.Decls {
			switch dcl := dcl.(type) {
			case *ast.FuncDecl:
				if dcl.Recv == nil || all {
					decls[dcl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range dcl.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						decls[s.Name.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// testFuncs returns the names of every Test, Example, Fuzz and Benchmark
// function of the repository.
func testFuncs(t *testing.T) map[string]bool {
	t.Helper()
	fn := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Example|Benchmark)\w*)\(`)
	out := map[string]bool{}
	for _, f := range repoFiles(t) {
		if strings.HasSuffix(f, "_test.go") {
			b, err := os.ReadFile(filepath.Join(root, f))
			require.NoError(t, err)
			for _, m := range fn.FindAllStringSubmatch(string(b), -1) {
				out[m[1]] = true
			}
		}
	}
	return out
}

// Every Go symbol (`pkg.Name`), test (`TestX`) and folder (`dir/`) that
// ARCHITECTURE.md names in backticks exists; files are checked by
// TestEveryReferencedFileExists.
func TestArchitectureNamesExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	require.NoError(t, err)
	decls, tests := packageDecls(t), testFuncs(t)
	symbol := regexp.MustCompile("`([a-z][a-z0-9]*)\\.([A-Z][A-Za-z0-9_]*)`")
	checked := 0
	for _, m := range symbol.FindAllStringSubmatch(string(b), -1) {
		pkg, name := m[1], m[2]
		if pkg == "md" || pkg == "go" {
			continue // a file name such as `PAPER_MAP.md` is not a symbol
		}
		require.Contains(t, decls, pkg, "ARCHITECTURE.md names %s.%s, but no package is called %s", pkg, name, pkg)
		assert.True(t, decls[pkg][name], "ARCHITECTURE.md names %s.%s, which package %s does not declare", pkg, name, pkg)
		checked++
	}
	for _, m := range regexp.MustCompile("`((?:Test|Example|Fuzz|Benchmark)\\w*)`").FindAllStringSubmatch(string(b), -1) {
		assert.True(t, tests[m[1]], "ARCHITECTURE.md names %s, which no _test.go file defines", m[1])
		checked++
	}
	for _, m := range regexp.MustCompile("`([a-z_/]+/)`").FindAllStringSubmatch(string(b), -1) {
		st, err := os.Stat(filepath.Join(root, m[1]))
		assert.True(t, err == nil && st.IsDir(), "ARCHITECTURE.md names the folder %s, which does not exist", m[1])
		checked++
	}
	assert.Greater(t, checked, 30, "ARCHITECTURE.md should name the code it describes")
	checked = 0
	all := declsOf(t, true)
	for _, n := range unexportedNames(string(b)) {
		assert.NotEmpty(t, n[0], "ARCHITECTURE.md names %s without its package: write pkg.%s", n[1], n[1])
		assert.True(t, all[n[0]][n[1]], "ARCHITECTURE.md names %s.%s, which package %s does not declare (its test files included)", n[0], n[1], n[0])
		checked++
	}
	assert.Greater(t, checked, 3, "ARCHITECTURE.md's how-tos name unexported code too")
}

// unexportedNames are the lower-case Go identifiers text names in backticks,
// as (package, name), the package empty when the name is bare: a camel-case
// word (`training.opCases`, `defaultBatch`), which no file, folder, flag or
// JSON key is spelled like. The how-tos name unexported helpers and test
// tables with their package (a how-to once named parityCases after it had
// become ParityCases, and the check of exported names missed it).
func unexportedNames(text string) [][2]string {
	var out [][2]string
	for _, m := range regexp.MustCompile("`(?:([a-z][a-z0-9]*)\\.)?([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)`").FindAllStringSubmatch(text, -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

// TestUnexportedNamesCatchesAStaleName: the check of the how-tos' lower-case
// names finds a table that is not where the how-to says (the case once missed:
// training's parityCases had become ParityCases; a method of that name in
// cmd/llpfc does not count) and passes one that is.
func TestUnexportedNamesCatchesAStaleName(t *testing.T) {
	names := unexportedNames("rows in `training.parityCases` (`training/parity.go`), `training.opCases`, `defaultBatch`, `PAPER_MAP.md`, `hyper.kl_scale`")
	assert.Equal(t, [][2]string{{"training", "parityCases"}, {"training", "opCases"}, {"", "defaultBatch"}}, names)
	decls := declsOf(t, true)
	assert.False(t, decls["training"]["parityCases"], "parityCases is ParityCases now")
	assert.True(t, decls["training"]["opCases"], "opCases is a test table of training")
}
