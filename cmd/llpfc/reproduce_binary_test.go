package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeAdultFiles writes adult.data and adult.test in the UCI format (", "
// separators, '?' values, the test file's "|1x3 Cross validator" first line
// and trailing '.' on its labels) with income depending on age, education
// and hours, so that a classifier can learn it.
func writeAdultFiles(t *testing.T, dir string, nTrain, nTest int) {
	r := rand.New(rand.NewPCG(1, 2))
	works := []string{"Private", "Self-emp-not-inc", "State-gov", "?"}
	edus := []string{"Bachelors", "HS-grad", "Masters", "11th"}
	rec := func(test bool) string {
		age := 20 + r.IntN(50)
		edu := r.IntN(len(edus))
		hours := 20 + r.IntN(40)
		score := float64(age-40)/10 + float64(hours-40)/10 + []float64{1, -1, 2, -2}[edu] + r.NormFloat64()
		label := "<=50K"
		if score > 1 {
			label = ">50K"
		}
		if test {
			label += "."
		}
		country := "United-States"
		if r.IntN(10) == 0 {
			country = "?"
		}
		return fmt.Sprintf("%d, %s, %d, %s, %d, Never-married, Adm-clerical, Not-in-family, White, Male, 0, 0, %d, %s, %s\n",
			age, works[r.IntN(len(works))], 100000+r.IntN(100000), edus[edu], 9+edu, hours, country, label)
	}
	var tr, te strings.Builder
	for i := 0; i < nTrain; i++ {
		tr.WriteString(rec(false))
	}
	tr.WriteString("\n")
	te.WriteString("|1x3 Cross validator\n")
	for i := 0; i < nTest; i++ {
		te.WriteString(rec(true))
	}
	os.MkdirAll(filepath.Join(dir, "adult"), 0o755)
	os.WriteFile(filepath.Join(dir, "adult", "adult.data"), []byte(tr.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "adult", "adult.test"), []byte(te.String()), 0o644)
}

func writeMagicFile(t *testing.T, dir string, n int) {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < n; i++ {
		g := r.IntN(2) == 0
		c := "h"
		if g {
			c = "g"
		}
		for j := 0; j < 10; j++ {
			v := 10*r.NormFloat64() + 50
			if g && j < 3 {
				v += 12
			}
			fmt.Fprintf(&b, "%.4f,", v)
		}
		b.WriteString(c + "\n")
	}
	os.WriteFile(filepath.Join(dir, "magic04.data"), []byte(b.String()), 0o644)
}

// Files in the UCI formats go end to end through `reproduce --table binary`:
// all five methods on both data sets and intervals, the table with the
// paper's numbers beside ours, the cell store, and a second run that only
// reports.
func TestReproduceBinaryOnGeneratedUCIFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 5 methods × 2 data sets × 2 intervals with cross-validation")
	}
	dir := t.TempDir()
	writeAdultFiles(t, dir, 600, 200)
	writeMagicFile(t, dir, 500)
	res, rep := filepath.Join(dir, "res"), filepath.Join(dir, "rep")
	args := []string{"--table", "binary", "--data-dir", dir, "--results", res, "--out", rep,
		"--trials", "1", "--bag-sizes", "8", "--train-size", "160", "--test-size", "100"}
	var out, errb bytes.Buffer
	require.Equal(t, exitOK, runReproduce(args, &out, &errb), "stderr:\n%s", errb.String())
	md := out.String()
	for _, want := range []string{"## adult, label proportions in [0,0.5]", "## magic, label proportions in [0.5,1]",
		"| llpfc-approx |", "| alter-psvm |", " / 0.8720 ± 0.0035", "(1)"} {
		assert.Contains(t, md, want, "report lacks %q", want)
	}
	assert.False(t, strings.Contains(md, "| — |") || strings.Contains(md, "—  /"), "report has an empty cell:\n%s", md)
	cells, _ := filepath.Glob(filepath.Join(res, "cells", "*.json"))
	assert.Len(t, cells, 2*2*5, "cells stored")
	b, _ := os.ReadFile(filepath.Join(res, "cells", "adult_lp0-0.5_b8_t0_llpfc-uniform.json"))
	for _, want := range []string{`"selected"`, `"lambda"`, `"auc"`, `"cv"`, `"code_version"`, `"wall_seconds"`} {
		assert.True(t, bytes.Contains(b, []byte(want)), "stored cell lacks %s", want)
	}
	// A second run trains nothing.
	out.Reset()
	errb.Reset()
	code := runReproduce(args, &out, &errb)
	assert.True(t, code == exitOK && strings.Contains(errb.String(), "20 already in"), "second run: exit %d, stderr %s", code, errb.String())
}

func TestReproduceBinaryMissingFilesAndDryRun(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := runReproduce([]string{"--table", "binary", "--data-dir", dir, "--results", filepath.Join(dir, "r")}, &out, &errb)
	assert.True(t, code == exitBadUsage && strings.Contains(errb.String(), "archive.ics.uci.edu") && strings.Contains(errb.String(), "--offline"),
		"missing files: exit %d, stderr %s", code, errb.String())
	errb.Reset()
	code = runReproduce([]string{"--table=binary", "--dry-run", "--data-dir", dir}, &out, &errb)
	assert.True(t, code == exitOK && strings.Contains(errb.String(), "400 cells"), "dry run: exit %d, stderr %s", code, errb.String())
	assert.Equal(t, exitBadUsage, runReproduce([]string{"--table", "binary", "--methods", "svm"}, &out, &errb), "unknown method")
}
