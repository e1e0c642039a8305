package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numericBagTables writes a bag-only table set with classes 0, 1, 2 into
// dir: train.csv (a, b, bag; 12 bags of 10), props.csv (label counts),
// test.csv (a, b, label), and returns dir.
func numericBagTables(t *testing.T, dir string) string {
	t.Helper()
	var tr, pr, te strings.Builder
	tr.WriteString("a,b,bag\n")
	pr.WriteString("bag,0,1,2\n")
	te.WriteString("a,b,label\n")
	counts := make([][3]int, 12)
	for i := 0; i < 120; i++ {
		y := (i * 7 / 3) % 3
		fmt.Fprintf(&tr, "%d,%d,%d\n", i%11+y, (i*5)%7, i%12)
		counts[i%12][y]++
		if i < 30 {
			fmt.Fprintf(&te, "%d,%d,%d\n", i%11+y, (i*5)%7, y)
		}
	}
	for k, c := range counts {
		fmt.Fprintf(&pr, "%d,%d,%d,%d\n", k, c[0], c[1], c[2])
	}
	writeFile(t, dir, "train.csv", tr.String())
	writeFile(t, dir, "props.csv", pr.String())
	writeFile(t, dir, "test.csv", te.String())
	return dir
}

// utf16File is s as UTF-16 with a byte-order mark, as Excel and Windows
// tools write "Unicode text".
func utf16File(s string) string {
	var b strings.Builder
	b.WriteString("\xff\xfe")
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}

// TestNewUserMessages holds the messages a new user met on their own
// tables (four files for bags:, a proportions table without a bag column,
// CR-only line endings, UTF-16, NA and 1.0 labels, one bag, a device this
// machine lacks): each case exits as the rule says, says what the user
// needs to fix it, says no prefix twice, and does not say what it said
// before the fix.
func TestNewUserMessages(t *testing.T) {
	dir := numericBagTables(t, t.TempDir())
	p := func(name string) string { return filepath.Join(dir, name) }
	set := "bags:" + p("train.csv") + "," + p("props.csv")
	model := p("m")
	code, _, stderr := runCmd("train", "--data", set+","+p("test.csv"), "--epochs", "1", "--quiet", "--save-model", model)
	require.Equal(t, exitOK, code, stderr)
	writeFile(t, dir, "nobag.csv", "0,1,2\n"+strings.SplitN(readString(t, p("props.csv")), "\n", 2)[1])
	writeFile(t, dir, "cr.csv", strings.ReplaceAll(readString(t, p("test.csv")), "\n", "\r"))
	writeFile(t, dir, "u16.csv", utf16File(readString(t, p("test.csv"))))
	writeFile(t, dir, "extra.csv", "a,b,label,extra\n1,2,0,5\n3,4,1,6\n")
	writeFile(t, dir, "empty.csv", "a,b\n,1\n3,4\n")
	writeFile(t, dir, "one.csv", "a,b,label\n1,2,1.0\n3,4,0\n")
	writeFile(t, dir, "na.csv", "a,b,label\n1,2,0\n3,4,NA\n5,6,1\n")
	writeFile(t, dir, "onebag-train.csv", "a,b,bag\n1,2,0\n3,4,0\n5,6,0\n")
	writeFile(t, dir, "onebag-props.csv", "bag,0,1,2\n0,1,1,1\n")
	for _, c := range []struct {
		name     string
		args     []string
		status   int
		want     []string
		not      string // what the message said before the fix
		notMatch string // a pattern it must not match
	}{
		{"four files for bags:", []string{"train", "--data", set + "," + p("test.csv") + "," + p("test.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{"4 files named", "at most 3"}, "no such file", ""},
		{"a proportions table without a bag column", []string{"train", "--data", "bags:" + p("train.csv") + "," + p("nobag.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{"nobag.csv", "line 1 holds only numbers", "bag id column"}, "repeats bag", ""},
		{"CR-only line endings", []string{"train", "--data", "csv:" + p("cr.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{"cr.csv", "carriage return"}, "label column", ""},
		{"UTF-16", []string{"train", "--data", "csv:" + p("u16.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{"u16.csv", "UTF-16", "UTF-8"}, "label column", ""},
		{"an extra test column", []string{"train", "--data", set + "," + p("extra.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{`not in the training file: [extra]`}, "", ""},
		{"an empty cell to predict", []string{"predict", "--model", model, "--data", "csv:" + p("empty.csv")}, exitBadUsage,
			[]string{"line 2, column 1: empty feature", "drop the row, or fill it in"}, "categorical", ""},
		{"a label written 1.0", []string{"predict", "--model", model, "--data", "csv:" + p("one.csv")}, exitBadUsage,
			[]string{`label "1.0"`, `writes this number as "1"`}, "", ""},
		{"an NA label", []string{"predict", "--model", model, "--data", "csv:" + p("na.csv")}, exitBadUsage,
			[]string{`line 3, column 3: label "NA" is a missing value`, "never a class"}, "", ""},
		{"an NA test label", []string{"train", "--data", set + "," + p("na.csv"), "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{`label "NA" is a missing value`}, "", ""},
		{"reproduce --dry-run on bag-only data", []string{"reproduce", "--quick", "--data", set, "--dry-run", "--results", p("q")}, exitOK,
			[]string{"1440 instance-epochs"}, "work: 0 instance-epochs", ""},
		{"kl on one bag", []string{"train", "--data", "bags:" + p("onebag-train.csv") + "," + p("onebag-props.csv") + "@normalize", "--method", "kl", "--epochs", "1", "--quiet"}, exitBadUsage,
			[]string{"--batch-size (not given: its default): 2 bags", "1 bags to train on"}, "", ""},
		{"a diverging MixBag counts epochs as the progress lines do", []string{"train", "--data", set, "--method", "mixbag", "--epochs", "2", "--batch-size", "4", "--lr", "1e30"}, exitFailed,
			[]string{"epoch 1 step 2: MixBag loss is NaN"}, "epoch 0 step", ""}, // the first epoch, as its progress line "epoch 1/2" counts
		{"a signed device index", []string{"train", "--data", set, "--epochs", "1", "--quiet", "--device", "opencl:-0:0"}, exitBadUsage,
			[]string{`platform index "-0"`}, "", ""},
		{"a device this machine lacks, named once", []string{"train", "--data", set, "--epochs", "1", "--quiet", "--device", "opencl:9:0"}, exitBadUsage,
			[]string{"opencl:9:0"}, "", `opencl:9:0: [^\n]*opencl:9:0:`},
		{"train --out and --save-model in one new folder", []string{"train", "--data", set, "--epochs", "1", "--quiet", "--out", p("o"), "--save-model", p("o/checkpoint")}, exitOK,
			nil, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			stderr := runExpecting(t, c.args, c.status, c.want)
			if c.not != "" {
				assert.NotContains(t, stderr, c.not)
			}
			if c.notMatch != "" {
				assert.NotRegexp(t, regexp.MustCompile(c.notMatch), stderr)
			}
			assert.Empty(t, repeatedPrefix(stderr), "a prefix said twice: %s", stderr)
		})
	}
}

// An npz: set's error names its file once (it once said "--data npz:F: F,
// array X: …").
func TestNPZErrorNamesTheFileOnce(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m")
	saveGMMModel(t, model, "1")
	x := filepath.Join(dir, "x.npz")
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, err := zw.Create("X.npy")
	require.NoError(t, err)
	w.Write(npyRaw("<f2", "(4, 2)", make([]byte, 16)))
	require.NoError(t, zw.Close())
	writeFile(t, dir, "x.npz", zb.String())
	code, _, stderr := runCmd("predict", "--model", model, "--data", "npz:"+x, "--split", "train")
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Equal(t, 1, strings.Count(stderr, x), "the file named once: %s", stderr)
	assert.Contains(t, stderr, "--data npz:"+x+", array X")
}
