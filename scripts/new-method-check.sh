#!/usr/bin/env bash
# Adds a bag objective to a copy of this checkout exactly as ARCHITECTURE.md's
# "How to add a method" says — its file (training/loss/NAME.go), its test
# (training/loss/NAME_test.go) and one registration (appended to
# training/methods/bagobjectives.go), with a setting of its own — runs
# `go generate ./...`, and checks that
#   - nothing under results/ changed (no grid, store, report or plot),
#   - the files go generate rewrote are the derived ones (the help goldens,
#     the op list, the table of methods in docs/methods.md) and nothing else,
#   - the registry-driven tests pass with it: its gradient by finite
#     differences, the op list, the help, the methods table in docs/methods.md, the built-in
#     grids and the committed reports, the method names' rule, and its own test.
# Run by TestANewBagObjectiveIsItsFilesAndGoGenerate (internal/repocheck). With
# NEW_METHOD_CHECK_ALL=1 it runs `make test` in the copy instead of the
# registry-driven tests alone: every test of the repository with the new
# method (but this check itself, which the copy's test skips: it is the copy).
# Exit status 0 when every check passes, 1 otherwise (saying which).
set -euo pipefail
cd "$(dirname "$0")/.."
orig=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy="$tmp/llpfc"
mkdir "$copy"
# The tracked files plus any uncommitted edits, without .git and build outputs.
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$copy"
cd "$copy"
export NEW_METHOD_CHECK_COPY=1 # the copy's TestANewBagObjectiveIsItsFilesAndGoGenerate skips: this is it
digest() { (cd "$1" && find . -type f ! -path './.git/*' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum); }
digest "$copy" > "$tmp/before"
NAME=throwaway # the new objective's files: training/loss/NAME.go and its test

# 1. The loss: a BagObjective on the softmax outputs, with a setting.
cat > "training/loss/$NAME.go" <<'EOF'
package loss

import "fmt"

// Throwaway is a bag objective added by scripts/new-method-check.sh: the
// squared error of each bag's mean prediction against its proportions, times
// Scale, averaged over the minibatch's bags.
type Throwaway struct {
	Scale float64
	mean  []float64
}

// Head implements BagObjective: the softmax outputs.
func (*Throwaway) Head() Head { return HeadSoftmax }

// Loss implements BagObjective.
func (l *Throwaway) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	if len(bags) == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("throwaway loss: %d bags, %d outputs", len(bags), len(out))
	}
	l.mean = growF(l.mean, C)
	var total float64
	start := 0
	for _, b := range bags {
		m := len(b.Indices)
		clear(l.mean)
		for i := start; i < start+m; i++ {
			for c := 0; c < C; c++ {
				l.mean[c] += out[i*C+c] / float64(m)
			}
		}
		for c := 0; c < C; c++ {
			d := l.mean[c] - b.Proportions[c]
			total += l.Scale * d * d / float64(len(bags))
			for i := start; i < start+m; i++ {
				grad[i*C+c] = 2 * l.Scale * d / float64(m*len(bags))
			}
		}
		start += m
	}
	return total, nil
}
EOF
# 2. Its test, on a case worked by hand.
cat > "training/loss/${NAME}_test.go" <<'EOF'
package loss

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One bag of two instances predicting (0.8, 0.2) and (0.4, 0.6): mean
// (0.6, 0.4), against (½, ½) a loss of 3·(0.01 + 0.01) = 0.06 at scale 3.
func TestThrowawayByHand(t *testing.T) {
	grad := make([]float64, 4)
	l, err := (&Throwaway{Scale: 3}).Loss([]float64{0.8, 0.2, 0.4, 0.6}, 2, []BagRef{{Indices: []int{0, 1}, Proportions: []float64{0.5, 0.5}}}, grad)
	require.NoError(t, err)
	assert.InDelta(t, 0.06, l, 1e-15)
	assert.InDeltaSlice(t, []float64{0.3, -0.3, 0.3, -0.3}, grad, 1e-15)
}
EOF
# 3. One registration.
cat >> training/methods/bagobjectives.go <<'EOF'

// Throwaway is the name of the objective scripts/new-method-check.sh adds.
const Throwaway = "throwaway"

// throwawayWeight is its own setting.
var throwawayWeight = Setting{Name: "throwaway_weight", Kind: KindFloat, Default: "1", Min: 0, MinExcluded: true, Max: 100,
	Help: "a factor on the throwaway loss"}

func init() {
	RegisterBag(Descriptor{Name: Throwaway, Label: "Throwaway", Order: 75, DefaultBatch: 4, Search: DefaultSearch,
		Paper: "a check of the how-to (scripts/new-method-check.sh)", Help: "the squared proportion error, scaled",
		Settings: []*Setting{&throwawayWeight}},
		BagSpec{Objective: func(env *Env) (loss.BagObjective, error) {
			return &loss.Throwaway{Scale: env.Config.Setting(throwawayWeight.Name).Num}, nil
		}})
}
EOF
digest "$copy" > "$tmp/added"

echo "new-method-check: go generate ./... in a copy with a throwaway bag objective"
go generate ./... > "$tmp/generate.log" 2>&1 || { cat "$tmp/generate.log"; echo "new-method-check: go generate failed"; exit 1; }
digest "$copy" > "$tmp/after"

status=0
changed=$({ diff "$tmp/added" "$tmp/after" || true; } | sed -n 's/^> [0-9a-f]*  \.\///p' | LC_ALL=C sort -u)
echo "new-method-check: go generate rewrote:"
echo "$changed" | sed 's/^/  /'
if echo "$changed" | grep -q '^results/'; then
  echo "new-method-check: FAIL: go generate changed results/"
  status=1
fi
unexpected=$(echo "$changed" | grep -v -E '^(cmd/llpfc/testdata/help/[a-z-]+\.golden|training/testdata/ops\.golden|docs/methods\.md)$' || true)
if [ -n "$unexpected" ]; then
  echo "new-method-check: FAIL: go generate rewrote files that are not derived from the registry:"
  echo "$unexpected" | sed 's/^/  /'
  status=1
fi
grep -q throwaway_weight docs/methods.md || { echo "new-method-check: FAIL: the table of methods in docs/methods.md does not list the new setting"; status=1; }
for f in training/testdata/ops.golden docs/methods.md cmd/llpfc/testdata/help/train.golden; do
  grep -q throwaway "$f" || { echo "new-method-check: FAIL: $f does not name the new method"; status=1; }
done

if [ "${NEW_METHOD_CHECK_ALL:-}" = 1 ]; then
  echo "new-method-check: make test in the copy (NEW_METHOD_CHECK_ALL=1)"
  make test || { echo "new-method-check: FAIL: make test"; status=1; }
  [ "$status" = 0 ] && echo "new-method-check: PASS"
  exit "$status"
fi
echo "new-method-check: the registry-driven tests"
# Every test of the packages that read the registry and are quick; the
# registry-driven ones of the slow packages.
go test -count=1 ./training/methods ./experiments/... ./internal/repocheck ./cmd/mutate \
  || { echo "new-method-check: FAIL: a registry-driven test"; status=1; }
go test -count=1 \
  -run '^(TestThrowawayByHand|TestBagObjectiveReadsItsOwnHead|TestOpListGolden|TestHelpGolden|TestReadmeMethodsTable|TestMethodsJSONListsTheRegistry|TestDefaultBatchIsTheDescriptors|TestCommittedReportsRegenerate|TestANewMethodChangesNothingCommitted|TestANewMethodsSettingReachesFlagSpecKeyAndResult|TestTableCellsGolden)$' \
  ./training/loss ./training ./cmd/llpfc \
  || { echo "new-method-check: FAIL: a registry-driven test"; status=1; }
[ "$status" = 0 ] && echo "new-method-check: PASS"
exit "$status"
