package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// UCI data sets of the binary experiment (Table `tab:binary exp`): Adult
// and MAGIC gamma telescope, read from the files the UCI repository
// distributes, with the preprocessing of the LMMCM code (github.com/
// Z-Jianxin/Learning-from-Label-Proportions-A-Mutual-Contamination-Framework,
// LMMCM/make_data.py and utils/data_utils.py at commit adb57fa).

// AdultURL and MagicURL say where the files come from.
const (
	AdultURL = "https://archive.ics.uci.edu/dataset/2/adult (adult.data and adult.test)"
	MagicURL = "https://archive.ics.uci.edu/dataset/159/magic+gamma+telescope (magic04.data)"
)

// BinarySet is a binary data set read from UCI files: features as float64
// rows, Positive[i] the label of row i (Adult: income >50K; MAGIC: class g,
// gamma), Continuous[j] whether column j is a continuous feature (the
// others are one-hot indicators, left unstandardized as in the LMMCM code).
type BinarySet struct {
	Name       string
	X          [][]float64
	Positive   []bool
	Columns    []string
	Continuous []bool
}

// adultColumns are the 15 fields of adult.data; adultCategorical the
// categorical ones (make_data.py: cat_col = columns 1, 3, 5, 6, 7, 8, 9, 13).
var adultColumns = []string{"age", "workclass", "fnlwgt", "education", "education-num",
	"marital-status", "occupation", "relationship", "race", "sex", "capital-gain",
	"capital-loss", "hours-per-week", "native-country", "income"}

var adultCategorical = map[int]bool{1: true, 3: true, 5: true, 6: true, 7: true, 8: true, 9: true, 13: true}

// adultRecord is one parsed line of adult.data/adult.test.
type adultRecord struct {
	fields []string
	pos    bool
}

// readAdultRecords parses one Adult file: comma-separated fields with
// optional blanks after each comma; blank lines and lines starting with '|'
// (adult.test begins with "|1x3 Cross validator") are skipped; the label is
// <=50K or >50K, with or without the trailing '.' of adult.test. '?' (a
// missing value) is kept as a category of its own in categorical columns,
// as pandas' get_dummies does in the LMMCM code; in a numeric column it is
// an error. Errors name the file and line.
func readAdultRecords(r io.Reader, name string) ([]adultRecord, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var out []adultRecord
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "|") {
			continue
		}
		f := strings.Split(s, ",")
		if len(f) != len(adultColumns) {
			return nil, fmt.Errorf("%s: line %d: %d fields, want %d (%s)", name, line, len(f), len(adultColumns), strings.Join(adultColumns, ", "))
		}
		for j := range f {
			f[j] = strings.TrimSpace(f[j])
		}
		var rec adultRecord
		switch strings.TrimSuffix(f[14], ".") {
		case ">50K":
			rec.pos = true
		case "<=50K":
		default:
			return nil, fmt.Errorf("%s: line %d: income %q, want <=50K or >50K (a trailing '.' is allowed)", name, line, f[14])
		}
		for j := 0; j < 14; j++ {
			if adultCategorical[j] {
				continue
			}
			if _, err := strconv.ParseFloat(f[j], 64); err != nil {
				return nil, fmt.Errorf("%s: line %d: %s is %q, want a number", name, line, adultColumns[j], f[j])
			}
		}
		rec.fields = f[:14]
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	return out, nil
}

// ReadAdult reads adult.data and adult.test and one-hot encodes the eight
// categorical columns over the union of both files' values (the LMMCM code
// calls pandas.get_dummies on train and test together), giving 6 continuous
// columns followed by the indicators, categories in sorted order and
// columns in sorted name order as that code produces them (108 columns for
// the UCI files). Unlike the LMMCM code, no record is dropped: its
// drop_last_line=True removes the last record of each file (pandas already
// skips the trailing blank line), 1 of 32561 and 1 of 16281.
func ReadAdult(train io.Reader, trainName string, test io.Reader, testName string) (tr, te *BinarySet, err error) {
	a, err := readAdultRecords(train, trainName)
	if err != nil {
		return nil, nil, err
	}
	b, err := readAdultRecords(test, testName)
	if err != nil {
		return nil, nil, err
	}
	var cols []string
	var cont []bool
	var contIdx []int
	for j := 0; j < 14; j++ {
		if !adultCategorical[j] {
			cols = append(cols, adultColumns[j])
			cont = append(cont, true)
			contIdx = append(contIdx, j)
		}
	}
	var cats []int
	for j := range adultCategorical {
		cats = append(cats, j)
	}
	sort.Slice(cats, func(x, y int) bool { return adultColumns[cats[x]] < adultColumns[cats[y]] })
	type catCols struct {
		j      int
		offset map[string]int
	}
	var enc []catCols
	for _, j := range cats {
		vals := map[string]bool{}
		for _, set := range [][]adultRecord{a, b} {
			for _, r := range set {
				vals[r.fields[j]] = true
			}
		}
		var vs []string
		for v := range vals {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		cc := catCols{j: j, offset: map[string]int{}}
		for _, v := range vs {
			cc.offset[v] = len(cols)
			cols = append(cols, adultColumns[j]+"="+v)
			cont = append(cont, false)
		}
		enc = append(enc, cc)
	}
	build := func(recs []adultRecord, name string) *BinarySet {
		s := &BinarySet{Name: name, Columns: cols, Continuous: cont}
		for _, r := range recs {
			x := make([]float64, len(cols))
			for k, j := range contIdx {
				x[k], _ = strconv.ParseFloat(r.fields[j], 64)
			}
			for _, cc := range enc {
				x[cc.offset[r.fields[cc.j]]] = 1
			}
			s.X = append(s.X, x)
			s.Positive = append(s.Positive, r.pos)
		}
		return s
	}
	return build(a, trainName), build(b, testName), nil
}

// magicColumns are the 11 fields of magic04.data.
var magicColumns = []string{"fLength", "fWidth", "fSize", "fConc", "fConc1", "fAsym", "fM3Long", "fM3Trans", "fAlpha", "fDist", "class"}

// ReadMagic reads magic04.data: 10 numeric features and the class g (gamma,
// positive, +1 in make_data.py) or h (hadron). Blank lines are skipped.
func ReadMagic(r io.Reader, name string) (*BinarySet, error) {
	sc := bufio.NewScanner(r)
	s := &BinarySet{Name: name, Columns: magicColumns[:10], Continuous: make([]bool, 10)}
	for j := range s.Continuous {
		s.Continuous[j] = true
	}
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		f := strings.Split(t, ",")
		if len(f) != 11 {
			return nil, fmt.Errorf("%s: line %d: %d fields, want 11 (%s)", name, line, len(f), strings.Join(magicColumns, ", "))
		}
		x := make([]float64, 10)
		for j := 0; j < 10; j++ {
			v, err := strconv.ParseFloat(strings.TrimSpace(f[j]), 64)
			if err != nil {
				return nil, fmt.Errorf("%s: line %d: %s is %q, want a number", name, line, magicColumns[j], f[j])
			}
			x[j] = v
		}
		switch strings.TrimSpace(f[10]) {
		case "g":
			s.Positive = append(s.Positive, true)
		case "h":
			s.Positive = append(s.Positive, false)
		default:
			return nil, fmt.Errorf("%s: line %d: class %q, want g or h", name, line, f[10])
		}
		s.X = append(s.X, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(s.X) == 0 {
		return nil, fmt.Errorf("%s: no records", name)
	}
	return s, nil
}

// findUCI returns the path of file in dir or dir/sub, or an error saying
// where to put it and where to get it.
func findUCI(set, dir, sub, file, url string) (string, error) {
	if dir == "" {
		dir = os.Getenv(EnvDataDir)
	}
	if dir == "" {
		return "", fmt.Errorf("%s: no data directory: pass --data-dir DIR or set %s=DIR, where DIR (or DIR/%s) holds %s from %s", set, EnvDataDir, sub, file, url)
	}
	for _, d := range []string{dir, filepath.Join(dir, sub)} {
		p := filepath.Join(d, file)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: neither %s nor %s holds %s: download it from %s", set, dir, filepath.Join(dir, sub), file, url)
}

// LoadAdult finds adult.data and adult.test in dir or dir/adult (dir empty:
// $LLPFC_DATA) and reads them with ReadAdult.
func LoadAdult(dir string) (train, test *BinarySet, err error) {
	var f [2]*os.File
	for i, name := range []string{"adult.data", "adult.test"} {
		p, err := findUCI("adult", dir, "adult", name, AdultURL)
		if err != nil {
			return nil, nil, err
		}
		if f[i], err = os.Open(p); err != nil {
			return nil, nil, err
		}
		defer f[i].Close()
	}
	return ReadAdult(f[0], f[0].Name(), f[1], f[1].Name())
}

// LoadMagic finds magic04.data in dir or dir/magic (dir empty: $LLPFC_DATA).
func LoadMagic(dir string) (*BinarySet, error) {
	p, err := findUCI("magic", dir, "magic", "magic04.data", MagicURL)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadMagic(f, p)
}
