package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Dir is the folder of the guides, relative to the repository root.
const Dir = "docs"

// Files returns the documentation's files, relative to root: README.md
// first, then every docs/*.md in name order.
func Files(root string) ([]string, error) {
	guides, err := filepath.Glob(filepath.Join(root, Dir, "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{"README.md"}
	for _, g := range guides {
		rel, err := filepath.Rel(root, g)
		if err != nil {
			return nil, err
		}
		files = append(files, filepath.ToSlash(rel))
	}
	sort.Strings(files[1:])
	if _, err := os.Stat(filepath.Join(root, "README.md")); err != nil {
		return nil, err
	}
	return files, nil
}

// Text returns every file of the documentation, one after the other, each
// followed by a newline: for a phrase that must be said somewhere.
func Text(root string) (string, error) {
	files, err := Files(root)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range files {
		s, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return "", err
		}
		b.Write(s)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// Block is the text between two marker lines in one file of the
// documentation.
type Block struct {
	Path string // the file that holds it, relative to the root
	Body string // the text between the end of the begin marker and the start of the end marker

	root       string
	start, end int // Body's byte offsets in the file
}

// Find returns the block between begin and the first end after it. Exactly
// one file may hold begin, once: a block that is nowhere, or in two places,
// is an error naming the files.
func Find(root, begin, end string) (Block, error) {
	files, err := Files(root)
	if err != nil {
		return Block{}, err
	}
	var found []Block
	var where []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return Block{}, err
		}
		s := string(b)
		n := strings.Count(s, begin)
		if n == 0 {
			continue
		}
		where = append(where, fmt.Sprintf("%s (%d)", f, n))
		i := strings.Index(s, begin) + len(begin)
		j := strings.Index(s[i:], end)
		if j < 0 {
			return Block{}, fmt.Errorf("%s: %q has no %q after it", f, begin, end)
		}
		found = append(found, Block{Path: f, Body: s[i : i+j], root: root, start: i, end: i + j})
		if n > 1 {
			found = append(found, Block{}) // counted below as a second place
		}
	}
	switch {
	case len(found) == 0:
		return Block{}, fmt.Errorf("no file of the documentation (%s) holds %q", strings.Join(files, ", "), begin)
	case len(found) > 1:
		return Block{}, fmt.Errorf("%q is in more than one place: %s; keep one", begin, strings.Join(where, ", "))
	}
	return found[0], nil
}

// Replace writes body in place of the block's, leaving the markers and the
// rest of its file as they are.
func (b Block) Replace(body string) error {
	p := filepath.Join(b.root, b.Path)
	s, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	if b.end > len(s) || string(s[b.start:b.end]) != b.Body {
		return fmt.Errorf("%s changed since its block was read", b.Path)
	}
	out := string(s[:b.start]) + body + string(s[b.end:])
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	return os.WriteFile(p, []byte(out), info.Mode().Perm())
}
