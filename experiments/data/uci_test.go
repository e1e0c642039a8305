package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const adultTrainSample = `39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K
50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K
54, ?, 180211, Some-college, 10, Married-civ-spouse, ?, Husband, Asian-Pac-Islander, Male, 0, 0, 60, South, >50K

`

const adultTestSample = `|1x3 Cross validator
25, Private, 226802, 11th, 7, Never-married, Machine-op-inspct, Own-child, Black, Male, 0, 0, 40, United-States, <=50K.
38, Private, 89814, HS-grad, 9, Married-civ-spouse, Farming-fishing, Husband, White, Male, 0, 0, 50, ?, >50K.
`

func TestReadAdultOneHotLikeLMMCM(t *testing.T) {
	tr, te, err := ReadAdult(strings.NewReader(adultTrainSample), "adult.data", strings.NewReader(adultTestSample), "adult.test")
	require.NoError(t, err)
	require.Lenf(t, tr.X, 3, "read %d and %d records, want 3 and 2 (header, blank lines skipped)", len(tr.X), len(te.X))
	require.Lenf(t, te.X, 2, "read %d and %d records, want 3 and 2 (header, blank lines skipped)", len(tr.X), len(te.X))
	assert.Equalf(t, []bool{false, true, true}, tr.Positive[:3], "train labels %v", tr.Positive)
	assert.Falsef(t, te.Positive[0], "test labels %v (trailing '.'), want [false true]", te.Positive)
	assert.Truef(t, te.Positive[1], "test labels %v (trailing '.'), want [false true]", te.Positive)
	// 6 continuous columns first, in file order.
	for j, c := range []string{"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"} {
		assert.Equalf(t, c, tr.Columns[j], "column %d = %s (continuous %v), want %s", j, tr.Columns[j], tr.Continuous[j], c)
		assert.Truef(t, tr.Continuous[j], "column %d = %s (continuous %v), want %s", j, tr.Columns[j], tr.Continuous[j], c)
	}
	assert.Equalf(t, 77516.0, tr.X[0][1], "numeric values misread: %v, %v", tr.X[0][:6], te.X[1][:6])
	assert.Equalf(t, 50.0, te.X[1][5], "numeric values misread: %v, %v", tr.X[0][:6], te.X[1][:6])
	col := map[string]int{}
	for j, c := range tr.Columns {
		col[c] = j
	}
	// Categories over the union of both files, '?' a category of its own,
	// in sorted column-name order (education first, workclass last).
	for _, c := range []string{"workclass=?", "native-country=?", "education=11th", "native-country=South", "occupation=Farming-fishing"} {
		assert.Containsf(t, col, c, "no one-hot column %s", c)
	}
	assert.Truef(t, strings.HasPrefix(tr.Columns[6], "education="), "categorical order: first %s, last %s", tr.Columns[6], tr.Columns[len(tr.Columns)-1])
	assert.Truef(t, strings.HasPrefix(tr.Columns[len(tr.Columns)-1], "workclass="), "categorical order: first %s, last %s", tr.Columns[6], tr.Columns[len(tr.Columns)-1])
	assert.Equal(t, 1.0, tr.X[2][col["workclass=?"]], "one-hot indicators wrong")
	assert.Equal(t, 0.0, tr.X[2][col["workclass=Private"]], "one-hot indicators wrong")
	assert.Equal(t, 1.0, te.X[0][col["workclass=Private"]], "one-hot indicators wrong")
	for i, x := range append(tr.X, te.X...) {
		ones := 0.0
		for j, v := range x {
			if !tr.Continuous[j] {
				ones += v
			}
		}
		assert.Equalf(t, 8.0, ones, "record %d has %v indicators set, want 8 (one per categorical column)", i, ones)
	}
}

func TestReadAdultRejectsBadLines(t *testing.T) {
	for _, bad := range []string{
		"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, <=50K\n",
		"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, maybe\n",
		"x, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n",
	} {
		_, _, err := ReadAdult(strings.NewReader(bad), "adult.data", strings.NewReader(adultTestSample), "adult.test")
		assert.ErrorContainsf(t, err, "adult.data: line 1", "bad line %q: error %v, want one naming adult.data line 1", bad[:20], err)
	}
}

func TestReadMagicAndMissingFileMessage(t *testing.T) {
	in := "28.7967,16.0021,2.6449,0.3918,0.1982,27.7004,22.011,-8.2027,40.092,81.8828,g\n31.6036,11.7235,2.5185,0.5303,0.3773,26.2722,23.8238,-9.9574,6.3609,205.261,h\n\n"
	s, err := ReadMagic(strings.NewReader(in), "magic04.data")
	require.NoError(t, err)
	if assert.Lenf(t, s.X, 2, "read %v %v", s.X, s.Positive) {
		assert.Truef(t, s.Positive[0], "read %v %v", s.X, s.Positive)
		assert.Falsef(t, s.Positive[1], "read %v %v", s.X, s.Positive)
		assert.Equalf(t, 205.261, s.X[1][9], "read %v %v", s.X, s.Positive)
	}
	assert.Lenf(t, s.Columns, 10, "read %v %v", s.X, s.Positive)
	_, err = ReadMagic(strings.NewReader("1,2,3,4,5,6,7,8,9,10,x\n"), "m")
	assert.ErrorContainsf(t, err, "line 1", "bad class: %v", err)
	dir := t.TempDir()
	_, err = LoadMagic(dir)
	assert.ErrorContainsf(t, err, "archive.ics.uci.edu", "missing file: error %v, want one saying where to get it", err)
	os.MkdirAll(filepath.Join(dir, "magic"), 0o755)
	os.WriteFile(filepath.Join(dir, "magic", "magic04.data"), []byte(in), 0o644)
	s, err = LoadMagic(dir)
	if assert.NoError(t, err, "LoadMagic from DIR/magic") {
		assert.Len(t, s.X, 2, "LoadMagic from DIR/magic")
	}
	_, _, err = LoadAdult(dir)
	assert.ErrorContainsf(t, err, "adult.data", "missing adult: %v", err)
}
