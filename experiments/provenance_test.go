package experiments

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noGit is a gitRunner that fails the test: the version must come from
// elsewhere.
func noGit(t *testing.T) gitRunner {
	return func(dir string, args ...string) ([]byte, error) {
		t.Errorf("git %v run in %s", args, dir)
		return nil, os.ErrNotExist
	}
}

// A binary with VCS stamps reports them, and nothing
// else is asked; an installed module its version; a binary built with
// -trimpath (no source path recorded) and no stamps "unknown" — never the
// git of a folder it happens to run in.
func TestCodeVersionFromTheBinary(t *testing.T) {
	rev, dirty := codeVersionFrom(map[string]string{"vcs.revision": "abc123", "vcs.modified": "true"}, "(devel)", "/x/experiments/provenance.go", noGit(t))
	assert.Equal(t, "abc123", rev)
	assert.True(t, dirty)
	rev, dirty = codeVersionFrom(map[string]string{"vcs.revision": "abc123", "vcs.modified": "false"}, "", "", noGit(t))
	assert.Equal(t, "abc123", rev)
	assert.False(t, dirty)
	rev, _ = codeVersionFrom(map[string]string{}, "v1.2.3", "/x/y.go", noGit(t))
	assert.Equal(t, "v1.2.3", rev)
	rev, dirty = codeVersionFrom(nil, "(devel)", modulePath+"/experiments/provenance.go", noGit(t))
	assert.Equal(t, "unknown", rev)
	assert.False(t, dirty)
}

// gitRepo makes a git checkout in a new folder with files committed and
// returns the folder and its HEAD.
func gitRepo(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the source-tree fallback of CodeVersion cannot be checked")
	}
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "x")
	return dir, git("rev-parse", "HEAD")
}

// Without stamps (go run, go test), the version is the HEAD of the source
// tree the binary was compiled from — found from its source path, checked
// to be this module — and dirty only when a file the build reads differs:
// a changed or new result, report or README is not a code change; a
// changed or new Go file, go.mod or fixture is. The working directory, a
// dirty checkout of something else, is never read.
func TestCodeVersionFromTheSourceTree(t *testing.T) {
	files := map[string]string{"go.mod": "module " + modulePath + "\n\ngo 1.26\n", "experiments/a.go": "package experiments\n",
		"results/q/cells/k.json": "{}\n", "README.md": "# x\n", "fixtures/f.bin": "x"}
	src, head := gitRepo(t, files)
	other, otherHead := gitRepo(t, map[string]string{"b.go": "package b\n"})
	require.NoError(t, os.WriteFile(filepath.Join(other, "b.go"), []byte("package b\n\nvar changed = 1\n"), 0o644))
	t.Chdir(other)
	file := filepath.Join(src, "experiments", "provenance.go")
	version := func() (string, bool) { return codeVersionFrom(map[string]string{"-compiler": "gc"}, "", file, runGit) }

	rev, dirty := version()
	require.Equal(t, head, rev, "not the source tree's HEAD")
	assert.NotEqual(t, otherHead, rev)
	assert.False(t, dirty)
	for _, c := range []struct {
		name, path, body string
		dirty            bool
	}{
		{"a result rewritten", "results/q/cells/k.json", `{"a": 1}`, false},
		{"a new result", "results/q/cells/new.json", "{}", false},
		{"a new report", "reports/q/report.md", "#", false},
		{"the README edited", "README.md", "# y\n", false},
		{"a Go file edited", "experiments/a.go", "package experiments\n\nvar x = 1\n", true},
		{"a new Go file", "experiments/b.go", "package experiments\n", true},
		{"go.mod edited", "go.mod", "module " + modulePath + "\n\ngo 1.25\n", true},
		{"an embedded fixture edited", "fixtures/f.bin", "y", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(src, c.path)
			old, had := os.ReadFile(p)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(c.body), 0o644))
			defer func() {
				if had == nil {
					os.WriteFile(p, old, 0o644)
				} else {
					os.Remove(p)
				}
			}()
			rev, dirty := version()
			assert.Equal(t, head, rev)
			assert.Equal(t, c.dirty, dirty)
		})
	}

	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte("module example.com/other\n"), 0o644))
	rev, _ = codeVersionFrom(nil, "", file, runGit)
	assert.Equal(t, "unknown", rev, "a tree of another module is not the binary's source")
}
