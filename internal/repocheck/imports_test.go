package repocheck

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const modulePath = "github.com/llpfc/llpfc/"

// floors places every Go package of the repository on a floor: a package
// may import only packages on lower floors, so imports run one way and two
// packages on one floor never import each other (ARCHITECTURE.md, "The
// layers"). A new package must be
// given a floor here.
var floors = map[string]int{
	"internal/stepprof": 0, "internal/par": 1, "internal/rng": 0, "internal/philox": 0, "internal/atomicfile": 0, "internal/sgemm": 1, "internal/vec": 0, "internal/wino": 0,
	"internal/repocheck": 0, "internal/docs": 0, "proofs_tests": 0, "scripts/assertcount": 0, "fixtures": 0, "fixtures/paper": 0,
	"internal/opencl": 1, "internal/opencl/ocltest": 2, "internal/npy": 0, "internal/jsonkeys": 0, "internal/choice": 0,
	"theory":                        1,
	"training/internal/testutil":    1,
	"theory/verify":                 2,
	"theory/verify/claims":          3,
	"estimators":                    3,
	"estimators/algclaims":          4,
	"experiments/data":              4,
	"experiments/bagproto":          4,
	"training/kernel":               4,
	"training/optim":                4, // optimizers and schedules
	"training/nn":                   4, // the engine: layers, fused ops, values
	"training/device":               5, // the seam: what a compute back end implements
	"training/internal/testnet":     6, // the tests' small networks and host-side gradients
	"fixtures/internal/fixturegen":  5,
	"fixtures/bagonly":              5, // the bag-only fixture, from the embedded one
	"training/models":               6, // the architectures
	"training/loss":                 6, // the LLP losses (not the architectures)
	"training/loss/lossclaims":      7, // the verify claims of the newer methods' losses
	"training/device/cpu":           6, // the CPU back end
	"training/device/opencl":        6, // the OpenCL back end
	"fixtures/gen":                  6,
	"training/methods":              7, // the methods' room: each method's descriptor and implementation, a run's Config
	"training":                      8, // the trainer: the loop, the evaluator, checkpoints, the parity checks (opcheck's comparison)
	"training/device/opcheck":       7, // the back ends' ops against the CPU's (llpfc devices --check)
	"training/scaling":              9, // the step profile at several thread counts and the many-core model
	"experiments":                   9, // what every room of experiments/ shares: a cell's Config, Metrics, the learners' seam
	"experiments/binary":            10,
	"experiments/learn":             10, // the learners, the problem a cell poses, sizes, saved models
	"experiments/grid":              11, // specs, shards, the runner, the store
	"experiments/report":            12, // tables, plots, CSV
	"experiments/internal/gridtest": 12,
	"cmd/llpfc":                     13,
	"cmd/mutate":                    13,
}

// moduleImports maps each package of the repository (its path inside the
// module) to the repository packages its non-test files import, with the
// file that imports each.
func moduleImports(t *testing.T) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.Contains(f, "/testdata/") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), root+"/"+f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		pkg := path.Dir(f)
		if out[pkg] == nil {
			out[pkg] = map[string]string{}
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(p, modulePath); ok {
				out[pkg][rel] = f
			}
		}
	}
	return out
}

// TestImportsOneWay: every package has a floor and imports only packages on
// floors below its own; in particular the rooms of training/ (nn, optim ←
// device ← models, loss, the back ends ← training) import one way.
func TestImportsOneWay(t *testing.T) {
	imports := moduleImports(t)
	checkFloors(imports, t.Errorf)
	require.Greater(t, len(imports), 20, "the walk should find the repository's packages")
}

// checkFloors reports, through errorf, every package of imports without a
// floor and every import of a package on its own floor or above.
func checkFloors(imports map[string]map[string]string, errorf func(format string, args ...any)) {
	var pkgs []string
	for p := range imports {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		fp, ok := floors[p]
		if !ok {
			errorf("package %s has no floor in internal/repocheck/imports_test.go: give it one", p)
			continue
		}
		var qs []string
		for q := range imports[p] {
			qs = append(qs, q)
		}
		sort.Strings(qs)
		for _, q := range qs {
			fq, ok := floors[q]
			if !ok {
				continue // reported as a package of its own
			}
			if fq >= fp {
				errorf("%s (floor %d) imports %s (floor %d) in %s: imports must run down", p, fp, q, fq, imports[p][q])
			}
		}
	}
}

// TestFloorsCatchAnImportUp: the floor rule rejects an import from a room
// to one above it (training/nn importing training/models, an arrow once
// there; the root of experiments/ importing a room, a learner importing
// the grid that runs it, the grid importing the report that reads it:
// arrows once there too) and from a room to its
// sibling, and allows every import the rooms make today.
func TestFloorsCatchAnImportUp(t *testing.T) {
	up := func(p, q string) bool { return floors[q] >= floors[p] }
	for _, c := range [][2]string{{"training/nn", "training/models"}, {"training/loss", "training/models"}, {"training/models", "training"}, {"training/nn", "training/device"},
		{"experiments", "experiments/learn"}, {"experiments", "experiments/grid"}, {"experiments", "experiments/report"},
		{"experiments/learn", "experiments/grid"}, {"experiments/learn", "experiments/report"}, {"experiments/grid", "experiments/report"},
		{"experiments/learn", "experiments/binary"}, {"experiments/report", "cmd/llpfc"}} {
		assert.True(t, up(c[0], c[1]), fmt.Sprintf("%s → %s should be refused", c[0], c[1]))
	}
	for _, c := range [][2]string{{"training", "training/nn"}, {"training/loss", "training/device"}, {"training/device/cpu", "training/device"},
		{"experiments/learn", "experiments"}, {"experiments/grid", "experiments/learn"}, {"experiments/report", "experiments/grid"},
		{"experiments", "experiments/data"}, {"experiments", "training"}, {"cmd/llpfc", "experiments/report"}} {
		assert.False(t, up(c[0], c[1]), fmt.Sprintf("%s → %s should be allowed", c[0], c[1]))
	}
	// A planted import up: the root of experiments/ importing its grid,
	// as the single package did (spec.go's LoadSpec beside Config), is
	// reported by the check TestImportsOneWay runs.
	planted := map[string]map[string]string{"experiments": {"experiments/grid": "experiments/config.go"}}
	var got []string
	checkFloors(planted, func(format string, args ...any) { got = append(got, fmt.Sprintf(format, args...)) })
	assert.Equal(t, []string{"experiments (floor 9) imports experiments/grid (floor 11) in experiments/config.go: imports must run down"}, got)
}

// TestMethodsRunOnTheDevice: outside the compute back ends
// (training/device/…) and the tests' support code (training/internal/…,
// finite differences), no non-test code builds or holds a gorgonia machine
// (NewTapeMachine, NewLispMachine, gorgonia.VM): the methods, losses and
// the evaluator run their graphs as programs compiled on a device.Backend,
// so a second back end runs all of them.
func TestMethodsRunOnTheDevice(t *testing.T) {
	machine := regexp.MustCompile(`\bgorgonia\.(NewTapeMachine|NewLispMachine|VM)\b`)
	checked := 0
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") || strings.HasPrefix(f, "training/device/") || strings.HasPrefix(f, "training/internal/") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		if strings.HasPrefix(f, "training/") {
			checked++
		}
		for _, m := range machine.FindAllString(string(b), -1) {
			t.Errorf("%s uses %s: compile a program on the run's device.Backend instead", f, m)
		}
	}
	assert.Greater(t, checked, 30, "the walk should read training/'s files")
	assert.True(t, machine.MatchString("m.vm = gorgonia.NewTapeMachine(g)"), "the pattern finds a machine")
}
