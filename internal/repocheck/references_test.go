package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// pathRef matches what reads as a reference to a file of the repository: a
// path with a known extension (theory/bounds.go, bench/NOTES.md), a bare
// root-level markdown name (README.md, DESIGN.md), or the retired
// PAPER_MAP.d folder.
var pathRef = regexp.MustCompile(`\b(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\.(?:go|md|sh|py|csv|json|txt|tex)\b|\bPAPER_MAP\.d\b`)

// placeholder matches a file name with a capitalised placeholder part:
// train_NAME.go, NAME_test.go, cells/KEY.json.
var placeholder = regexp.MustCompile(`(^|[/_])(NAME|KEY)([._/]|$)`)

// rootDoc matches the name of a root-level document (README.md, PAPER_MAP.md).
var rootDoc = regexp.MustCompile(`^[A-Z_]+\.md$`)

// external lists the first path components that name files outside this
// repository: the paper's folder beside the checkout, the authors' code the
// audit cites (github Z-Jianxin/LLPFC, LLP-VAT, LLP-GAN, LMMCM), and output
// that commands write (reports/, a user's DIR/OUT).
var external = map[string]bool{
	"shared": true, "models": true, "llpfclib": true, "llplib": true, "llpganlib": true,
	"kllib": true, "llpvatlib": true, "llp_vat": true, "reports": true, "outDir": true,
	"utils": true, "pSVM": true, // the LMMCM authors' code (the binary kernel experiment)
}

// authorsFiles are single file names of the authors' repositories that the
// audit names without a folder.
var authorsFiles = map[string]bool{
	"make_data.py": true, "llpfc.py": true, "kl.py": true, "llpvat.py": true, "llpgan.py": true,
	"utils.py": true, "main.py": true, "train.py": true, "setup.py": true,
}

// repoFiles lists every file under root, relative to it, skipping .git.
func repoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	return files
}

// sources are the files whose text is read for references: Go sources (the
// doc comments and test comments), markdown, shell scripts and the Makefile.
func sources(files []string) []string {
	var out []string
	for _, f := range files {
		if strings.HasPrefix(f, "fixtures/fashion-mnist/") || strings.Contains(f, "/testdata/") ||
			f == "internal/repocheck/references_test.go" {
			continue
		}
		switch {
		case strings.HasSuffix(f, ".go"), strings.HasSuffix(f, ".md"), strings.HasSuffix(f, ".sh"),
			f == "Makefile", strings.HasPrefix(f, ".ci/"):
			out = append(out, f)
		}
	}
	return out
}

// resolves reports whether ref, named in file from, is a file of the
// repository: relative to the root, to from's folder, or as the tail of some
// file's path (a comment may say claims/gen.go inside theory/verify).
func resolves(ref, from string, set map[string]bool, files []string) bool {
	if set[ref] || set[filepath.ToSlash(filepath.Join(filepath.Dir(from), ref))] {
		return true
	}
	if kit, ok := strings.CutPrefix(ref, "dist/gpu-kit/"); ok {
		// make gpu-kit's output (git-ignored) is built from scripts/gpu-kit:
		// whether or not it has been built, it names the file it copies.
		return set["scripts/gpu-kit/"+kit]
	}
	for _, f := range files {
		if strings.HasSuffix(f, "/"+ref) {
			return true
		}
	}
	return false
}

// skip reports whether ref names something outside the repository or a
// placeholder: a path under the external folders, an authors' file, a URL's
// tail, a capitalised placeholder folder (OUT/, DIR/), a Go import path.
func skip(ref, line string) bool {
	first := strings.SplitN(ref, "/", 2)[0]
	if external[first] || authorsFiles[ref] || strings.HasPrefix(ref, "_") {
		return true // _test.go is a suffix, not a file
	}
	if !strings.Contains(ref, "/") && !strings.HasSuffix(ref, ".go") && !rootDoc.MatchString(ref) {
		return true // a bare output name: report.md, result.json, bags.json
	}
	if strings.Contains(ref, "/") && first == strings.ToUpper(first) && first != ".ci" {
		return true // OUT/report.md, DIR/result.json
	}
	if placeholder.MatchString(ref) {
		return true // training/train_NAME.go in a how-to
	}
	for _, host := range []string{"github.com/", "http://", "https://", "golang.org/", "gonum.org/", "gorgonia.org/"} {
		if strings.Contains(line, host+ref) || strings.Contains(line, host) && strings.Contains(line, "/"+ref) {
			return true
		}
	}
	if strings.HasSuffix(ref, ".go") && !strings.Contains(ref, "/") && strings.Contains(line, "go:generate") {
		return true
	}
	return false
}

// Every file a Go comment, markdown page, script or the Makefile names exists in
// the repository (or is one of the named outside sources: the paper's folder,
// the authors' code, a command's output).
func TestEveryReferencedFileExists(t *testing.T) {
	files := repoFiles(t)
	set := map[string]bool{}
	for _, f := range files {
		set[f] = true
	}
	var dangling []string
	for _, src := range sources(files) {
		b, err := os.ReadFile(filepath.Join(root, src))
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(src, ".go") && !strings.Contains(line, "//") {
				continue // only comments of Go files
			}
			for _, ref := range pathRef.FindAllString(line, -1) {
				if ref == "PAPER_MAP.d" || (!skip(ref, line) && !resolves(ref, src, set, files)) {
					dangling = append(dangling, src+":"+strconv.Itoa(i+1)+": "+ref)
				}
			}
		}
	}
	sort.Strings(dangling)
	assert.Empty(t, dangling, "files named in comments or markdown that do not exist")
}
