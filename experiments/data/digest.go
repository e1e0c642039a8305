package data

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// Digest returns a digest of the contents of the files that reading the
// data set name reads (InputsOf): SHA-256 over each file's name, size and
// bytes, the files of a directory in name order. It depends on what the
// files hold, not on where they are: a set moved to another --data-dir
// keeps its digest, and a set whose files changed gets another. The grid
// runner records it in every result and refuses a store whose finished
// cells ran on other contents of their data (grid.Runner.Run). The
// embedded fixture and generated sets read no file: their digest is "".
func Digest(name, dataDir string) (string, error) {
	in := InputsOf(name, dataDir)
	var files []string
	files = append(files, in.Files...)
	for _, d := range in.Dirs {
		entries, err := os.ReadDir(d.Dir)
		if err != nil {
			return "", fmt.Errorf("data set %s: %w", name, err)
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && d.Matches(e.Name()) {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, filepath.Join(d.Dir, n))
		}
	}
	if len(files) == 0 {
		return "", nil
	}
	h := sha256.New()
	for _, p := range files {
		if err := digestFile(h, p); err != nil {
			return "", fmt.Errorf("data set %s: %w", name, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// digestFile adds p's base name, size and bytes to h.
func digestFile(h io.Writer, p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "%s\x00%d\x00", filepath.Base(p), st.Size())
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	return nil
}
