package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/fixtures"
)

// EnvDataDir is the environment variable Resolve consults after the flag.
const EnvDataDir = "LLPFC_DATA"

// DebianFashionMNIST is where the Debian package dataset-fashion-mnist puts
// Fashion-MNIST; Resolve falls back to it for "fashion-mnist".
const DebianFashionMNIST = "/usr/share/datasets/fashion-mnist"

// Names lists the named data sets Load knows (besides the sets named by
// their files: csv:…, parquet:…, libsvm:… and bags:…).
var Names = []string{"fashion-mnist", "mnist", "emnist-letters", "cifar10", "svhn", "fixture", "fashion-mnist-fixture"}

// fileSet is the file layout of a directory-based named data set.
type fileSet struct {
	train, test []string // file names; IDX names may also carry .gz
	idx         bool     // IDX files: each name may be raw or name+".gz"
	subdir      string   // conventional sub-directory inside a data root
	url         string   // where the files come from, for error messages
}

var fileSets = map[string]fileSet{
	"fashion-mnist": {
		train: []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte"},
		test:  []string{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"},
		idx:   true, subdir: "fashion-mnist", url: "https://github.com/zalandoresearch/fashion-mnist (or apt install dataset-fashion-mnist)",
	},
	"mnist": {
		train: []string{"train-images-idx3-ubyte", "train-labels-idx1-ubyte"},
		test:  []string{"t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"},
		idx:   true, subdir: "mnist", url: "the MNIST database (yann.lecun.com/exdb/mnist or a mirror)",
	},
	"emnist-letters": {
		train: []string{"emnist-letters-train-images-idx3-ubyte", "emnist-letters-train-labels-idx1-ubyte"},
		test:  []string{"emnist-letters-test-images-idx3-ubyte", "emnist-letters-test-labels-idx1-ubyte"},
		idx:   true, subdir: "emnist", url: "the EMNIST 'gzip.zip' of NIST (www.nist.gov/itl/products-and-services/emnist-dataset)",
	},
	"cifar10": {
		train:  []string{"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin"},
		test:   []string{"test_batch.bin"},
		subdir: "cifar-10-batches-bin", url: "cifar-10-binary.tar.gz from www.cs.toronto.edu/~kriz/cifar.html",
	},
	"svhn": {
		train:  []string{"train_32x32.mat"},
		test:   []string{"test_32x32.mat"},
		subdir: "svhn", url: "ufldl.stanford.edu/housenumbers (format 2, cropped digits)",
	},
}

// present returns the path of file base in dir, trying base.gz first for
// IDX sets, or "" when neither exists.
func (fs fileSet) present(dir, base string) string {
	cands := []string{base}
	if fs.idx {
		cands = []string{base + ".gz", base}
	}
	for _, c := range cands {
		p := filepath.Join(dir, c)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// missing lists the files of both splits absent from dir.
func (fs fileSet) missing(dir string) []string {
	var m []string
	for _, b := range append(append([]string(nil), fs.train...), fs.test...) {
		if fs.present(dir, b) == "" {
			if fs.idx {
				b += "[.gz]"
			}
			m = append(m, b)
		}
	}
	return m
}

// Resolve finds the directory holding the files of the named data set. A
// directory given as flagDir is the only one tried (a flag is never silently
// overridden); otherwise $LLPFC_DATA, then, for fashion-mnist only, the
// Debian location /usr/share/datasets/fashion-mnist. A candidate directory D
// matches when it holds the files itself or in its conventional
// sub-directory (D/fashion-mnist, D/mnist, D/emnist, D/cifar-10-batches-bin,
// D/svhn), so $LLPFC_DATA can be a root for all sets. The error names the
// places tried, the files missing and where to put them. Names that need no
// directory (fixture, csv:…, parquet:…, libsvm:…, bags:…) resolve to "".
func Resolve(name, flagDir string) (string, error) {
	if isFileless(name) {
		return "", nil
	}
	fs, ok := fileSets[name]
	if !ok {
		return "", unknownName(name)
	}
	type cand struct{ dir, source string }
	var cands []cand
	if flagDir != "" {
		cands = []cand{{flagDir, "--data-dir"}}
	} else {
		if env := os.Getenv(EnvDataDir); env != "" {
			cands = append(cands, cand{env, "$" + EnvDataDir})
		}
		if name == "fashion-mnist" {
			cands = append(cands, cand{DebianFashionMNIST, "the Debian location"})
		}
	}
	if len(cands) == 0 {
		return "", fmt.Errorf("%s: no data directory: pass --data-dir DIR or set %s=DIR, where DIR (or DIR/%s) holds %s from %s",
			name, EnvDataDir, fs.subdir, strings.Join(fs.missing(""), ", "), fs.url)
	}
	var tried []string
	for _, c := range cands {
		for _, d := range []string{c.dir, filepath.Join(c.dir, fs.subdir)} {
			if len(fs.missing(d)) == 0 {
				return d, nil
			}
		}
		tried = append(tried, fmt.Sprintf("%s %s lacks %s", c.source, c.dir, strings.Join(fs.missing(c.dir), ", ")))
	}
	return "", fmt.Errorf("%s: %s: put these files (from %s) in %s or %s",
		name, strings.Join(tried, "; "), fs.url, cands[0].dir, filepath.Join(cands[0].dir, fs.subdir))
}

func isFileless(name string) bool {
	return name == "fixture" || name == "fashion-mnist-fixture" || isFileKind(name)
}

func unknownName(name string) error {
	return fmt.Errorf("unknown data set %q: want one of %s, csv:TRAIN[,TEST], parquet:TRAIN[,TEST], libsvm:TRAIN[,TEST] or bags:PATH", name, strings.Join(Names, ", "))
}

// Load reads one split of the named data set (see the package comment for
// the names and files). dir is the directory Resolve returned; when empty,
// Load calls Resolve(name, "") itself. The result has passed Validate.
func Load(name, dir string, split Split) (*Dataset, error) {
	if split != Train && split != Test {
		return nil, fmt.Errorf("%s: unknown split %v", name, split)
	}
	d, err := load(name, dir, split)
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

func load(name, dir string, split Split) (*Dataset, error) {
	switch {
	case name == "fixture" || name == "fashion-mnist-fixture":
		return loadFixture(split)
	case strings.HasPrefix(name, "bags:"):
		return loadBagOnly(name, split)
	case strings.HasPrefix(name, "npz:"):
		return loadNPZSet(name, split)
	case isFileKind(name):
		return loadTabular(name, split)
	}
	fs, ok := fileSets[name]
	if !ok {
		return nil, unknownName(name)
	}
	if dir == "" {
		var err error
		if dir, err = Resolve(name, ""); err != nil {
			return nil, err
		}
	}
	files := fs.train
	if split == Test {
		files = fs.test
	}
	paths := make([]string, len(files))
	for i, b := range files {
		if paths[i] = fs.present(dir, b); paths[i] == "" {
			return nil, fmt.Errorf("%s: %s has no %s (from %s)", name, dir, b, fs.url)
		}
	}
	switch name {
	case "fashion-mnist", "mnist", "emnist-letters":
		classes, base := 10, 0
		if name == "emnist-letters" {
			classes, base = 26, 1
		}
		return loadIDXPair(name, paths[0], paths[1], base, classes)
	case "cifar10":
		return ReadCIFAR10Files(paths...)
	case "svhn":
		return ReadSVHNFile(paths[0])
	}
	return nil, unknownName(name)
}

func loadIDXPair(name, imagesPath, labelsPath string, base, classes int) (*Dataset, error) {
	im, err := ReadIDXFile(imagesPath)
	if err != nil {
		return nil, err
	}
	lb, err := ReadIDXFile(labelsPath)
	if err != nil {
		return nil, err
	}
	return IDXDataset(name, im, imagesPath, lb, labelsPath, base, classes)
}

func loadFixture(split Split) (*Dataset, error) {
	files := fixtures.FashionMNISTFiles[:2]
	if split == Test {
		files = fixtures.FashionMNISTFiles[2:]
	}
	var idx [2]*IDX
	for i, f := range files {
		b, err := fixtures.FashionMNIST(f)
		if err != nil {
			return nil, err
		}
		if idx[i], err = ReadIDX(bytes.NewReader(b), "fixture "+f); err != nil {
			return nil, err
		}
	}
	return IDXDataset("fixture", idx[0], "fixture "+files[0], idx[1], "fixture "+files[1], 0, 10)
}

// loadTabular reads csv:…, parquet:… or libsvm:… (parseSource). The test
// split is read with the training split's classes and feature columns (for
// LIBSVM, its feature count), so both splits agree on what class k and
// feature j mean; a categorical value the training split lacks gets an
// all-zero block (Column).
func loadTabular(name string, split Split) (*Dataset, error) {
	src, err := parseSource(name)
	if err != nil {
		return nil, err
	}
	read := func(path string, opt TabularOptions) (*Dataset, error) {
		switch src.kind {
		case "csv":
			return ReadCSVFile(path, opt)
		case "parquet":
			return ReadParquetFile(path, opt)
		}
		return ReadLIBSVMFile(path, opt)
	}
	opt := TabularOptions{LabelColumn: src.label, Categorical: src.categorical, na: src.na}
	train, err := read(src.paths[0], opt)
	if err != nil {
		return nil, err
	}
	if split == Train {
		train.Name = name
		return train, nil
	}
	if len(src.paths) < 2 || src.paths[1] == "" {
		return nil, errors.New(name + ": no test file: name it as " + src.kind + ":TRAIN,TEST")
	}
	opt.Classes, opt.Columns = train.ClassNames, train.Columns
	if src.kind == "libsvm" {
		opt.Dim = train.D
	}
	test, err := read(src.paths[1], opt)
	if err != nil {
		return nil, err
	}
	if test.D != train.D {
		return nil, fmt.Errorf("%s: test file %s has %d features, training file %s has %d", name, src.paths[1], test.D, src.paths[0], train.D)
	}
	test.Name = name
	test.NumClasses = train.NumClasses
	return test, nil
}

// LoadTable reads one file of a csv: or parquet: data set as `llpfc
// predict` scores it: split Train its first file, Test its second (or its
// only one: csv:FILE is the data to score). It is
// labelled when the name gives a label column or the header has one
// (label, class, y, target), with its own classes; otherwise every column
// is a feature and the rows have no labels (predict could once not score
// an unlabelled table). Its columns are its own: the caller lays them
// out as a model read them (Dataset.AlignColumns).
func LoadTable(name string, split Split) (*Dataset, error) {
	src, err := parseSource(name)
	if err != nil {
		return nil, err
	}
	if src.kind != "csv" && src.kind != "parquet" {
		return nil, fmt.Errorf("%s: not a csv: or parquet: data set", name)
	}
	i := 0
	if split == Test && len(src.paths) > 1 {
		i = 1
	}
	if src.paths[i] == "" {
		return nil, fmt.Errorf("%s: no %s file: name it as %s:TRAIN,TEST", name, split, src.kind)
	}
	path := src.paths[i]
	opt := TabularOptions{LabelColumn: src.label, Categorical: src.categorical, na: src.na}
	var d *Dataset
	if src.kind == "csv" {
		d, err = ReadCSVFile(path, opt)
	} else {
		d, err = ReadParquetFile(path, opt)
	}
	if errors.Is(err, ErrNoLabelColumn) {
		if d, err = readUnlabelledTable(path, opt); err == nil {
			d.Name = name
		}
		return d, err // every value finite: the reader checks each
	}
	if err != nil {
		return nil, err
	}
	d.Name = name
	return d, d.Validate()
}

// readUnlabelledTable reads a CSV or Parquet file whose every column is a
// feature.
func readUnlabelledTable(path string, opt TabularOptions) (*Dataset, error) {
	t, err := readTableFile(path, opt.na, func(header []string, ncols int) (map[int]colMode, error) {
		return declaredText(path, header, ncols, opt)
	})
	if err != nil {
		return nil, err
	}
	if t.rows == 0 {
		return nil, fmt.Errorf("%s: no data rows", path)
	}
	feats := make([]int, len(t.cols))
	for j := range feats {
		feats[j] = j
	}
	cols := fitColumns(t, feats)
	raw, err := encode(t, feats, cols)
	if err != nil {
		return nil, err
	}
	return &Dataset{Name: path, N: t.rows, D: width(cols), Raw: raw, X: narrow(raw), Columns: cols}, nil
}
