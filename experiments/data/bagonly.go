package data

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/estimators"
)

// Bag-only data sets: LLP data as practitioners hold it (Section 5.1's
// {(b_k, γ̂_k)}) — instances, a bag id per instance and one row of label
// proportions (or label counts) per bag, with no instance label anywhere;
// a labelled test split is optional. Named bags:PATH (parseSource):
//
// NumPy (an .npz archive, as numpy.savez or numpy.savez_compressed writes
// it, or a directory of .npy files):
//
//	X            N×D features, or N×H×W / N×C×H×W images (uint8 0…255, or floats in [0,1])
//	bag          N integer bag ids (also "bags"); the instances of a bag need not be contiguous
//	proportions  K×C label proportions (floats), or label counts (integers); also "label_proportions"
//	bag_ids      optional: the K bag ids of the rows of proportions (default: row k is bag k)
//	test_X       optional, with test_y: a labelled test split shaped like X (also "x_test", "X_test")
//	test_y       the test labels 0…C−1 (also "y_test")
//
// Tables (CSV or Parquet, by extension: .csv, .parquet or .pq), given as
// bags:TRAIN,PROPORTIONS[,TEST] or as a directory holding train.*,
// proportions.* and optionally test.*:
//
//	TRAIN        feature columns and a bag id column (named bag, bag_id or bags, or @bag=COL;
//	             column 0 of a file without a header); no column may be named label, class,
//	             y or target (instance labels are not LLP data)
//	PROPORTIONS  the bag id column, then one column per class (its header names the class)
//	TEST         the training file's feature columns and a label column (label, class, y,
//	             target, or @label=COL), labels among PROPORTIONS' class names
//
// A proportions table holds counts when every entry is a whole number and
// not every row sums to 1; a row of counts must sum to its bag's size.
// Otherwise it holds proportions: a row summing to 1 within 1e-6 is
// rescaled to sum to 1 exactly (float32 data), and a row further off is an
// error unless the name ends in @normalize, which rescales every row (and
// every row of counts) to sum to 1. Every bag id of the instances must have
// a row, every row a bag with instances, no id two rows; no entry may be
// negative, NaN or infinite. Each error names the file, the row (or line,
// or array index) and what was expected.
//
// The bags are numbered by their ids when every id is an integer, else by
// their row in the proportions; a bag's instances are in file order.

// bagIDNames and the other alias lists are the names a bag-only set's
// parts go by.
var (
	bagColumnNames  = []string{"bag", "bag_id", "bags"}
	npyXNames       = []string{"X", "x"}
	npyBagNames     = []string{"bag", "bags"}
	npyPropNames    = []string{"proportions", "label_proportions"}
	npyBagIDsNames  = []string{"bag_ids"}
	npyTestXNames   = []string{"test_X", "test_x", "X_test", "x_test"}
	npyTestYNames   = []string{"test_y", "y_test"}
	tableExtensions = []string{".csv", ".parquet", ".pq"}
)

// proportionSumTol is how far from 1 a row of proportions may sum without
// @normalize (float32 proportions are off by up to about 1e-7).
const proportionSumTol = 1e-6

// ReadBagOnly reads the bag-only data set name (bags:…): its training split
// — no labels, Dataset.Bags set — and its labelled test split, nil when the
// set has none.
func ReadBagOnly(name string) (train, test *Dataset, err error) {
	src, err := parseSource(name)
	if err != nil {
		return nil, nil, err
	}
	if src.kind != "bags" {
		return nil, nil, fmt.Errorf("%s: not a bag-only data set (bags:PATH)", name)
	}
	switch {
	case len(src.paths) > 1:
		train, test, err = readBagTables(src, src.paths[0], src.paths[1], at(src.paths, 2))
	default:
		train, test, err = readBagPath(src)
	}
	if err != nil {
		return nil, nil, err
	}
	train.Name = name
	if test != nil {
		test.Name = name
	}
	if err := train.Validate(); err != nil {
		return nil, nil, err
	}
	if test != nil {
		if err := test.Validate(); err != nil {
			return nil, nil, err
		}
	}
	return train, test, nil
}

func at(xs []string, i int) string {
	if i < len(xs) {
		return xs[i]
	}
	return ""
}

// readBagPath reads bags:PATH for one path: an .npz file, or a directory of
// .npy files or of tables.
func readBagPath(src sourceSpec) (train, test *Dataset, err error) {
	path := src.paths[0]
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("bags:%s: %v", path, err)
	}
	if !st.IsDir() && !strings.HasSuffix(strings.ToLower(path), ".npz") {
		return nil, nil, fmt.Errorf("%s: want an .npz archive, a directory (of .npy files, or of train, proportions and test tables), or TRAIN,PROPORTIONS[,TEST] tables", path)
	}
	if st.IsDir() {
		if tr := findTable(path, "train"); tr != "" && !fileExists(filepath.Join(path, "X.npy")) && !fileExists(filepath.Join(path, "x.npy")) {
			pr := findTable(path, "proportions")
			if pr == "" {
				return nil, nil, fmt.Errorf("%s: holds %s but no proportions.csv or proportions.parquet", path, filepath.Base(tr))
			}
			return readBagTables(src, tr, pr, findTable(path, "test"))
		}
	}
	if len(src.categorical) > 0 || src.bag != "" {
		return nil, nil, fmt.Errorf("%s: @categorical and @bag name columns of tables; NumPy arrays have none", path)
	}
	s, closeFn, err := openNPYSource(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	return readBagNPY(s, src.normalize)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// findTable returns DIR/BASE.csv, .parquet or .pq, whichever exists.
func findTable(dir, base string) string {
	for _, ext := range tableExtensions {
		if p := filepath.Join(dir, base+ext); fileExists(p) {
			return p
		}
	}
	return ""
}

// readBagNPY reads the NumPy layout from s.
func readBagNPY(s *npySource, normalize bool) (train, test *Dataset, err error) {
	known := map[string]bool{}
	for _, names := range [][]string{npyXNames, npyBagNames, npyPropNames, npyBagIDsNames, npyTestXNames, npyTestYNames} {
		for _, n := range names {
			known[n] = true
		}
	}
	if err := s.checkKeys(known); err != nil {
		return nil, nil, err
	}
	need := func(role string, names []string) (*npyArray, error) {
		k, err := s.find(role, names...)
		if err != nil {
			return nil, err
		}
		if k == "" {
			return nil, fmt.Errorf("%s: no array %s (%s); it holds %s; a bag-only set holds X, bag and proportions (and optionally bag_ids, test_X and test_y)",
				s.name, names[0], role, s.list())
		}
		return s.read(k)
	}
	xa, err := need("the instances' features", npyXNames)
	if err != nil {
		return nil, nil, err
	}
	train, err = npyFeatures(xa)
	if err != nil {
		return nil, nil, err
	}
	ba, err := need("a bag id per instance", npyBagNames)
	if err != nil {
		return nil, nil, err
	}
	pa, err := need("a row of label proportions per bag", npyPropNames)
	if err != nil {
		return nil, nil, err
	}
	var ids *npyArray
	k, err := s.find("the bag ids of the rows of proportions", npyBagIDsNames...)
	if err != nil {
		return nil, nil, err
	}
	if k != "" {
		if ids, err = s.read(k); err != nil {
			return nil, nil, err
		}
	}
	if train.Bags, err = npyBags(ba, pa, ids, train.N, normalize); err != nil {
		return nil, nil, err
	}
	train.NumClasses = train.Bags.NumClasses
	test, err = npyTest(s, train)
	return train, test, err
}

// checkKeys refuses arrays a bag-only set does not read (instance labels
// above all): nothing in the file is silently ignored.
func (s *npySource) checkKeys(known map[string]bool) error {
	keys := s.keys()
	for _, k := range keys {
		if !known[k] {
			hint := ""
			if k == "y" || k == "labels" || k == "label" || k == "Y" {
				hint = " (instance labels are not LLP training data: the bags' proportions stand for them)"
			}
			return fmt.Errorf("%s: array %q is not part of a bag-only set%s; it reads X, bag, proportions, bag_ids, test_X and test_y: remove %q or rename it",
				s.name, k, hint, k)
		}
	}
	return nil
}

// npyFeatures turns an X array into an unlabelled Dataset: N×D feature
// vectors (any supported dtype), or images N×H×W (one channel) or N×C×H×W
// (channels first, as PyTorch stores them) as uint8 0…255 (scaled by
// 1/255, as the IDX and CIFAR readers do) or floats in [0,1].
func npyFeatures(a *npyArray) (*Dataset, error) {
	d := &Dataset{Name: a.name}
	switch len(a.shape) {
	case 2:
		d.N, d.D = a.shape[0], a.shape[1]
		return d, npyTabular(a, d)
	case 3:
		d.N, d.Channels, d.Height, d.Width = a.shape[0], 1, a.shape[1], a.shape[2]
	case 4:
		d.N, d.Channels, d.Height, d.Width = a.shape[0], a.shape[1], a.shape[2], a.shape[3]
		if last := a.shape[3]; (last == 1 || last == 3 || last == 4) && a.shape[1] > 4 {
			return nil, fmt.Errorf("%s: shape %s looks channels-last (N×H×W×C); want N×C×H×W: transpose it with X.transpose(0, 3, 1, 2)", a.name, shapeString(a.shape))
		}
	default:
		return nil, fmt.Errorf("%s: shape %s: want N×D feature vectors, N×H×W or N×C×H×W images", a.name, shapeString(a.shape))
	}
	d.D = d.Channels * d.Height * d.Width
	if d.N == 0 || d.D == 0 {
		return nil, fmt.Errorf("%s: shape %s holds no instance or no value per instance", a.name, shapeString(a.shape))
	}
	d.X = make([]float32, a.len())
	switch {
	case a.u8 != nil:
		for i, v := range a.u8 {
			d.X[i] = pixelScale[v]
		}
		return d, nil
	case a.i64 != nil:
		return nil, fmt.Errorf("%s: images of dtype %s: want uint8 (0…255) or floats in [0, 1]", a.name, a.dtype)
	}
	for i := range d.X {
		v := a.float(i)
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("%s: image value %v at %s, want a float in [0, 1] (or uint8 images 0…255)", a.name, v, npyIndex(a.shape, i))
		}
		d.X[i] = float32(v)
	}
	return d, nil
}

// npyTabular fills d's feature vectors from a 2-D array: float32 as they
// are; float64 and integers also kept in float64 (Dataset.Raw) for the
// standardization.
func npyTabular(a *npyArray, d *Dataset) error {
	if d.N == 0 || d.D == 0 {
		return fmt.Errorf("%s: shape %s holds no instance or no feature", a.name, shapeString(a.shape))
	}
	if a.f32 != nil {
		d.X = a.f32
	} else {
		d.Raw = make([]float64, a.len())
		for i := range d.Raw {
			d.Raw[i] = a.float(i)
		}
		d.X = narrow(d.Raw)
	}
	for i := range d.X {
		if v := a.float(i); math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > math.MaxFloat32 {
			return fmt.Errorf("%s: row %d, column %d is %v, want a finite float32 number", a.name, i/d.D, i%d.D, v)
		}
	}
	return nil
}

// npyIndex writes flat index i of shape as [i0, i1, …].
func npyIndex(shape []int, i int) string {
	idx := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = strconv.Itoa(i % shape[k])
			i /= shape[k]
		}
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

// npyBags builds the bags from the bag array, the proportions and the
// optional row ids.
func npyBags(ba, pa, ids *npyArray, n int, normalize bool) (*estimators.BagSet, error) {
	if err := npyIntVector(ba, n, "one bag id per instance of X"); err != nil {
		return nil, err
	}
	if len(pa.shape) != 2 || pa.shape[1] < 2 {
		return nil, fmt.Errorf("%s: shape %s: want K×C (a row of C ≥ 2 class proportions per bag)", pa.name, shapeString(pa.shape))
	}
	k, c := pa.shape[0], pa.shape[1]
	rows := make([]propRow[int64], k)
	for r := range rows {
		rows[r] = propRow[int64]{id: int64(r), where: fmt.Sprintf("row %d", r), vals: make([]float64, c)}
		for j := range rows[r].vals {
			rows[r].vals[j] = pa.float(r*c + j)
		}
	}
	if ids != nil {
		if err := npyIntVector(ids, k, "one bag id per row of "+pa.name); err != nil {
			return nil, err
		}
		for r := range rows {
			rows[r].id = ids.int(r)
			rows[r].where = fmt.Sprintf("row %d (bag_ids[%d] = %d)", r, r, rows[r].id)
		}
	}
	inst := func(i int) int64 { return ba.int(i) }
	where := func(i int) string { return fmt.Sprintf("%s[%d]", ba.name, i) }
	return buildBags(bagSource[int64]{
		instFile: ba.name, n: n, id: inst, where: where,
		propFile: pa.name, rows: rows, classes: c, counts: pa.isInt(), normalize: normalize,
		idText: func(id int64) string { return strconv.FormatInt(id, 10) },
		intID:  func(id int64) (int, bool) { return int(id), int64(int(id)) == id },
	})
}

// npyIntVector checks that a holds want integers as a vector (N or N×1).
func npyIntVector(a *npyArray, want int, what string) error {
	if !a.isInt() {
		return fmt.Errorf("%s: dtype %s, want an integer type (%s; convert with .astype(np.int64))", a.name, a.dtype, what)
	}
	if n := a.len(); (len(a.shape) == 1 || len(a.shape) == 2 && a.shape[1] == 1) && n == want {
		return nil
	}
	return fmt.Errorf("%s: shape %s, want (%d,): %s", a.name, shapeString(a.shape), want, what)
}

// npyTest reads the optional labelled test split.
func npyTest(s *npySource, train *Dataset) (*Dataset, error) {
	kx, err := s.find("the test split's instances", npyTestXNames...)
	if err != nil {
		return nil, err
	}
	ky, err := s.find("the test split's labels", npyTestYNames...)
	if err != nil {
		return nil, err
	}
	if kx == "" && ky == "" {
		return nil, nil
	}
	if kx == "" || ky == "" {
		return nil, fmt.Errorf("%s: a test split needs both test_X and test_y; it holds %s", s.name, s.list())
	}
	xa, err := s.read(kx)
	if err != nil {
		return nil, err
	}
	test, err := npyFeatures(xa)
	if err != nil {
		return nil, err
	}
	if test.D != train.D || test.Channels != train.Channels || test.Height != train.Height || test.Width != train.Width {
		return nil, fmt.Errorf("%s: instances of %s, but X's are %s: the test split must be shaped like X", xa.name, shapeText(test), shapeText(train))
	}
	ya, err := s.read(ky)
	if err != nil {
		return nil, err
	}
	if err := npyIntVector(ya, test.N, "one label per test instance"); err != nil {
		return nil, err
	}
	test.Y = make([]int, test.N)
	for i := range test.Y {
		v := ya.int(i)
		if v < 0 || v >= int64(train.NumClasses) {
			return nil, fmt.Errorf("%s[%d]: label %d, want a class 0…%d (proportions has %d columns)", ya.name, i, v, train.NumClasses-1, train.NumClasses)
		}
		test.Y[i] = int(v)
	}
	test.NumClasses = train.NumClasses
	return test, nil
}

// shapeText describes a split's instances: C×H×W images or D features.
func shapeText(d *Dataset) string {
	if d.Channels > 0 {
		return fmt.Sprintf("%d×%d×%d images", d.Channels, d.Height, d.Width)
	}
	return fmt.Sprintf("%d features", d.D)
}

// propRow is one row of a proportions table: its bag id, where it is (for
// messages) and its C values.
type propRow[K comparable] struct {
	id    K
	where string
	vals  []float64
}

// bagSource is what buildBags needs: the instances' bag ids and the rows
// of the proportions table.
type bagSource[K comparable] struct {
	instFile string
	n        int
	id       func(i int) K
	where    func(i int) string
	propFile string
	rows     []propRow[K]
	classes  int
	// classNames are the proportions table's class columns (nil for NumPy
	// arrays), named in errors beside the class's index.
	classNames []string
	// counts says the table's type holds integers (NumPy integer dtypes).
	counts    bool
	normalize bool
	idText    func(K) string
	intID     func(K) (int, bool)
}

// buildBags matches the instances' bag ids with the proportions' rows and
// returns the bags (see the package comment on bag-only sets for the
// rules).
func buildBags[K comparable](s bagSource[K]) (*estimators.BagSet, error) {
	rowOf := make(map[K]int, len(s.rows))
	for r, row := range s.rows {
		if prev, dup := rowOf[row.id]; dup {
			return nil, fmt.Errorf("%s: %s repeats bag %s of %s; want one row per bag", s.propFile, row.where, s.idText(row.id), s.rows[prev].where)
		}
		rowOf[row.id] = r
	}
	members := make([][]int, len(s.rows))
	for i := 0; i < s.n; i++ {
		id := s.id(i)
		r, ok := rowOf[id]
		if !ok {
			missing := 0
			for j := i; j < s.n; j++ {
				if _, ok := rowOf[s.id(j)]; !ok {
					missing++
				}
			}
			return nil, fmt.Errorf("%s: %s has bag id %s, which has no row in %s (%d instances have a bag id without proportions)",
				s.instFile, s.where(i), s.idText(id), s.propFile, missing)
		}
		members[r] = append(members[r], i)
	}
	for r, m := range members {
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: %s gives proportions for bag %s, but no instance of %s has that bag id",
				s.propFile, s.rows[r].where, s.idText(s.rows[r].id), s.instFile)
		}
	}
	counts, err := s.readsCounts()
	if err != nil {
		return nil, err
	}
	set := &estimators.BagSet{NumClasses: s.classes}
	byID := true
	for _, row := range s.rows {
		if _, ok := s.intID(row.id); !ok {
			byID = false
		}
	}
	for r, row := range s.rows {
		p, err := s.proportions(row, len(members[r]), counts)
		if err != nil {
			return nil, err
		}
		id := r
		if byID {
			id, _ = s.intID(row.id)
		}
		set.Bags = append(set.Bags, estimators.Bag{ID: id, Size: len(members[r]), Proportions: p, Indices: members[r]})
	}
	return set, nil
}

// class names class c in errors: by its column where the table names it.
func (s bagSource[K]) class(c int) string {
	if c < len(s.classNames) {
		return fmt.Sprintf("column %q (class %d)", s.classNames[c], c)
	}
	return fmt.Sprintf("class %d", c)
}

// readsCounts checks every entry (finite, ≥ 0) and says whether the table
// holds counts: an integer type, or whole numbers whose rows do not all sum
// to 1.
func (s bagSource[K]) readsCounts() (bool, error) {
	whole, ones := true, true
	for _, row := range s.rows {
		sum := 0.0
		for c, v := range row.vals {
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				return false, fmt.Errorf("%s: %s, %s: %v, want a finite number", s.propFile, row.where, s.class(c), v)
			case v < 0:
				return false, fmt.Errorf("%s: %s, %s: %v, want a proportion or count ≥ 0", s.propFile, row.where, s.class(c), v)
			}
			whole = whole && v == math.Trunc(v)
			sum += v
		}
		ones = ones && math.Abs(sum-1) <= proportionSumTol
	}
	return s.counts || whole && !ones, nil
}

// proportions returns a row's label proportions for a bag of size
// instances: counts divided by the bag's size (or their sum, with
// normalize), proportions as they are (rescaled when they sum to 1 within
// proportionSumTol, or with normalize).
func (s bagSource[K]) proportions(row propRow[K], size int, counts bool) ([]float64, error) {
	sum := 0.0
	for _, v := range row.vals {
		sum += v
	}
	p := make([]float64, len(row.vals))
	switch {
	case sum == 0:
		return nil, fmt.Errorf("%s: %s (bag %s): every entry is 0, want proportions summing to 1 or counts summing to the bag's %d instances",
			s.propFile, row.where, s.idText(row.id), size)
	case counts && !s.normalize && sum != float64(size):
		return nil, fmt.Errorf("%s: %s (bag %s): counts sum to %v, but the bag has %d instances in %s (add @normalize to read the row as relative frequencies)",
			s.propFile, row.where, s.idText(row.id), sum, size, s.instFile)
	case counts:
		for c, v := range row.vals {
			p[c] = v / sum
		}
		return p, nil
	case math.Abs(sum-1) > proportionSumTol && !s.normalize:
		return nil, fmt.Errorf("%s: %s (bag %s): proportions sum to %.10g, want 1 (within %g; add @normalize to the data set's name to rescale every row)",
			s.propFile, row.where, s.idText(row.id), sum, proportionSumTol)
	case math.Abs(sum-1) > estimators.ProportionTol:
		for c, v := range row.vals {
			p[c] = v / sum
		}
		return p, nil
	}
	copy(p, row.vals)
	return p, nil
}

// NoTestSplit is the test split of a bag-only set that has none: no
// instances (N = 0), the training split's shape, classes and columns. LLP
// data often hold no instance label at all; such a set still trains, and its
// model is judged by bag-level figures only (the training bags' proportion
// error, held-out bags' validation KL): a run on it records test_points 0 and
// no test metric. Callers that need labelled instances check N.
//
// The empty test split of an Unlabelled training split (npz: without y) is
// Unlabelled too.
func NoTestSplit(train *Dataset) *Dataset {
	t := &Dataset{Name: train.Name, Y: []int{}, D: train.D, NumClasses: train.NumClasses,
		Channels: train.Channels, Height: train.Height, Width: train.Width,
		ClassNames: train.ClassNames, Columns: train.Columns}
	if train.Unlabelled {
		t.Y, t.Unlabelled = nil, true
	}
	return t
}

// bagOnlyCache keeps the last bag-only set read.
var bagOnlyCache splitCache

// loadBagOnly returns one split of a bag-only set (the training split has
// no labels; the test split is NoTestSplit when the set has none).
func loadBagOnly(name string, split Split) (*Dataset, error) {
	return bagOnlyCache.load(name, split, ReadBagOnly)
}

// splitCache keeps the two splits of the last file data set read by one
// reader (Load reads the training and the test split by two calls), read
// again when its files change on disk (sourceStamp).
type splitCache struct {
	sync.Mutex
	name, stamp string
	train, test *Dataset
}

// load returns one split of the set name, reading both with read when the
// cache does not hold them; a set without a test split gets NoTestSplit.
func (c *splitCache) load(name string, split Split, read func(string) (train, test *Dataset, err error)) (*Dataset, error) {
	c.Lock()
	defer c.Unlock()
	stamp := sourceStamp(name)
	if c.name != name || c.stamp != stamp || stamp == "" {
		train, test, err := read(name)
		if err != nil {
			return nil, err
		}
		c.name, c.stamp, c.train, c.test = name, stamp, train, test
	}
	switch {
	case split == Train:
		return c.train, nil
	case c.test == nil:
		return NoTestSplit(c.train), nil
	}
	return c.test, nil
}

// SourceStamp identifies the files of a file data set (csv:, parquet:,
// libsvm:, bags:) by their paths, sizes and modification times, for the
// caches of data read from them: a file changed on disk is read again, not
// served stale ("" when one cannot be read, or for a named set).
func SourceStamp(name string) string { return sourceStamp(name) }

// sourceStamp is SourceStamp.
func sourceStamp(name string) string {
	src, err := parseSource(name)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range src.paths {
		var files []string
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			entries, _ := os.ReadDir(p)
			for _, e := range entries {
				files = append(files, filepath.Join(p, e.Name()))
			}
		} else {
			files = append(files, p)
		}
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				return ""
			}
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		}
	}
	return b.String()
}
