package experiments

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
)

// The code version a result records. It describes the
// code that ran — the binary — and nothing else: a cell's "uncommitted
// changes" flag used to be `git describe --dirty` of the working
// directory's checkout, so a grid run into the repository's own results/
// marked every later cell dirty though no code changed, and a binary built
// without VCS stamps read the git of whatever folder it ran in.

var (
	versionOnce  sync.Once
	versionRev   string
	versionDirty bool
)

// CodeVersion returns the revision of the running code and whether its
// source differed from it, in this order of sources:
//
//  1. the binary's build information (runtime/debug.ReadBuildInfo):
//     vcs.revision and vcs.modified, which `go build` and `go install`
//     stamp from the checkout they build (vcs.modified is Go's: any change
//     in the checkout when it was built, untracked files not .gitignore'd
//     included);
//  2. the module version of a binary installed as module@version;
//  3. the source tree of the module the binary was compiled from, when
//     its source paths are recorded (not with -trimpath) and that tree is
//     a git checkout: its HEAD, dirty when a source file there — a file the
//     build reads: Go and assembly files, go.mod, go.sum, the OpenCL
//     kernels, fixtures/ — differs from HEAD or is new and not ignored
//     (`go run` and `go test` binaries carry no VCS stamps);
//  4. "unknown", not dirty.
//
// It never looks at the working directory.
func CodeVersion() (rev string, dirty bool) {
	versionOnce.Do(func() {
		var settings map[string]string
		mainVersion := ""
		if bi, ok := debug.ReadBuildInfo(); ok {
			settings = map[string]string{}
			for _, s := range bi.Settings {
				settings[s.Key] = s.Value
			}
			mainVersion = bi.Main.Version
		}
		_, file, _, _ := runtime.Caller(0)
		versionRev, versionDirty = codeVersionFrom(settings, mainVersion, file, runGit)
	})
	return versionRev, versionDirty
}

// modulePath is this module's path, as its go.mod declares it.
const modulePath = "github.com/llpfc/llpfc"

// gitRunner runs git with args in dir and returns its standard output.
type gitRunner func(dir string, args ...string) ([]byte, error)

func runGit(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	return cmd.Output()
}

// codeVersionFrom is CodeVersion on given build settings, main module
// version and source file path (this file's, as compiled), with git run
// by git.
func codeVersionFrom(settings map[string]string, mainVersion, sourceFile string, git gitRunner) (string, bool) {
	if rev := settings["vcs.revision"]; rev != "" {
		return rev, settings["vcs.modified"] == "true"
	}
	if mainVersion != "" && mainVersion != "(devel)" {
		return mainVersion, false
	}
	root := moduleRoot(sourceFile)
	if root == "" {
		return "unknown", false
	}
	head, err := git(root, "rev-parse", "HEAD")
	if err != nil {
		return "unknown", false
	}
	rev := strings.TrimSpace(string(head))
	prefix, err := git(root, "rev-parse", "--show-prefix") // the module's folder in the checkout
	if err != nil {
		return rev, false
	}
	status, err := git(root, "status", "--porcelain=v1", "-z", "--", ".")
	if err != nil {
		return rev, false
	}
	return rev, sourceChanged(status, strings.TrimSpace(string(prefix)))
}

// moduleRoot returns the folder of this module's go.mod above sourceFile,
// or "" when sourceFile is not an absolute path (a -trimpath build) or no
// such go.mod is found.
func moduleRoot(sourceFile string) string {
	if !filepath.IsAbs(sourceFile) {
		return ""
	}
	for dir := filepath.Dir(sourceFile); ; dir = filepath.Dir(dir) {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			if declares(b, modulePath) {
				return dir
			}
			return ""
		}
		if dir == filepath.Dir(dir) {
			return ""
		}
	}
}

// declares reports whether a go.mod declares module path.
func declares(gomod []byte, path string) bool {
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == path
		}
	}
	return false
}

// sourceChanged reports whether `git status --porcelain=v1 -z` lists a
// changed or new source file (buildSource); its paths are relative to the
// checkout's root, the module's to prefix.
func sourceChanged(status []byte, prefix string) bool {
	entries := bytes.Split(status, []byte{0})
	for i := 0; i < len(entries); i++ {
		e := string(entries[i])
		if len(e) < 4 {
			continue
		}
		code, path := e[:2], e[3:]
		if code[0] == 'R' || code[0] == 'C' {
			i++ // the next entry is the rename's source
		}
		if code == "!!" {
			continue
		}
		if buildSource(strings.TrimPrefix(path, prefix)) {
			return true
		}
	}
	return false
}

// buildSource reports whether path (relative to the module's root) is a
// file the build reads: Go, assembly and C files, go.mod and go.sum, the
// OpenCL kernels, and the embedded fixtures.
func buildSource(path string) bool {
	switch filepath.Ext(path) {
	case ".go", ".s", ".c", ".h", ".cl":
		return true
	}
	base := filepath.Base(path)
	return base == "go.mod" || base == "go.sum" || strings.HasPrefix(filepath.ToSlash(path), "fixtures/")
}

// PeakRSSBytes is the process's peak resident set size (getrusage
// ru_maxrss; kilobytes on Linux, bytes on macOS).
func PeakRSSBytes() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
