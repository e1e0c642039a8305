package grid

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/internal/atomicfile"
)

// FailureFormat names the layout of a failure record; it changes when the
// layout does.
const FailureFormat = "llpfc-failure/1"

// Failure is why a cell of a spec did not train when it last ran, as the
// store keeps it: DIR/failed/<key>.json. It is not a result: the cell stays
// unfinished, the next run tries it again, and a run that finishes it
// removes the record. A report prints the records ("Cells that did not
// train, and why"), and run --check names them among the missing cells, so
// a cell a method refuses (LLPFC-ideal where its grouping assumption fails,
// Section 5.3) is kept with its reason rather than only in a log.
type Failure struct {
	Format     string             `json:"format"`
	Key        string             `json:"key"`
	Spec       string             `json:"spec"`
	Seed       int64              `json:"seed"`
	Config     experiments.Config `json:"config"`
	Error      string             `json:"error"`
	Provenance Provenance         `json:"provenance"`
	DataDigest string             `json:"data_digest,omitempty"`
}

func (s *Store) failurePath(key string) string {
	return filepath.Join(s.Dir, "failed", key+".json")
}

// PutFailure writes f atomically, replacing the cell's earlier record.
func (s *Store) PutFailure(f *Failure) error {
	if f.Key == "" || f.Error == "" {
		return fmt.Errorf("failure record of cell %q: a key and an error are required", f.Key)
	}
	f.Format = FailureFormat
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("failure record of cell %s: %w", f.Key, err)
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "failed"), 0o755); err != nil {
		return fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	return atomicfile.WriteFile(s.failurePath(f.Key), append(b, '\n'))
}

// ClearFailure removes the cell's failure record, if it has one (the cell
// has now finished).
func (s *Store) ClearFailure(key string) error {
	if err := os.Remove(s.failurePath(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	return nil
}

// Failures reads the store's failure records, sorted by key. A store
// without failed/ has none. A record that does not read is an error naming
// its file. A record whose cell is finished (one a run could not remove) is
// returned too: its readers ask only of unfinished cells (Collect leaves
// out every key any store finished; run --check and --list look up the
// missing cells), so the store's cells are not read again here.
func (s *Store) Failures() ([]*Failure, error) {
	dir := filepath.Join(s.Dir, "failed")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	var out []*Failure
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".json") {
			continue
		}
		f, err := readFailure(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

func readFailure(path string) (*Failure, error) {
	var f Failure
	if err := decodeFile(path, &f); err != nil {
		return nil, fmt.Errorf("failure record %w", err)
	}
	if f.Format != FailureFormat {
		return nil, fmt.Errorf("failure record %s: format %q, want %q", path, f.Format, FailureFormat)
	}
	if want := keyOfFile(path); want != f.Key {
		return nil, fmt.Errorf("failure record %s: holds key %s, want the file's name %s", path, f.Key, want)
	}
	return &f, nil
}
