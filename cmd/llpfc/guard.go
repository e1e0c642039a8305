package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments/data"
)

// The output guard (issue 38): every command that writes lists, before any
// work, the files it reads and the files and folders it will write
// (ioPlan), and guardIO refuses, with exit status 2 naming both flags, an
// output that resolves to an input — the same file after cleaning the path
// and following symbolic links, or the same device and inode (a hard
// link) — or that lands where a bag-only directory reads its arrays or
// tables; two outputs that resolve to one file; and an output whose folder
// is missing, not a folder, or not writable, so that no run trains for
// hours to fail at its last write (`--save-model` into a missing folder
// used to fail after training, naming an internal .tmp- file). Before it,
// `train --data bags:d/v.npz --save-model d/v` replaced the data set with
// the weights with exit status 0.

// ioPath is a path named by a flag ("--data", "--out", "SPEC").
type ioPath struct {
	flag, path string
}

// ioPlan is what a command reads and writes.
type ioPlan struct {
	// reads are input files; readDirs directories in which the files
	// matching the patterns are read (a bag-only or npz: directory).
	reads    []ioPath
	readDirs []struct {
		flag string
		dir  data.InputDir
	}
	// writes are the files the command writes (in folders that must
	// exist); makes the folders it creates if missing and writes into
	// (--out DIR, --results DIR), with the files it writes there.
	writes []ioPath
	makes  []ioPath
	// within are the folders under makes into which the command writes
	// files of names it cannot list beforehand (a store's cells/): no input
	// may lie there.
	within []ioPath
}

// readData adds the inputs of the data set name (data.InputsOf), named by
// flag.
func (p *ioPlan) readData(flag, name, dataDir string) {
	in := data.InputsOf(name, dataDir)
	for _, f := range in.Files {
		p.reads = append(p.reads, ioPath{flag, f})
	}
	for _, d := range in.Dirs {
		p.readDirs = append(p.readDirs, struct {
			flag string
			dir  data.InputDir
		}{flag, d})
		entries, _ := os.ReadDir(d.Dir)
		for _, e := range entries {
			if d.Matches(e.Name()) {
				p.reads = append(p.reads, ioPath{flag, filepath.Join(d.Dir, e.Name())}) // a hard link to it elsewhere
			}
		}
	}
}

// read adds an input file (nothing for an empty path).
func (p *ioPlan) read(flag string, paths ...string) {
	for _, f := range paths {
		if f != "" {
			p.reads = append(p.reads, ioPath{flag, f})
		}
	}
}

// write adds an output file (nothing for an empty path).
func (p *ioPlan) write(flag string, paths ...string) {
	for _, f := range paths {
		if f != "" {
			p.writes = append(p.writes, ioPath{flag, f})
		}
	}
}

// makeDir adds an output folder, created if missing, with the files the
// command writes into it and the sub-folders whose files it cannot name.
func (p *ioPlan) makeDir(flag, dir string, files []string, within ...string) {
	if dir == "" {
		return
	}
	p.makes = append(p.makes, ioPath{flag, dir})
	for _, f := range files {
		p.writes = append(p.writes, ioPath{flag, filepath.Join(dir, f)})
	}
	for _, w := range within {
		p.within = append(p.within, ioPath{flag, filepath.Join(dir, w)})
	}
}

// resolvePath returns the absolute path p with every symbolic link of its
// longest existing prefix followed, as the kernel follows them (a ".."
// after a link leaves the link's target, not the link's folder: the path is
// not cleaned lexically before the links are followed): the file a write
// to p would reach, whether or not it exists yet.
func resolvePath(p string) string {
	abs := p
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return filepath.Clean(p)
		}
		abs = wd + string(filepath.Separator) + p
	}
	dir, rest := abs, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		i := strings.LastIndexByte(dir, filepath.Separator)
		if i <= 0 {
			return filepath.Clean(abs)
		}
		rest = filepath.Join(dir[i+1:], rest)
		dir = dir[:i]
	}
}

// sameFile reports whether a and b are one file: the same resolved path, or
// the same device and inode.
func sameFile(a, b string) bool {
	if resolvePath(a) == resolvePath(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// inside reports whether path resolves to a file under dir.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(resolvePath(dir), resolvePath(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// named describes a path for a message: the flag's value, and what it
// resolves to when that differs.
func named(p ioPath) string {
	if r := resolvePath(p.path); r != filepath.Clean(p.path) {
		return fmt.Sprintf("%s %s (%s)", p.flag, p.path, r)
	}
	return p.flag + " " + p.path
}

// guardIO checks the plan (see the comment above); every error is a
// usageError naming the flags at fault.
func guardIO(p ioPlan) error {
	for _, w := range append(append([]ioPath(nil), p.writes...), p.makes...) {
		if err := p.clashes(w); err != nil {
			return usageError{err}
		}
	}
	for i, a := range p.writes {
		for _, b := range p.writes[i+1:] {
			if sameFile(a.path, b.path) {
				return usagef("%s and %s are one file: each would overwrite the other; name another for one of them", named(a), named(b))
			}
		}
	}
	for _, d := range p.makes {
		if err := writableDir(d, true); err != nil {
			return usageError{err}
		}
	}
	for _, w := range p.writes {
		if err := outputFile(w, p.makes); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// clashes returns an error when the output w resolves to an input of the
// plan, or would write where an input is read.
func (p ioPlan) clashes(w ioPath) error {
	const fix = "the output would overwrite the input; name another output"
	for _, r := range p.reads {
		if sameFile(w.path, r.path) {
			return fmt.Errorf("%s is the input %s: %s", named(w), named(r), fix)
		}
		for _, d := range p.within {
			if d.flag == w.flag && inside(r.path, d.path) {
				return fmt.Errorf("%s writes into %s, which holds the input %s: %s", named(w), d.path, named(r), fix)
			}
		}
	}
	for _, r := range p.readDirs {
		if filepath.Dir(resolvePath(w.path)) == resolvePath(r.dir.Dir) && r.dir.Matches(filepath.Base(w.path)) {
			return fmt.Errorf("%s is in the data directory %s %s, which reads %s: the output would overwrite or add to the data set; name another output",
				named(w), r.flag, r.dir.Dir, strings.Join(r.dir.Patterns, ", "))
		}
		if sameFile(w.path, r.dir.Dir) {
			return fmt.Errorf("%s is the input %s %s: %s", named(w), r.flag, r.dir.Dir, fix)
		}
	}
	return nil
}

// writableDir checks that dir, an output folder, is a folder that can be
// written: it exists and takes a file, or (create) its nearest existing
// ancestor is a folder that does.
func writableDir(d ioPath, create bool) error {
	st, err := os.Stat(d.path)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s: is a file, want a folder", named(d))
	case err == nil:
		return probeWrite(d, d.path)
	case !os.IsNotExist(err):
		return fmt.Errorf("%s: %v", d.flag, err)
	case !create:
		return fmt.Errorf("%s: the folder %s does not exist; create it first", d.flag, d.path)
	}
	for anc := filepath.Dir(filepath.Clean(d.path)); ; anc = filepath.Dir(anc) {
		st, err := os.Stat(anc)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s: %s is a file, so the folder %s cannot be made", named(d), anc, d.path)
			}
			return probeWrite(d, anc)
		}
		if anc == filepath.Dir(anc) {
			return fmt.Errorf("%s: no existing folder above it", named(d))
		}
	}
}

// probeWrite checks that a file can be made in dir.
func probeWrite(d ioPath, dir string) error {
	f, err := os.CreateTemp(dir, ".llpfc-write-probe-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write there (in %s): %v", named(d), dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// outputFile checks an output file: not a folder, and in a folder that
// exists and can be written (or that the command makes: under makes).
func outputFile(w ioPath, makes []ioPath) error {
	if st, err := os.Stat(w.path); err == nil && st.IsDir() {
		return fmt.Errorf("%s: is a folder, want a file", named(w))
	}
	parent := filepath.Dir(filepath.Clean(w.path))
	for _, m := range makes {
		if m.flag == w.flag && (sameFile(parent, m.path) || inside(parent, m.path)) {
			return nil // made, and checked, with its folder
		}
	}
	st, err := os.Stat(parent)
	switch {
	case os.IsNotExist(err):
		return fmt.Errorf("%s: the folder %s does not exist; create it first", named(w), parent)
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s: %s is a file, not a folder", named(w), parent)
	}
	return writableDir(ioPath{w.flag + " " + w.path, parent}, false)
}
