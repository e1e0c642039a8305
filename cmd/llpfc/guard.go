package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments/data"
)

// The output guard: every command that writes lists, before any
// work, the files it reads and the files and folders it will write
// (ioPlan), and guardIO refuses, with exit status 2 naming both flags, an
// output that resolves to an input — the same file after cleaning the path
// and following symbolic links, or the same device and inode (a hard
// link) — or that lands where a bag-only directory reads its arrays or
// tables; two outputs that resolve to one file; and an output whose folder
// is not a folder or not writable (or, when missing, whose nearest existing
// folder is not: every output's missing folders are made, one rule), so
// that no run trains for hours to fail at its last write (`--save-model`
// into a missing folder used to fail after training, naming an internal
// .tmp- file). Before it,
// `train --data bags:d/v.npz --save-model d/v` replaced the data set with
// the weights with exit status 0.

// ioPath is a path named by a flag ("--data", "--out", "SPEC"); an output's
// role says what it is allowed to write over (ownership, below).
type ioPath struct {
	flag, path string
	role       outRole
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
		p.reads = append(p.reads, ioPath{flag: flag, path: f})
	}
	for _, d := range in.Dirs {
		p.readDirs = append(p.readDirs, struct {
			flag string
			dir  data.InputDir
		}{flag, d})
		entries, _ := os.ReadDir(d.Dir)
		for _, e := range entries {
			if d.Matches(e.Name()) {
				p.reads = append(p.reads, ioPath{flag: flag, path: filepath.Join(d.Dir, e.Name())}) // a hard link to it elsewhere
			}
		}
	}
}

// read adds an input file (nothing for an empty path).
func (p *ioPlan) read(flag string, paths ...string) {
	for _, f := range paths {
		if f != "" {
			p.reads = append(p.reads, ioPath{flag: flag, path: f})
		}
	}
}

// write adds an output file (nothing for an empty path).
func (p *ioPlan) write(flag string, paths ...string) {
	p.writeAs(plainOut, flag, paths...)
}

// writeAs adds output files of a role (nothing for an empty path).
func (p *ioPlan) writeAs(role outRole, flag string, paths ...string) {
	for _, f := range paths {
		if f != "" {
			p.writes = append(p.writes, ioPath{flag, f, role})
		}
	}
}

// makeDir adds an output folder, created if missing, with the files the
// command writes into it and the sub-folders whose files it cannot name.
func (p *ioPlan) makeDir(flag, dir string, files []string, within ...string) {
	p.makeDirAs(plainOut, flag, dir, files, within...)
}

// makeDirAs is makeDir for an output of a role: storeOut for the store a
// command keeps (run's and reproduce's --results, merge's --out),
// reportOut for a report's folder.
func (p *ioPlan) makeDirAs(role outRole, flag, dir string, files []string, within ...string) {
	if dir == "" {
		return
	}
	p.makes = append(p.makes, ioPath{flag, dir, role})
	for _, f := range files {
		p.writes = append(p.writes, ioPath{flag, filepath.Join(dir, f), role})
	}
	for _, w := range within {
		p.within = append(p.within, ioPath{flag, filepath.Join(dir, w), role})
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
		if err := w.owned(); err != nil {
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
		if err := writableDir(d); err != nil {
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
// written: it exists and takes a file, or its nearest existing ancestor is
// a folder that does (the missing ones are made).
func writableDir(d ioPath) error {
	st, err := os.Stat(d.path)
	switch {
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s: is a file, want a folder", named(d))
	case err == nil:
		return probeWrite(d, d.path)
	case !os.IsNotExist(err):
		return fmt.Errorf("%s: %v", d.flag, err)
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

// outputFile checks an output file: not a folder, and in a folder that can
// be written, or whose nearest existing folder can (every output's missing
// folders are made, a file's as a folder's: atomicfile.Write makes them).
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
	if st, err := os.Stat(parent); err == nil && !st.IsDir() {
		return fmt.Errorf("%s: %s is a file, not a folder", named(w), parent)
	}
	return writableDir(ioPath{flag: w.flag + " " + w.path, path: parent}) // its missing folders are made
}

// Ownership: what earlier commands wrote is the user's data as
// much as what a command reads. A results store — a folder whose cells/
// holds cell files, or nothing yet (isStore) — belongs to the commands that
// keep it: run and reproduce (--results) and merge (--out) write its
// cells/, models/, damaged/, claims/ and failed/; report and reproduce (--out,
// --csv) write reports in it anywhere but there; no other output lands in it. A saved
// model — FILE.npz beside its manifest FILE.json — is replaced only by
// another --save-model of FILE, outside any store; no other output
// writes over a manifest, a cell file or a NumPy archive, whatever it is
// called (a hard link is recognised by its contents). Paths are compared
// after resolvePath, so every spelling of one place is one place.

// outRole is what an output is allowed to write over.
type outRole int

const (
	plainOut  outRole = iota // a file or folder of the user's choosing: nothing owned
	storeOut                 // the store a command keeps: its own store
	reportOut                // a report: in a store, outside its cells/, models/, damaged/
	saveOut                  // --save-model's two files: a saved model they replace
)

// storeParts are the folders of a store that only its own commands write.
var storeParts = []string{"cells", "models", "damaged", "claims", "failed"}

// isStore reports whether dir is a results store: dir/cells is a folder,
// empty or holding a cell file (*.json).
func isStore(dir string) bool {
	entries, err := os.ReadDir(filepath.Join(dir, "cells"))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return len(entries) == 0
}

// storeAbove returns the store at or above the resolved path r and r's
// place in it ("" for the store itself), or "" when there is none.
func storeAbove(r string) (store, rel string) {
	for d := r; ; d = filepath.Dir(d) {
		if isStore(d) {
			rel, _ := filepath.Rel(d, r)
			if rel == "." {
				rel = ""
			}
			return d, rel
		}
		if d == filepath.Dir(d) {
			return "", ""
		}
	}
}

// storesWithin refuses a store's folder r (w names it) that holds other
// stores: a store is not kept around another, as it is not kept inside one
// (`run --results .` in a folder of stores was accepted, after which every
// output there was refused as inside a store). The folders are searched
// to storeSearchDepth levels, a store's own parts left out.
func storesWithin(w ioPath, r string) error {
	var found []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > storeSearchDepth || len(found) >= 3 {
			return
		}
		own := isStore(dir)
		for _, e := range entries {
			if !e.IsDir() || (own && contains(storeParts, e.Name())) {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if isStore(sub) {
				found = append(found, sub)
				continue
			}
			walk(sub, depth+1)
		}
	}
	walk(r, 1)
	if len(found) == 0 {
		return nil
	}
	what := "the results store"
	if len(found) > 1 {
		what = "the results stores"
	}
	return fmt.Errorf("%s holds %s %s: a store is not kept around another (every output in it would be inside a store); name a folder of its own, such as %s",
		named(w), what, strings.Join(found, ", "), filepath.Join(r, "results"))
}

// storeSearchDepth is how deep storesWithin looks for stores below a store.
const storeSearchDepth = 3

// owned returns an error when the output w would write inside a store or
// over a saved model, a cell or a NumPy archive that is not its own to
// write (see Ownership above).
func (w ioPath) owned() error {
	r := resolvePath(w.path)
	if store, rel := storeAbove(r); store != "" {
		part := strings.SplitN(rel, string(filepath.Separator), 2)[0]
		switch {
		case w.role == storeOut && rel == "": // storesWithin, below
		case w.role == reportOut && !contains(storeParts, part):
		case w.role == reportOut:
			return fmt.Errorf("%s is in %s/ of the results store %s, which only the store's run, reproduce and merge write: the report would be read as part of the store; write it in %s itself (report's default is %s) or outside it",
				named(w), part, store, store, filepath.Join(store, "report"))
		case w.role == storeOut:
			return fmt.Errorf("%s is inside the results store %s: a store is not kept inside another; name a folder outside %s", named(w), store, store)
		default:
			return fmt.Errorf("%s is in the results store %s, which only its run, reproduce, merge (cells, models) and report (reports) write: the output would change what the store holds; name a path outside it", named(w), store)
		}
	}
	if w.role == storeOut {
		if err := storesWithin(w, r); err != nil {
			return err
		}
	}
	what := ownedFile(r)
	if _, err := os.Stat(r); err == nil && what == "" && w.role == saveOut {
		what = "a file of no saved model" // a model is written over a model only
	}
	switch {
	case what == "":
		return nil
	case w.role == saveOut && what == "a saved model's manifest":
		return nil
	case w.role == saveOut && what == "a NumPy archive" && ownedFile(strings.TrimSuffix(r, ".npz")+".json") == "a saved model's manifest":
		return nil // the weights of the model this save replaces
	}
	fix := "name another output"
	if w.role == saveOut {
		fix = "--save-model replaces only a saved model (FILE.npz and its manifest FILE.json); name another"
	}
	return fmt.Errorf("%s is %s: the output would overwrite it; %s", named(w), what, fix)
}

// ownedFile says what the existing file at path is when an output must not
// write over it ("" for none of these, or no file): a saved model's
// manifest or a store's cell (by their "format"), a NumPy archive (a
// model's weights or a data set), or any other file for --save-model.
func ownedFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return ""
	}
	head := make([]byte, 4)
	if n, _ := io.ReadFull(f, head); n == 4 && (string(head) == "PK\x03\x04" || string(head) == "PK\x05\x06") {
		return "a NumPy archive"
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return ""
	}
	var doc struct {
		Format string `json:"format"`
	}
	if json.NewDecoder(f).Decode(&doc) != nil { // torn (a damaged cell set aside): its words still say
		head := make([]byte, 4096)
		f.Seek(0, io.SeekStart)
		n, _ := io.ReadFull(f, head)
		if i := bytes.Index(head[:n], []byte(`"llpfc-`)); i >= 0 {
			doc.Format = string(head[i+1 : min(n, i+20)])
		}
	}
	switch {
	case strings.HasPrefix(doc.Format, "llpfc-model/"):
		return "a saved model's manifest"
	case strings.HasPrefix(doc.Format, "llpfc-result/"):
		return "a cell of a results store"
	case strings.HasPrefix(doc.Format, "llpfc-failure/"):
		return "a failure record of a results store"
	}
	return ""
}
