package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Stores say what they hold: once the data of a
// finished cell changed, run --list shows it stale, run --check exits 1
// naming it, and report warns and says so in report.md (all three showed it
// as finished); restored, the data make it finished again.
func TestStaleCellsAreFlagged(t *testing.T) {
	dir := t.TempDir()
	table := writeTable(t, dir, 400)
	spec := writeFile(t, dir, "s.json", strings.Replace(tinySpec, `"gmm:classes=3,dim=4,train=600,test=100"`, `"csv:`+table+`,`+table+`"`, 1))
	store := filepath.Join(dir, "store")
	code, _, stderr := runCmd("run", spec, "--results", store)
	require.Equal(t, exitOK, code, stderr)
	orig := readString(t, table)
	require.NoError(t, os.WriteFile(table, []byte(orig+strings.SplitN(orig, "\n", 3)[1]+"\n"), 0o644)) // a row more

	code, stdout, stderr := runCmd("run", spec, "--results", store, "--list")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "stale (ran on other contents of its data")
	assert.NotContains(t, stdout, "done")
	assert.Contains(t, stderr, "ran on other contents of data set csv:"+table)

	code, _, stderr = runCmd("run", spec, "--results", store, "--check")
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "1 of the 1 cells of t in "+store+" are stale")

	code, _, stderr = runCmd("report", "--results", store, "--out", filepath.Join(dir, "rep"))
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "1 cells are stale, reported as they ran")
	assert.Contains(t, readString(t, filepath.Join(dir, "rep", "report.md")), "**Stale: 1 of these cells ran on data that changed since**")

	code, _, _ = runCmd("run", spec, "--results", store)
	assert.Equal(t, exitBadUsage, code, "run refuses the store, as before")

	require.NoError(t, os.WriteFile(table, []byte(orig), 0o644))
	code, stdout, _ = runCmd("run", spec, "--results", store, "--list")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "done")
	code, _, stderr = runCmd("run", spec, "--results", store, "--check")
	assert.Equal(t, exitOK, code, stderr)
}

// Two llpfc run processes on one store (two terminals, two array tasks
// sharing --results) share its cells (both once trained every cell):
// together they train each cell once, both exit 0, and the store
// holds every cell.
func TestTwoRunsShareAStore(t *testing.T) {
	bin := buildLLPFC(t)
	dir := t.TempDir()
	spec := writeFile(t, dir, "s.json", strings.NewReplacer(
		`"learner": "logreg", "model": "linear"`, `"learner": "gorgonia", "model": "mlp"`,
		`"seeds": [0]`, `"seeds": [0, 1, 2, 3, 4, 5]`,
		`"epochs": 1`, `"epochs": 8`).Replace(tinySpec))
	store := filepath.Join(dir, "store")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for k := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := exec.Command(bin, "run", spec, "--results", store).CombinedOutput()
			outs[k], errs[k] = string(b), err
		}()
	}
	wg.Wait()
	ran := 0
	for k := range outs {
		require.NoError(t, errs[k], outs[k])
		m := runLine.FindStringSubmatch(outs[k])
		require.NotNil(t, m, outs[k])
		n, _ := strconv.Atoi(m[3])
		ran += n
		in, _ := strconv.Atoi(m[1])
		finished, _ := strconv.Atoi(m[4])
		assert.Equal(t, in, n+finished, "each run ends with the whole shard: %s", outs[k])
	}
	assert.Equal(t, 6, ran, "the two runs trained %d cells of 6 between them:\n%s\n%s", ran, outs[0], outs[1])
	assert.Len(t, storeKeys(t, store), 6)
}
