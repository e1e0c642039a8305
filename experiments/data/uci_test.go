package data

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.X) != 3 || len(te.X) != 2 {
		t.Fatalf("read %d and %d records, want 3 and 2 (header, blank lines skipped)", len(tr.X), len(te.X))
	}
	if want := []bool{false, true, true}; tr.Positive[0] != want[0] || tr.Positive[1] != want[1] || tr.Positive[2] != want[2] {
		t.Errorf("train labels %v, want %v", tr.Positive, want)
	}
	if te.Positive[0] || !te.Positive[1] {
		t.Errorf("test labels %v (trailing '.'), want [false true]", te.Positive)
	}
	// 6 continuous columns first, in file order.
	for j, c := range []string{"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"} {
		if tr.Columns[j] != c || !tr.Continuous[j] {
			t.Errorf("column %d = %s (continuous %v), want %s", j, tr.Columns[j], tr.Continuous[j], c)
		}
	}
	if tr.X[0][1] != 77516 || te.X[1][5] != 50 {
		t.Errorf("numeric values misread: %v, %v", tr.X[0][:6], te.X[1][:6])
	}
	col := map[string]int{}
	for j, c := range tr.Columns {
		col[c] = j
	}
	// Categories over the union of both files, '?' a category of its own,
	// in sorted column-name order (education first, workclass last).
	for _, c := range []string{"workclass=?", "native-country=?", "education=11th", "native-country=South", "occupation=Farming-fishing"} {
		if _, ok := col[c]; !ok {
			t.Errorf("no one-hot column %s", c)
		}
	}
	if !strings.HasPrefix(tr.Columns[6], "education=") || !strings.HasPrefix(tr.Columns[len(tr.Columns)-1], "workclass=") {
		t.Errorf("categorical order: first %s, last %s", tr.Columns[6], tr.Columns[len(tr.Columns)-1])
	}
	if tr.X[2][col["workclass=?"]] != 1 || tr.X[2][col["workclass=Private"]] != 0 || te.X[0][col["workclass=Private"]] != 1 {
		t.Error("one-hot indicators wrong")
	}
	for i, x := range append(tr.X, te.X...) {
		ones := 0.0
		for j, v := range x {
			if !tr.Continuous[j] {
				ones += v
			}
		}
		if ones != 8 {
			t.Errorf("record %d has %v indicators set, want 8 (one per categorical column)", i, ones)
		}
	}
}

func TestReadAdultRejectsBadLines(t *testing.T) {
	for _, bad := range []string{
		"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, <=50K\n",
		"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, maybe\n",
		"x, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K\n",
	} {
		_, _, err := ReadAdult(strings.NewReader(bad), "adult.data", strings.NewReader(adultTestSample), "adult.test")
		if err == nil || !strings.Contains(err.Error(), "adult.data: line 1") {
			t.Errorf("bad line %q: error %v, want one naming adult.data line 1", bad[:20], err)
		}
	}
}

func TestReadMagicAndMissingFileMessage(t *testing.T) {
	in := "28.7967,16.0021,2.6449,0.3918,0.1982,27.7004,22.011,-8.2027,40.092,81.8828,g\n31.6036,11.7235,2.5185,0.5303,0.3773,26.2722,23.8238,-9.9574,6.3609,205.261,h\n\n"
	s, err := ReadMagic(strings.NewReader(in), "magic04.data")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.X) != 2 || !s.Positive[0] || s.Positive[1] || s.X[1][9] != 205.261 || len(s.Columns) != 10 {
		t.Errorf("read %v %v", s.X, s.Positive)
	}
	if _, err := ReadMagic(strings.NewReader("1,2,3,4,5,6,7,8,9,10,x\n"), "m"); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("bad class: %v", err)
	}
	dir := t.TempDir()
	if _, err := LoadMagic(dir); err == nil || !strings.Contains(err.Error(), "archive.ics.uci.edu") {
		t.Errorf("missing file: error %v, want one saying where to get it", err)
	}
	os.MkdirAll(filepath.Join(dir, "magic"), 0o755)
	os.WriteFile(filepath.Join(dir, "magic", "magic04.data"), []byte(in), 0o644)
	if s, err := LoadMagic(dir); err != nil || len(s.X) != 2 {
		t.Errorf("LoadMagic from DIR/magic: %v", err)
	}
	if _, _, err := LoadAdult(dir); err == nil || !strings.Contains(err.Error(), "adult.data") {
		t.Errorf("missing adult: %v", err)
	}
}
