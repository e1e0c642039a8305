package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pythonModules are what the Python client's tests import: NumPy (the
// client's one dependency), scikit-learn (clone) and pandas (DataFrames).
var pythonModules = []string{"numpy", "sklearn", "pandas"}

// findPython returns the first interpreter ($LLPFC_PYTHON, Debian's
// /usr/bin/python3, python3 on PATH) that imports every module of
// pythonModules, else the first that imports NumPy (its tests then skip
// what needs the rest), else "" with the reason.
func findPython() (string, string) {
	var cands []string
	if p := os.Getenv("LLPFC_PYTHON"); p != "" {
		cands = append(cands, p)
	}
	cands = append(cands, "/usr/bin/python3")
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, p)
	}
	imports := func(py string, mods []string) bool {
		return exec.Command(py, "-c", "import "+strings.Join(mods, ", ")).Run() == nil
	}
	for _, mods := range [][]string{pythonModules, pythonModules[:1]} {
		for _, py := range cands {
			if _, err := os.Stat(py); err == nil && imports(py, mods) {
				return py, ""
			}
		}
	}
	return "", fmt.Sprintf("no python3 with %s among %s (apt-get install python3-numpy python3-sklearn python3-pandas; .ci/run does)",
		strings.Join(pythonModules, ", "), strings.Join(cands, ", "))
}

// TestPythonClient runs the Python client's tests (python/tests)
// with the standard library's unittest against a binary built from this
// checkout: fit/predict against train/predict on the same file, clone and
// set_params, the binary's errors as ValueError, killed fits, grids, and the
// snippets of docs/python.md and the README. Without an interpreter with NumPy it skips; with
// CI=true it fails, and CI=true also makes the Python tests fail (not skip)
// without scikit-learn or pandas.
func TestPythonClient(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Python client's tests train networks")
	}
	py, why := findPython()
	if py == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(why + "; with CI=true the Python client's tests are required")
		}
		t.Skip(why)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	bin := buildLLPFC(t)

	// The import a notebook does, from python/.
	imp := exec.Command(py, "-c", "from llpfc import LLPClassifier; print(LLPClassifier().method)")
	imp.Dir = filepath.Join(root, "python")
	out, err := imp.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Equal(t, "llpfc-uniform\n", string(out))

	cmd := exec.Command(py, "-m", "unittest", "discover", "-v", "-s", "tests")
	cmd.Dir = filepath.Join(root, "python")
	cmd.Env = append(os.Environ(), "LLPFC_BINARY="+bin, "PYTHONDONTWRITEBYTECODE=1")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	t.Logf("%s -m unittest (python/tests):\n%s", py, buf.String())
	require.NoError(t, err, "the Python client's tests failed")
	require.NotContains(t, buf.String(), "skipped", "with every module installed no Python test may skip")
}
