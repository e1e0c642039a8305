package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The output guard (guard.go): for every command × each
// of its output flags × each input it reads, an output that names the input
// — directly, through ./, through .., through a symbolic link, through a
// link followed by .. (which the kernel resolves from the link's target),
// through a hard link, or by a relative path from another working
// directory — exits 2 naming both flags, and leaves every file of the
// inputs byte-identical (no file is added to a bag-only directory either).

// guardTarget is one command × output flag × input: args with {dir} (the
// case's folder, absolute) and {out} (the output), the input the output
// names (relative to {dir}) and the flags the message must name; outOf
// turns a path to the input into the output's value (--save-model FILE
// writes FILE.npz and FILE.json).
type guardTarget struct {
	name            string
	args            []string
	outFlag, inFlag string
	input           string
	outOf           func(string) string
}

func same(p string) string     { return p }
func stripExt(p string) string { return strings.TrimSuffix(p, filepath.Ext(p)) }
func besideFile(name string) func(string) string {
	return func(p string) string { return p[:strings.LastIndexByte(p, '/')+1] + name } // no lexical cleaning: "link/.." must stay
}

const (
	addArray    = "predict --out adding an array to a bag-only folder"
	addNPZArray = "predict --out adding an array to an npz: folder"
)

var guardTargets = []guardTarget{
	{"train --save-model onto a bag-only .npz", []string{"train", "--data", "bags:{dir}/d/v.npz", "--epochs", "1", "--quiet", "--save-model", "{out}"}, "--save-model", "--data", "d/v.npz", stripExt},
	{"train --save-model onto --bags", []string{"train", "--data", "csv:{dir}/t.csv,{dir}/t.csv", "--bags", "{dir}/d/b.json", "--epochs", "1", "--quiet", "--save-model", "{out}"}, "--save-model", "--bags", "d/b.json", stripExt},
	{"train --out onto a bag-only .npz", []string{"train", "--data", "bags:{dir}/d/v.npz", "--epochs", "1", "--quiet", "--out", "{out}"}, "--out", "--data", "d/v.npz", same},
	{"predict --out onto a labelled test CSV", []string{"predict", "--model", "{dir}/m", "--data", "csv:{dir}/d/tr.csv,{dir}/d/te.csv", "--out", "{out}"}, "--out", "--data", "d/te.csv", same},
	{"predict --out onto a bag-only table's test.csv", []string{"predict", "--model", "{dir}/m", "--data", "bags:{dir}/bo", "--out", "{out}"}, "--out", "--data", "bo/test.csv", same},
	{"predict --out onto a bag-only folder's X.npy", []string{"predict", "--model", "{dir}/m", "--data", "bags:{dir}/bonpy", "--split", "train", "--out", "{out}"}, "--out", "--data", "bonpy/X.npy", same},
	{addArray, []string{"predict", "--model", "{dir}/m", "--data", "bags:{dir}/bonpy", "--split", "train", "--out", "{out}"}, "--out", "--data", "bonpy/X.npy", besideFile("preds.npy")},
	{"predict --out onto an npz: folder's X.npy", []string{"predict", "--model", "{dir}/m", "--data", "npz:{dir}/xnpy", "--split", "train", "--out", "{out}"}, "--out", "--data", "xnpy/X.npy", same},
	{addNPZArray, []string{"predict", "--model", "{dir}/m", "--data", "npz:{dir}/xnpy", "--split", "train", "--out", "{out}"}, "--out", "--data", "xnpy/X.npy", besideFile("preds.npy")},
	{"bags --out onto its table", []string{"bags", "--data", "csv:{dir}/d/t2.csv", "--bag-size", "8", "--num-points", "64", "--out", "{out}"}, "--out", "--data", "d/t2.csv", same},
	{"run --results onto the spec", []string{"run", "{dir}/d/s.json", "--results", "{out}"}, "--results", "SPEC", "d/s.json", same},
	{"run --results onto the spec's data set", []string{"run", "{dir}/d/s.json", "--results", "{out}"}, "--results", "data set", "d/t2.csv", same},
	{"merge --out onto a source store", []string{"merge", "--out", "{out}", "{dir}/store"}, "--out", "SRC", "store", same},
	{"report --csv onto a cell file", []string{"report", "--results", "{dir}/store", "--out", "{dir}/rep", "--csv", "{out}"}, "--csv", "--results", "store/cells/{cell}", same},
	{"reproduce --results onto --data", []string{"reproduce", "--quick", "--data", "bags:{dir}/d/v.npz", "--results", "{out}", "--out", "{dir}/rep"}, "--results", "--data", "d/v.npz", same},
	{"reproduce --out onto --data", []string{"reproduce", "--quick", "--data", "bags:{dir}/d/v.npz", "--results", "{dir}/res", "--out", "{out}"}, "--out", "--data", "d/v.npz", same},
}

// guardVariants are the ways a path can name the input: each returns the
// path and the working directory to run in (relative to the case's
// folder). in is the input relative to the folder.
var guardVariants = []struct {
	name string
	path func(dir, in string) (path, wd string)
}{
	{"absolute", func(dir, in string) (string, string) { return filepath.Join(dir, in), "" }},
	{"relative", func(_, in string) (string, string) { return in, "" }},
	{"./", func(_, in string) (string, string) { return "./" + in, "" }},
	{"..", func(_, in string) (string, string) { return "sub/../" + in, "" }},
	{"symbolic link", func(_, in string) (string, string) { return "link/" + in, "" }},
	{"link then ..", func(_, in string) (string, string) { return "deep/../../" + in, "" }},
	{"from another working directory", func(_, in string) (string, string) { return "../" + in, "elsewhere" }},
	{"hard link", func(_, in string) (string, string) { return "hard/" + filepath.Base(in), "" }},
}

// guardFixture makes, once, the inputs every target reads: a bag-only .npz,
// table folder and array folder, labelled CSV files, a bags file, a spec, a
// results store with one cell, and a model trained on the table folder.
func guardFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(fixturePath)
	require.NoError(t, err)
	writeFile(t, dir, "d/v.npz", string(b))
	writeTable(t, dir, 200)
	writeFile(t, dir, "d/tr.csv", "label,x1,x2\nno,1,2\nyes,3,4\nno,0,1\n")
	// The columns and classes of bo, which m is trained on.
	writeFile(t, dir, "d/te.csv", "label,x1,x2\nno,1,2\nyes,3,4\n")
	writeFile(t, dir, "d/t2.csv", strings.Replace(readString(t, filepath.Join(dir, "t.csv")), "label,a,b", "label,p,q", 1))
	writeBagOnlyInputs(t, dir)
	writeFile(t, dir, "bonpy/X.npy", string(npyRaw("<f8", "(4, 2)", make([]byte, 64))))
	writeFile(t, dir, "xnpy/X.npy", string(npyRaw("<f8", "(4, 2)", make([]byte, 64)))) // an npz: folder (as the Python client writes)
	writeFile(t, dir, "bonpy/bag.npy", string(npyRaw("<i8", "(4,)", []byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})))
	half := []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x3f} // 0.5 as a little-endian float64
	writeFile(t, dir, "bonpy/proportions.npy", string(npyRaw("<f8", "(2, 2)", bytes.Repeat(half, 4))))
	code, _, stderr := runCmd("bags", "--data", "csv:"+dir+"/t.csv", "--bag-size", "8", "--num-points", "64", "--out", dir+"/d/b.json")
	require.Equal(t, exitOK, code, stderr)
	spec := strings.Replace(tinySpec, `"gmm:classes=3,dim=4,train=600,test=100"`, `"csv:`+dir+`/d/t2.csv,`+dir+`/d/t2.csv"`, 1)
	writeFile(t, dir, "d/s.json", strings.Replace(spec, `"num_points": 256`, `"num_points": 64`, 1))
	storeWithCell(t, dir, "store")
	code, _, stderr = runCmd("train", "--data", "bags:"+dir+"/bo", "--epochs", "1", "--quiet", "--save-model", dir+"/m")
	require.Equal(t, exitOK, code, stderr)
	return dir
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// copyTree copies the regular files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}

// treeHashes maps every regular file under dir to its SHA-256.
func treeHashes(dir string) map[string][32]byte {
	out := map[string][32]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil {
				rel, _ := filepath.Rel(dir, p)
				out[rel] = sha256.Sum256(b)
			}
		}
		return nil
	})
	return out
}

// guardCase is a target and a variant, drawn by the property.
type guardCase struct {
	Target, Variant int
}

func (c guardCase) String() string {
	return fmt.Sprintf("%s, %s", guardTargets[c.Target].name, guardVariants[c.Variant].name)
}

// check runs the case in a copy of the fixture and returns what went
// wrong.
func (c guardCase) check(t *testing.T, fixture string) error {
	tg, v := guardTargets[c.Target], guardVariants[c.Variant]
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	spec := filepath.Join(dir, "d", "s.json")
	if err := os.WriteFile(spec, []byte(strings.ReplaceAll(readString(t, spec), fixture, dir)), 0o644); err != nil {
		return err
	}
	cells, _ := filepath.Glob(filepath.Join(dir, "store", "cells", "*.json"))
	if len(cells) != 1 {
		return fmt.Errorf("the fixture's store holds %d cells, want 1", len(cells))
	}
	in := strings.ReplaceAll(tg.input, "{cell}", filepath.Base(cells[0]))
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
		if err := os.Link(filepath.Join(dir, in), filepath.Join(dir, "hard", filepath.Base(in))); err != nil {
			return err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "hard", filepath.Base(in))); v.name == "hard link" && (err != nil || tg.name == addArray || tg.name == addNPZArray) {
		return nil // a folder has no hard link, and a new file in the folder none
	}
	path, wd := v.path(dir, in)
	out := tg.outOf(path)
	args := make([]string, len(tg.args))
	for i, a := range tg.args {
		args[i] = strings.NewReplacer("{dir}", dir, "{out}", out).Replace(a)
	}
	before := treeHashes(dir)
	old, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Chdir(filepath.Join(dir, wd)); err != nil {
		return err
	}
	code, _, stderr := runCmd(args...)
	if err := os.Chdir(old); err != nil {
		return err
	}
	if err := noCrash(args, stderr); err != nil {
		return err
	}
	switch {
	case code != exitBadUsage:
		return fmt.Errorf("llpfc %q: exit %d, want 2: %s", args, code, stderr)
	case !strings.Contains(stderr, tg.outFlag) || !strings.Contains(stderr, tg.inFlag):
		return fmt.Errorf("llpfc %q: the message names not both %s and %s: %s", args, tg.outFlag, tg.inFlag, stderr)
	}
	after := treeHashes(dir)
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

// TestPropertyOutputGuard draws command × output flag × input × way of
// naming it (gopter; every pair once in make test's default count: 14
// targets × 8 variants), and checks the exit status, the message and the
// input files.
func TestPropertyOutputGuard(t *testing.T) {
	fixture := guardFixture(t)
	n := len(guardTargets) * len(guardVariants)
	i := 0
	forAllCases(t, "an output naming an input is refused, the input untouched", gridCases(n), func(r *rand.Rand) guardCase {
		// The first n cases walk every pair; further ones (LLPFC_GRID_CASES)
		// are drawn.
		c := guardCase{i % len(guardTargets), (i / len(guardTargets)) % len(guardVariants)}
		if i >= n {
			c = guardCase{r.Intn(len(guardTargets)), r.Intn(len(guardVariants))}
		}
		i++
		return c
	}, func(c guardCase) error { return c.check(t, fixture) })
}

// Without a conflict the same command lines run (the guard refuses the
// clash, not the command): each target with its output moved to a fresh
// name exits 0 or fails for a reason other than the guard's.
func TestOutputGuardLetsOthersThrough(t *testing.T) {
	fixture := guardFixture(t)
	for _, tg := range guardTargets {
		if strings.HasPrefix(tg.args[0], "reproduce") || tg.args[0] == "train" && tg.outFlag == "--out" {
			continue // a grid or a run trains; others cover it
		}
		t.Run(tg.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, fixture, dir)
			spec := filepath.Join(dir, "d", "s.json")
			require.NoError(t, os.WriteFile(spec, []byte(strings.ReplaceAll(readString(t, spec), fixture, dir)), 0o644))
			out := filepath.Join(dir, "fresh", "o"+filepath.Ext(tg.input))
			require.NoError(t, os.MkdirAll(filepath.Dir(out), 0o755))
			if tg.outFlag == "--save-model" {
				out = stripExt(out)
			}
			if ext := filepath.Ext(tg.input); tg.args[0] == "predict" && ext != ".csv" && ext != ".npy" {
				out += ".csv"
			}
			args := make([]string, len(tg.args))
			for i, a := range tg.args {
				args[i] = strings.NewReplacer("{dir}", dir, "{out}", out).Replace(a)
			}
			code, _, stderr := runCmd(args...)
			assert.Equal(t, exitOK, code, "llpfc %q: %s", args, stderr)
		})
	}
}
