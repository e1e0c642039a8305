package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cell's code version describes the code that ran.
// Two binaries run a one-cell grid from inside another git checkout with
// uncommitted changes, which they must not read: one built with
// -buildvcs=true records its own vcs.revision and vcs.modified, read back
// with `go version -m` (the oracle) — or, where Go cannot stamp (a git
// worktree, whose .git is a file), the HEAD of its source tree; the one
// built with -buildvcs=false (as `go run` builds) the HEAD of the source
// tree it was compiled from, read with git there (the oracle).
func TestProvenanceIsTheBinarys(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	src, err := os.Getwd()
	require.NoError(t, err)
	head, err := exec.Command("git", "-C", src, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not a git checkout: no HEAD to compare with")
	}
	bins := map[string]string{}
	for _, vcs := range []string{"true", "false"} {
		bin := filepath.Join(t.TempDir(), "llpfc")
		out, err := exec.Command("go", "build", "-buildvcs="+vcs, "-o", bin, ".").CombinedOutput()
		require.NoError(t, err, "go build: %s", out)
		bins[vcs] = bin
	}
	meta, err := exec.Command("go", "version", "-m", bins["true"]).Output()
	require.NoError(t, err)
	field := func(k string) string {
		m := regexp.MustCompile(`(?m)^\s*build\s+` + regexp.QuoteMeta(k) + `=(\S+)`).FindSubmatch(meta)
		if m == nil {
			return ""
		}
		return string(m[1])
	}
	stampedRev, stampedDirty := strings.TrimSpace(string(head)), (*bool)(nil)
	if rev := field("vcs.revision"); rev != "" {
		stampedRev, stampedDirty = rev, ptr(field("vcs.modified") == "true")
	} else {
		t.Log("go build stamped no VCS information here (a git worktree, or no git): both binaries fall back to the source tree")
	}

	other := t.TempDir()
	gitIn := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", other, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	writeFile(t, other, "x.go", "package x\n")
	gitIn("init", "-q")
	gitIn("add", "-A")
	gitIn("commit", "-q", "-m", "x")
	otherHead := gitIn("rev-parse", "HEAD")
	writeFile(t, other, "x.go", "package x\n\nvar uncommitted = 1\n")
	spec := writeFile(t, other, "s.json", tinySpec)

	for _, c := range []struct {
		bin, rev string
		dirty    *bool
	}{
		{bins["true"], stampedRev, stampedDirty},
		{bins["false"], strings.TrimSpace(string(head)), nil},
	} {
		store := filepath.Join(other, "results", filepath.Base(filepath.Dir(c.bin)))
		cmd := exec.Command(c.bin, "run", spec, "--results", store)
		cmd.Dir = other
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		cells, _ := filepath.Glob(filepath.Join(store, "cells", "*.json"))
		require.Len(t, cells, 1)
		var cell struct {
			Provenance struct {
				CodeVersion string `json:"code_version"`
				Dirty       bool   `json:"dirty"`
			} `json:"provenance"`
		}
		require.NoError(t, json.Unmarshal([]byte(readString(t, cells[0])), &cell))
		assert.Equal(t, c.rev, cell.Provenance.CodeVersion, "%s", c.bin)
		assert.NotEqual(t, otherHead, cell.Provenance.CodeVersion, "the working directory's git was read")
		if c.dirty != nil {
			assert.Equal(t, *c.dirty, cell.Provenance.Dirty, "%s: dirty is not the binary's vcs.modified", c.bin)
		}
	}
}

func ptr[T any](v T) *T { return &v }
