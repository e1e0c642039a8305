package data

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/estimators"
)

// Dataset is a labelled data set held in memory: N instances with D features
// each and a label in 0…NumClasses−1. The bag protocols (package bagproto)
// draw bags of instance indices from it; the labels are then dropped, except
// through each bag's empirical proportions γ̂ (Section 5.1).
type Dataset struct {
	Name string
	// X is row-major N×D. For images each row is one image in C×H×W
	// (channel-major) order with values in [0,1].
	X []float32
	// Y holds the 0-based class of each instance.
	Y          []int
	N, D       int
	NumClasses int
	// Channels, Height, Width describe an image row of X (C×H×W = D); all
	// three are 0 for tabular data.
	Channels, Height, Width int
	// ClassNames, when set, gives the original label of each class (CSV and
	// LIBSVM files, whose labels are mapped to 0…K−1).
	ClassNames []string
	// Normalization is set on a normalized copy (Standardization.Apply): its
	// values are then no longer pixels in [0,1].
	Normalization *Standardization
	// Raw, when set (tabular files: ReadCSV, ReadLIBSVM), holds the values
	// of X as read, in float64: Fit and Apply standardize from them, so that
	// features with a large offset keep the differences that float32 would
	// round away (features at 1e9 + N(0,1) against 1e9 + N(2,1) once
	// trained to chance). A normalized copy has none.
	Raw []float64
	// Columns, when set (CSV and Parquet files with named or categorical
	// columns), describe the features of X column by column: a numeric
	// column is one feature, a categorical one a one-hot block (Column).
	// Fit leaves one-hot features as they are; the feature protocol
	// (bagproto, "feature:COL") finds its columns here.
	Columns []Column
	// Bags, when set, are the bags a bag-only data set gives (ReadBagOnly):
	// its training split then has no labels (Y is nil) and the bags, with
	// their label proportions, are all that is known of the classes
	// (Section 5.1's LLP data). Nil for a labelled data set.
	Bags *estimators.BagSet
	// Unlabelled marks a split of instances alone (an npz: set without
	// labels, ReadNPZSet): Y is nil, NumClasses is 0 and there are no Bags.
	// `llpfc predict` scores it; nothing trains on it (Labelled is false).
	Unlabelled bool
}

// Split selects the training or the test part of a named data set.
type Split int

// The two splits of every named data set.
const (
	Train Split = iota
	Test
)

func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	}
	return fmt.Sprintf("Split(%d)", int(s))
}

// Validate checks the invariants every consumer relies on: len(X) = N·D,
// len(Y) = N, labels in 0…NumClasses−1, NumClasses ≥ 1, finite features,
// image shape consistent with D and image values in [0,1] (unless the data
// set is a normalized copy).
func (d *Dataset) Validate() error {
	if d.N < 0 || d.D <= 0 {
		return fmt.Errorf("%s: shape %d×%d, want N ≥ 0 and D > 0", d.Name, d.N, d.D)
	}
	if len(d.X) != d.N*d.D {
		return fmt.Errorf("%s: len(X) = %d, want N·D = %d·%d", d.Name, len(d.X), d.N, d.D)
	}
	if d.Raw != nil && len(d.Raw) != len(d.X) {
		return fmt.Errorf("%s: len(Raw) = %d, want len(X) = %d", d.Name, len(d.Raw), len(d.X))
	}
	switch {
	case d.Unlabelled:
		if d.Y != nil || d.Bags != nil || d.NumClasses != 0 {
			return fmt.Errorf("%s: an unlabelled split has %d labels, bags %v and %d classes; want none", d.Name, len(d.Y), d.Bags != nil, d.NumClasses)
		}
	case d.Bags != nil:
		if err := d.validateBags(); err != nil {
			return err
		}
	case len(d.Y) != d.N:
		return fmt.Errorf("%s: len(Y) = %d, want N = %d", d.Name, len(d.Y), d.N)
	}
	if err := d.validateColumns(); err != nil {
		return err
	}
	if d.NumClasses < 1 && !d.Unlabelled {
		return fmt.Errorf("%s: NumClasses = %d, want ≥ 1", d.Name, d.NumClasses)
	}
	for i, y := range d.Y {
		if y < 0 || y >= d.NumClasses {
			return fmt.Errorf("%s: instance %d has label %d, want 0…%d", d.Name, i, y, d.NumClasses-1)
		}
	}
	image := d.Channels != 0 || d.Height != 0 || d.Width != 0
	if image && d.Channels*d.Height*d.Width != d.D {
		return fmt.Errorf("%s: image shape %d×%d×%d does not give D = %d", d.Name, d.Channels, d.Height, d.Width, d.D)
	}
	for i, x := range d.X {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%s: instance %d feature %d is %v, want a finite number", d.Name, i/d.D, i%d.D, x)
		}
		if image && d.Normalization == nil && (x < 0 || x > 1) {
			return fmt.Errorf("%s: instance %d pixel %d is %v, want [0,1]", d.Name, i/d.D, i%d.D, x)
		}
	}
	return nil
}

// validateBags checks a bag-only split: no labels, and bags over its rows
// with NumClasses classes, every row in exactly one bag.
func (d *Dataset) validateBags() error {
	if d.Y != nil {
		return fmt.Errorf("%s: a bag-only split has bags and %d labels; want no labels", d.Name, len(d.Y))
	}
	if d.Bags.NumClasses != d.NumClasses {
		return fmt.Errorf("%s: bags of %d classes, NumClasses = %d", d.Name, d.Bags.NumClasses, d.NumClasses)
	}
	if err := d.Bags.Validate(); err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	n := 0
	for _, b := range d.Bags.Bags {
		if len(b.Indices) != b.Size {
			return fmt.Errorf("%s: bag %d has %d indices, want its size %d", d.Name, b.ID, len(b.Indices), b.Size)
		}
		for _, i := range b.Indices {
			if i < 0 || i >= d.N {
				return fmt.Errorf("%s: bag %d holds instance %d, want 0…%d", d.Name, b.ID, i, d.N-1)
			}
		}
		n += b.Size
	}
	if n != d.N {
		return fmt.Errorf("%s: the bags hold %d instances of %d; want every instance in one bag", d.Name, n, d.N)
	}
	return nil
}

// validateColumns checks that Columns, when set, tile the D features.
func (d *Dataset) validateColumns() error {
	if d.Columns == nil {
		return nil
	}
	off := 0
	for _, c := range d.Columns {
		want := 1
		if c.Categorical() {
			want = len(c.Categories)
		}
		if c.Offset != off || c.Width != want {
			return fmt.Errorf("%s: column %q at features %d+%d, want %d+%d", d.Name, c.Name, c.Offset, c.Width, off, want)
		}
		off += c.Width
	}
	if off != d.D {
		return fmt.Errorf("%s: columns describe %d features, D = %d", d.Name, off, d.D)
	}
	return nil
}

// Row returns instance i's features (a view into X, not a copy).
func (d *Dataset) Row(i int) []float32 { return d.X[i*d.D : (i+1)*d.D] }

// Labelled reports whether the split has instance labels (a bag-only
// training split has none).
func (d *Dataset) Labelled() bool { return d.Bags == nil && !d.Unlabelled }

// ClassCounts returns the number of instances of each class.
func (d *Dataset) ClassCounts() []int {
	n := make([]int, d.NumClasses)
	for _, y := range d.Y {
		n[y]++
	}
	return n
}

// pixelScale maps a byte 0…255 to [0,1].
var pixelScale [256]float32

func init() {
	for i := range pixelScale {
		pixelScale[i] = float32(i) / 255
	}
}
