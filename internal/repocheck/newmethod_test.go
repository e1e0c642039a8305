package repocheck

import (
	"os"
	"os/exec"
	"testing"
)

// TestANewBagObjectiveIsItsFilesAndGoGenerate runs
// scripts/new-method-check.sh: in a copy of the checkout, a bag objective
// added as ARCHITECTURE.md's how-to says — its file, its test and one
// registration, with a setting of its own — followed by `go generate ./...`
// leaves results/ untouched, rewrites only the files derived from the
// registry (the help goldens, the op list, the README's table of methods),
// and passes the registry-driven tests (its finite-difference gradient, the
// op list, the help, the built-in grids and the committed reports, the
// method names' rule). It builds and tests several packages of the copy:
// -short skips it.
func TestANewBagObjectiveIsItsFilesAndGoGenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a copy of the checkout with a new method (-short)")
	}
	if os.Getenv("NEW_METHOD_CHECK_COPY") == "1" {
		t.Skip("running in scripts/new-method-check.sh's copy of the checkout, which is this check")
	}
	cmd := exec.Command("bash", "scripts/new-method-check.sh")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/new-method-check.sh: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
