package data

import (
	"os"
	"path/filepath"
)

// Inputs are the files that reading a data set reads, for the commands'
// output guard (`train --data bags:d/v.npz --save-model d/v` once
// replaced the data set with the weights, exit 0): Files are read as they
// are; in each of Dirs, the files whose names match a pattern are read — a
// bag-only directory's .npy arrays (every one: an array the layout does not
// know is refused), or its train, proportions and test tables — including
// those not there yet, which the next read would take (a predictions .npy
// written into an array directory makes it unreadable; a test.csv written
// into a table directory becomes its test split).
type Inputs struct {
	Files []string
	Dirs  []InputDir
}

// InputDir is a directory some of whose files a data set reads.
type InputDir struct {
	Dir      string
	Patterns []string // filepath.Match patterns of the file names read
}

// bagDirPatterns are the files of a bag-only directory (readBagPath).
var bagDirPatterns = func() []string {
	p := []string{"*.npy"}
	for _, base := range []string{"train", "proportions", "test"} {
		for _, ext := range tableExtensions {
			p = append(p, base+ext)
		}
	}
	return p
}()

// InputsOf returns the inputs of the data set name with the data directory
// dataDir (as Load reads them): the files of csv:, parquet:, libsvm:,
// bags: and npz: names, the files of a named set in the directory Resolve finds.
// The embedded fixture and generated sets have none; a name that does not
// parse, or a named set not found, has none either (reading it fails with
// its own error).
func InputsOf(name, dataDir string) Inputs {
	var in Inputs
	if isFileKind(name) {
		src, err := parseSource(name)
		if err != nil {
			return in
		}
		for _, p := range src.paths {
			if st, err := os.Stat(p); err == nil && st.IsDir() && (src.kind == "bags" || src.kind == "npz") {
				patterns := bagDirPatterns
				if src.kind == "npz" {
					patterns = []string{"*.npy"} // an npz: directory's arrays (ReadNPZSet)
				}
				in.Dirs = append(in.Dirs, InputDir{Dir: p, Patterns: patterns})
				continue
			}
			in.Files = append(in.Files, p)
		}
		return in
	}
	fs, ok := fileSets[name]
	if !ok {
		return in
	}
	dir, err := Resolve(name, dataDir)
	if err != nil {
		return in
	}
	for _, b := range append(append([]string(nil), fs.train...), fs.test...) {
		if p := fs.present(dir, b); p != "" {
			in.Files = append(in.Files, p)
		}
	}
	return in
}

// Matches reports whether path is a file the directory's patterns read.
func (d InputDir) Matches(name string) bool {
	for _, p := range d.Patterns {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}
