package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments/data"
)

func runBagsCmd(args ...string) (code int, stdout, stderr string) {
	return runCmd(append([]string{"bags"}, args...)...)
}

// TestBagsFixturePaperProtocol draws the paper's setting for the main job
// (40,960 points in bags of 2,048) from the embedded fixture twice with the
// same seed and checks the files are byte-identical, valid, and that each
// bag's proportions are its instances' label proportions in the fixture.
func TestBagsFixturePaperProtocol(t *testing.T) {
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")}
	seeds := []string{"7", "7", "8"}
	for i, f := range files {
		code, out, errOut := runBagsCmd("--data", "fixture", "--bag-size", "2048", "--num-points", "40960", "--protocol", "paper", "--seed", seeds[i], "--out", f)
		require.Equal(t, exitOK, code, errOut)
		assert.Contains(t, out, "wrote 20 bags of 2048 from fixture", "summary")
	}
	a, _ := os.ReadFile(files[0])
	b, _ := os.ReadFile(files[1])
	c, _ := os.ReadFile(files[2])
	assert.True(t, bytes.Equal(a, b), "same seed gave different bags files")
	assert.False(t, bytes.Equal(a, c), "seeds 7 and 8 gave the same bags file")
	bs, err := estimators.ReadBagSetFile(files[0])
	require.NoError(t, err)
	ds, err := data.Load("fixture", "", data.Train)
	require.NoError(t, err)
	require.True(t, bs.NumClasses == 10 && len(bs.Bags) == 20, "%d classes, %d bags", bs.NumClasses, len(bs.Bags))
	seen := map[int]bool{}
	for _, bag := range bs.Bags {
		n := make([]int, 10)
		for _, i := range bag.Indices {
			require.True(t, i < ds.N && !seen[i], "bag %d: index %d out of range or repeated", bag.ID, i)
			seen[i] = true
			n[ds.Y[i]]++
		}
		for k := range n {
			require.Equal(t, float64(n[k])/2048, bag.Proportions[k], "bag %d: proportion %d against the labels", bag.ID, k)
		}
	}
}

func TestBagsErrors(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "d.csv")
	var sb strings.Builder
	sb.WriteString("x,label\n")
	for i := 0; i < 40; i++ {
		c := 0
		if i == 0 {
			c = 1 // one point of class 1: the paper protocol runs short at once
		}
		fmt.Fprintf(&sb, "%d,%d\n", i, c)
	}
	require.NoError(t, os.WriteFile(csv, []byte(sb.String()), 0o644))
	out := filepath.Join(dir, "bags.json")
	base := []string{"--data", "csv:" + csv, "--bag-size", "10", "--seed", "3", "--out", out}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no data", []string{"--bag-size", "4", "--num-bags", "1", "--out", out}, "--data is required"},
		{"no out", []string{"--data", "fixture", "--bag-size", "4", "--num-bags", "1"}, "--out is required"},
		{"both counts", append(base, "--num-bags", "2", "--num-points", "20"), "exactly one of --num-bags"},
		{"no count", base, "exactly one of --num-bags"},
		{"bad protocol", append(base, "--num-bags", "2", "--protocol", "uniform"), `unknown bag protocol "uniform"`},
		{"bad shortfall", append(base, "--num-bags", "2", "--shortfall", "skip"), `unknown shortfall policy "skip"`},
		{"bad split", append(base, "--num-bags", "2", "--split", "val"), `--split is "val"`},
		{"unknown data", []string{"--data", "imagenet", "--bag-size", "4", "--num-bags", "1", "--out", out}, `unknown data set "imagenet"`},
		{"points not a multiple", append(base, "--num-points", "45"), "not a multiple of bag size 10"},
		{"too many bags", append(base, "--num-bags", "5"), "need 50 points, the data set has 40"},
		{"strict shortfall", append(base, "--num-bags", "4", "--shortfall", "strict"), "class 1 needs"},
		{"bad flag", append(base, "--bags", "4"), "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := runBagsCmd(c.args...)
			assert.Equal(t, exitBadUsage, code)
			assert.Contains(t, errOut, c.want)
			_, statErr := os.Stat(out)
			assert.Error(t, statErr, "a failed run left %s behind", out)
		})
	}
	// Shuffle never runs short; the CSV's classes come from its labels.
	code, stdout, errOut := runBagsCmd(append(base, "--num-bags", "4", "--protocol", "shuffle")...)
	require.Equal(t, exitOK, code, "shuffle: %s", errOut)
	assert.Contains(t, stdout, "wrote 4 bags of 10", "summary")
	code, _, _ = runBagsCmd("-h")
	assert.Equal(t, exitOK, code, "-h")
}
