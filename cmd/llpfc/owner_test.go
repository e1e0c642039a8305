package main

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ownership (guard.go): a results store and a saved model
// belong to the commands that made them. For generated stores (which
// cells, with or without models/, damaged/ and a report/ folder) and
// saved models, every command × output flag that would write inside a
// store (but a report outside its cells/, models/, damaged/) or over a
// model, a cell file or a NumPy archive — named through every path
// spelling of the output guard's property — exits 2 naming the flag and
// what it would overwrite, and changes and adds no file.

// ownerTarget is one command × output flag × owned place: args with {dir}
// and {out}; owned is the place relative to the case's folder ({cell} and
// {model} the generated store's cell and model keys), outOf turns a path
// to it into the output's value; needs is what the store must hold.
type ownerTarget struct {
	name, outFlag string
	args          []string
	owned         string
	outOf         func(string) string
	needs         string // "", "cell", "model", "damaged"
}

var ownerTargets = []ownerTarget{
	{"report --csv over a store's manifest", "--csv", []string{"report", "--results", "{dir}/store", "--out", "{dir}/rep", "--csv", "{out}"}, "ms/models/{model}.json", same, "model"},
	{"report --csv over a store's weights", "--csv", []string{"report", "--results", "{dir}/store", "--out", "{dir}/rep", "--csv", "{out}"}, "ms/models/{model}.npz", same, "model"},
	{"report --csv over a store's cell", "--csv", []string{"report", "--results", "{dir}/store", "--out", "{dir}/rep", "--csv", "{out}"}, "ms/cells/{cell}.json", same, "cell"},
	{"train --save-model onto a store's cell", "--save-model", []string{"train", "--data", "bags:{dir}/bo", "--epochs", "1", "--quiet", "--save-model", "{out}"}, "ms/cells/{cell}.json", stripExt, "cell"},
	{"train --save-model into a store's models/", "--save-model", []string{"train", "--data", "bags:{dir}/bo", "--epochs", "1", "--quiet", "--save-model", "{out}"}, "ms/models/{model}.npz", stripExt, "model"},
	{"report --out into a store's cells/", "--out", []string{"report", "--results", "{dir}/store", "--out", "{out}"}, "ms/cells", same, ""},
	{"report --out into a store's models/", "--out", []string{"report", "--results", "{dir}/ms", "--out", "{out}"}, "ms/models", same, "model"},
	{"predict --out a new table in a store's cells/", "--out", []string{"predict", "--model", "{dir}/m", "--data", "bags:{dir}/bo", "--out", "{out}"}, "ms/cells/p.csv", same, ""},
	{"predict --out a table in a store's report/", "--out", []string{"predict", "--model", "{dir}/m", "--data", "bags:{dir}/bo", "--out", "{out}"}, "ms/p.csv", same, ""},
	{"bags --out over a store's damaged cell", "--out", []string{"bags", "--data", "csv:{dir}/d/t2.csv", "--bag-size", "8", "--num-points", "64", "--out", "{out}"}, "ms/damaged/{cell}.json", same, "damaged"},
	{"bags --out over a saved model's manifest", "--out", []string{"bags", "--data", "csv:{dir}/d/t2.csv", "--bag-size", "8", "--num-points", "64", "--out", "{out}"}, "m.json", same, ""},
	{"report --csv over a saved model's weights", "--csv", []string{"report", "--results", "{dir}/store", "--out", "{dir}/rep", "--csv", "{out}"}, "m.npz", same, ""},
	{"train --save-model over a file of no model", "--save-model", []string{"train", "--data", "bags:{dir}/bo", "--epochs", "1", "--quiet", "--save-model", "{out}"}, "notes.json", stripExt, ""},
	{"train --out the store itself", "--out", []string{"train", "--data", "bags:{dir}/bo", "--epochs", "1", "--quiet", "--out", "{out}"}, "ms", same, ""},
	{"run --results a store in a store's cells/", "--results", []string{"run", "{dir}/tiny.json", "--results", "{out}"}, "ms/cells/sub", same, ""},
	{"merge --out a store's models/", "--out", []string{"merge", "--out", "{out}", "{dir}/store"}, "ms/models", same, "model"},
	{"reproduce --out into a store's damaged/", "--out", []string{"reproduce", "--quick", "--data", "bags:{dir}/bo", "--results", "{dir}/res", "--out", "{out}"}, "ms/damaged", same, "damaged"},
}

// ownerWords are the words one of which the message must say: what the
// output would write into or over.
var ownerWords = []string{"results store", "saved model's manifest", "NumPy archive", "cell of a results store", "no saved model"}

// ownerCase is a generated store, a target and a spelling.
type ownerCase struct {
	Cells            []string // which of the fixture's cells the store holds: "logreg", "mlp"
	Models, Damaged  bool     // the mlp cell's model kept; a damaged cell set aside
	Report           bool     // a report written into the store
	Target, Spelling int
}

func (c ownerCase) String() string {
	return fmt.Sprintf("store %v models %v damaged %v report %v; %s, %s", c.Cells, c.Models, c.Damaged, c.Report,
		ownerTargets[c.Target].name, guardVariants[c.Spelling].name)
}

// eligible reports whether the store of c holds what its target needs.
func (c ownerCase) eligible() bool {
	switch ownerTargets[c.Target].needs {
	case "cell":
		return len(c.Cells) > 0
	case "model":
		return c.Models
	case "damaged":
		return c.Damaged
	}
	return true
}

// genOwnerCase draws a store and an eligible target.
func genOwnerCase(r *rand.Rand) ownerCase {
	for {
		var c ownerCase
		for _, name := range []string{"logreg", "mlp"} {
			if r.Intn(2) == 0 {
				c.Cells = append(c.Cells, name)
			}
		}
		c.Models = contains(c.Cells, "mlp") && r.Intn(3) > 0
		c.Damaged, c.Report = r.Intn(2) == 0, r.Intn(2) == 0
		c.Target, c.Spelling = r.Intn(len(ownerTargets)), r.Intn(len(guardVariants))
		if c.eligible() {
			return c
		}
	}
}

// ownerFixture adds to the output guard's fixture a store whose cell has
// its model (mstore: the mlp cell of the tiny spec) and a file of no model.
func ownerFixture(t *testing.T) string {
	t.Helper()
	dir := guardFixture(t)
	spec := writeFile(t, dir, "tinym.json", strings.Replace(tinySpec, `"learner": "logreg", "model": "linear"`, `"learner": "gorgonia", "model": "mlp"`, 1))
	code, _, stderr := runCmd("run", spec, "--results", dir+"/mstore", "--save-models")
	require.Equal(t, exitOK, code, stderr)
	writeFile(t, dir, "notes.json", `{"mine": true}`)
	return dir
}

// makeStore builds the case's store ms in dir from the fixture's stores and
// returns its cell's and model's keys.
func (c ownerCase) makeStore(t *testing.T, dir string) (cell, model string) {
	src := map[string]string{"logreg": "store", "mlp": "mstore"}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ms", "cells"), 0o755))
	for _, name := range c.Cells {
		files, _ := filepath.Glob(filepath.Join(dir, src[name], "cells", "*.json"))
		require.Len(t, files, 1)
		cell = strings.TrimSuffix(filepath.Base(files[0]), ".json")
		writeFile(t, dir, "ms/cells/"+cell+".json", readString(t, files[0]))
		if name == "mlp" && c.Models {
			model = cell
			for _, ext := range []string{".json", ".npz"} {
				writeFile(t, dir, "ms/models/"+cell+ext, readString(t, filepath.Join(dir, "mstore", "models", cell+ext)))
			}
		}
	}
	if c.Damaged {
		name := cell
		if name == "" {
			name = "0123456789abcdef0123456789abcdef"
		}
		writeFile(t, dir, "ms/damaged/"+name+".json", `{"format": "llpfc-result/1", "key": "torn`)
	}
	if c.Report {
		writeFile(t, dir, "ms/report/report.md", "# llpfc results\n")
	}
	return cell, model
}

// check runs the case in a copy of the fixture.
func (c ownerCase) check(t *testing.T, fixture string) error {
	tg, v := ownerTargets[c.Target], guardVariants[c.Spelling]
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	cell, model := c.makeStore(t, dir)
	if cell == "" {
		cell = "0123456789abcdef0123456789abcdef" // the damaged file's name in a store of no cell
	}
	in := strings.NewReplacer("{cell}", cell, "{model}", model).Replace(tg.owned)
	if err := spellings(dir, in); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, "hard", filepath.Base(in))); v.name == "hard link" && err != nil {
		return nil // a folder, or a file yet to be made, has no hard link
	}
	path, wd := v.path(dir, in)
	args := make([]string, len(tg.args))
	for i, a := range tg.args {
		args[i] = strings.NewReplacer("{dir}", dir, "{out}", tg.outOf(path)).Replace(a)
	}
	before := treeHashes(dir)
	code, stderr, err := runIn(filepath.Join(dir, wd), args)
	if err != nil {
		return err
	}
	switch {
	case code != exitBadUsage:
		return fmt.Errorf("llpfc %q: exit %d, want 2: %s", args, code, stderr)
	case !strings.Contains(stderr, tg.outFlag) || !containsAny(stderr, ownerWords):
		return fmt.Errorf("llpfc %q: the message names not both %s and what it would overwrite: %s", args, tg.outFlag, stderr)
	}
	return sameTree(args, before, treeHashes(dir))
}

// spellings makes the links the path variants go through, and a hard link
// to the place when it is a file.
func spellings(dir, in string) error {
	for _, sub := range []string{"sub", "elsewhere", "a/b", "hard"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	if err := os.Symlink(dir, filepath.Join(dir, "link")); err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "deep")); err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Join(dir, in)); err == nil && !st.IsDir() {
		return os.Link(filepath.Join(dir, in), filepath.Join(dir, "hard", filepath.Base(in)))
	}
	return nil
}

// runIn runs llpfc in the folder wd and checks that it did not crash.
func runIn(wd string, args []string) (int, string, error) {
	old, err := os.Getwd()
	if err != nil {
		return 0, "", err
	}
	if err := os.Chdir(wd); err != nil {
		return 0, "", err
	}
	code, _, stderr := runCmd(args...)
	if err := os.Chdir(old); err != nil {
		return 0, "", err
	}
	return code, stderr, noCrash(args, stderr)
}

// sameTree reports a file changed or added between two treeHashes.
func sameTree(args []string, before, after map[string][32]byte) error {
	for f, h := range before {
		if after[f] != h {
			return fmt.Errorf("llpfc %q: %s changed", args, f)
		}
	}
	var added []string
	for f := range after {
		if _, ok := before[f]; !ok {
			added = append(added, f)
		}
	}
	sort.Strings(added)
	if len(added) > 0 {
		return fmt.Errorf("llpfc %q: wrote %v", args, added)
	}
	return nil
}

// TestPropertyOwnership draws stores, targets and spellings (gopter; 120
// cases in make test, LLPFC_GRID_CASES for more).
func TestPropertyOwnership(t *testing.T) {
	fixture := ownerFixture(t)
	forAllCases(t, "no output writes inside a store or over a model", gridCases(120), genOwnerCase,
		func(c ownerCase) error { return c.check(t, fixture) })
}

// The store's own commands still write it, and a model still replaces a
// model: report into the store (its root, its default report/), run into
// its own store, merge into a store, --save-model over a saved model.
func TestOwnersStillWrite(t *testing.T) {
	fixture := ownerFixture(t)
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	for _, args := range [][]string{
		{"report", "--results", dir + "/mstore", "--out", dir + "/mstore"},
		{"report", "--results", dir + "/mstore", "--csv", dir + "/mstore/cells.csv"},
		{"report", "--results", dir + "/mstore"},
		{"run", dir + "/tinym.json", "--results", dir + "/mstore", "--save-models"},
		{"merge", "--out", dir + "/mstore", dir + "/store"},
		{"train", "--data", "bags:" + dir + "/bo", "--epochs", "1", "--quiet", "--save-model", dir + "/m"},
		{"train", "--data", "bags:" + dir + "/bo", "--epochs", "1", "--quiet", "--save-model", dir + "/new/folder/m2"},
	} {
		code, _, stderr := runCmd(args...)
		assert.Equal(t, exitOK, code, "llpfc %q: %s", args, stderr)
	}
	assert.FileExists(t, dir+"/mstore/report/report.md")
	assert.FileExists(t, dir+"/new/folder/m2.json", "an output's missing folders are made")
	code, _, stderr := runCmd("predict", "--model", dir+"/m", "--data", "bags:"+dir+"/bo")
	assert.Equal(t, exitOK, code, "the replaced model loads: %s", stderr)
}
