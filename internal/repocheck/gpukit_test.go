package repocheck

import (
	"os"
	"os/exec"
	"testing"
)

// TestGPUKit runs the GPU kit's helper tests (scripts/gpu-kit/test_kit.py):
// the verdict lines, no projection from a run that is not the
// projected one, and the interpreter the PyTorch parts use. python3's
// standard library is all they need; without python3 the test skips, and
// fails with CI=true.
func TestGPUKit(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no python3 on PATH: the GPU kit's tests need it")
		}
		t.Skip("no python3 on PATH")
	}
	cmd := exec.Command(py, "-m", "unittest", "test_kit")
	cmd.Dir = "../../scripts/gpu-kit"
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest test_kit: %v\n%s", err, out)
	}
}
