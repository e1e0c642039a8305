package data

import (
	"fmt"
	"os"
	"strings"
)

// NumPy instance sets, npz:PATH — instances with their labels, or without
// (what `llpfc predict` scores, and what the Python client's predict_proba
// hands it): PATH is an .npz archive (numpy.savez or savez_compressed) or a
// directory of .npy files holding
//
//	X       N×D features, or N×H×W / N×C×H×W images (uint8 0…255, or floats in [0,1]), as bags:
//	y       optional: N integer labels 0…C−1 (also "Y", "labels")
//	test_X  optional: a test split shaped like X (also "test_x", "X_test", "x_test")
//	test_y  optional: its labels (also "y_test")
//
// C is one more than the largest label of either split. A split without
// labels is Unlabelled: predict scores it; training, which needs labels to
// draw bags, refuses it (Dataset.Labelled is false). Every other array is
// refused by name, as in a bag-only set: nothing is silently ignored.
var npyYNames = []string{"y", "Y", "labels"}

// ReadNPZSet reads npz:PATH: its training split (X, y) and its test split
// (test_X, test_y; nil when the set has none).
func ReadNPZSet(name string) (train, test *Dataset, err error) {
	src, err := parseSource(name)
	if err != nil {
		return nil, nil, err
	}
	if src.kind != "npz" {
		return nil, nil, fmt.Errorf("%s: not a NumPy instance set (npz:PATH)", name)
	}
	path := src.paths[0]
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", name, err)
	}
	if !st.IsDir() && !strings.HasSuffix(strings.ToLower(path), ".npz") {
		return nil, nil, fmt.Errorf("%s: want an .npz archive or a directory of .npy files", name)
	}
	s, closeFn, err := openNPYSource(path)
	if err != nil {
		return nil, nil, err
	}
	defer closeFn()
	known := map[string]bool{}
	for _, names := range [][]string{npyXNames, npyYNames, npyTestXNames, npyTestYNames} {
		for _, n := range names {
			known[n] = true
		}
	}
	if err := s.checkNPZKeys(known); err != nil {
		return nil, nil, err
	}
	var kx, ky, ktx, kty string
	for _, a := range []struct {
		key   *string
		role  string
		names []string
	}{
		{&kx, "the instances", npyXNames}, {&ky, "the instances' labels", npyYNames},
		{&ktx, "the test split's instances", npyTestXNames}, {&kty, "the test split's labels", npyTestYNames},
	} {
		if *a.key, err = s.find(a.role, a.names...); err != nil {
			return nil, nil, err
		}
	}
	if kx == "" {
		return nil, nil, fmt.Errorf("%s: no array X (the instances); it holds %s", path, s.list())
	}
	if train, err = npzSplit(s, kx, ky); err != nil {
		return nil, nil, err
	}
	if ktx == "" && kty != "" {
		return nil, nil, fmt.Errorf("%s: %s without test_X: the test labels need their instances", path, kty)
	}
	if ktx != "" {
		if test, err = npzSplit(s, ktx, kty); err != nil {
			return nil, nil, err
		}
		if test.D != train.D || test.Channels != train.Channels || test.Height != train.Height || test.Width != train.Width {
			return nil, nil, fmt.Errorf("%s, array %s: instances of %s, but X's are %s: the test split must be shaped like X", path, ktx, shapeText(test), shapeText(train))
		}
	}
	if train.Unlabelled != (test != nil && test.Unlabelled) && test != nil {
		return nil, nil, fmt.Errorf("%s: labels for one split only (%s): give y and test_y, or neither", path, s.list())
	}
	classes := 0
	for _, d := range []*Dataset{train, test} {
		if d != nil {
			for _, y := range d.Y {
				classes = max(classes, y+1)
			}
		}
	}
	for _, d := range []*Dataset{train, test} {
		if d != nil {
			d.Name, d.NumClasses = name, classes
			if err := d.Validate(); err != nil {
				return nil, nil, err
			}
		}
	}
	return train, test, nil
}

// checkNPZKeys refuses arrays an npz: set does not read.
func (s *npySource) checkNPZKeys(known map[string]bool) error {
	for _, k := range s.keys() {
		if !known[k] {
			hint := ""
			if contains(npyBagNames, k) || contains(npyPropNames, k) {
				hint = " (bags and proportions make a bag-only set: read it as bags:PATH)"
			}
			return fmt.Errorf("%s: array %q is not part of an npz: set%s; it reads X, y, test_X and test_y: remove %q or rename it",
				s.name, k, hint, k)
		}
	}
	return nil
}

// npzSplit reads one split: instances kx and, when ky is not "", their labels.
func npzSplit(s *npySource, kx, ky string) (*Dataset, error) {
	xa, err := s.read(kx)
	if err != nil {
		return nil, err
	}
	d, err := npyFeatures(xa)
	if err != nil {
		return nil, err
	}
	if ky == "" {
		d.Unlabelled = true
		return d, nil
	}
	ya, err := s.read(ky)
	if err != nil {
		return nil, err
	}
	if err := npyIntVector(ya, d.N, "one label per instance of "+kx); err != nil {
		return nil, err
	}
	d.Y = make([]int, d.N)
	for i := range d.Y {
		v := ya.int(i)
		if v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("%s[%d]: label %d, want a class 0…C−1", ya.name, i, v)
		}
		d.Y[i] = int(v)
	}
	return d, nil
}

// npzCache keeps the last npz: set read.
var npzCache splitCache

// loadNPZSet returns one split of an npz: set (the test split is
// NoTestSplit when the set has none).
func loadNPZSet(name string, split Split) (*Dataset, error) {
	return npzCache.load(name, split, ReadNPZSet)
}
