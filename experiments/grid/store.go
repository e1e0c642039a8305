package grid

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/internal/atomicfile"
)

// ResultFormat names the layout of a result file; it changes when the layout
// does.
const ResultFormat = "llpfc-result/1"

// Result is one finished cell as the store keeps it: DIR/cells/<key>.json.
type Result struct {
	Format string `json:"format"`
	Key    string `json:"key"`
	// Spec is the name of the spec that ran the cell. A cell is keyed by its
	// configuration alone, so a later spec with an identical cell finds it
	// finished and adds its name to Specs rather than running it again;
	// SpecNames lists them all (the cell used to belong only to the spec
	// that wrote it first).
	Spec       string              `json:"spec"`
	Specs      []string            `json:"specs,omitempty"`
	Seed       int64               `json:"seed"`
	Config     experiments.Config  `json:"config"`
	Metrics    experiments.Metrics `json:"metrics"`
	Provenance Provenance          `json:"provenance"`
	// DataDigest is data.Digest of the cell's data set when it ran: the
	// contents of the files it read, wherever they were. It is empty for the
	// embedded and generated sets, and in results written before it. A
	// later Run refuses the store when a finished cell's data changed since
	// (the finished cell would otherwise be kept, and reported, silently).
	DataDigest string `json:"data_digest,omitempty"`
}

// Provenance records where, when and by which code a result was made.
type Provenance struct {
	// CodeVersion is the revision of the code that ran and Dirty whether
	// its source differed from that revision (CodeVersion(): the binary's
	// own build information, else its module's source tree; never the
	// working directory's).
	CodeVersion string    `json:"code_version"`
	Dirty       bool      `json:"dirty"`
	GoVersion   string    `json:"go_version"`
	Host        string    `json:"host"`
	GOOS        string    `json:"goos"`
	GOARCH      string    `json:"goarch"`
	NumCPU      int       `json:"num_cpu"`
	Start       time.Time `json:"start"`
	End         time.Time `json:"end"`
	// WallSeconds is End−Start as measured by the runner.
	WallSeconds float64 `json:"wall_seconds"`
	// PeakRSSBytes is the process's peak resident set size when the cell
	// ended (getrusage ru_maxrss). It is a high-water mark of the whole
	// process, so it bounds the cell's peak from above.
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
}

// SameOutcome reports whether two results of one key agree on everything that
// a deterministic rerun reproduces: key, configuration and the outcome
// metrics (test accuracy, epochs, final loss, point counts, extras). Wall
// time, throughput, memory, the device, the numerics, provenance and the
// assumption diagnostics of the bags (Metrics.Assumptions: a store written
// before them holds the same outcomes) are ignored.
func (r *Result) SameOutcome(o *Result) bool {
	if r.Key != o.Key || !reflect.DeepEqual(r.Config, o.Config) {
		return false
	}
	a, b := r.Metrics, o.Metrics
	a.WallSeconds, a.TrainImagesPerSecond, a.PeakRSSBytes, a.Device, a.Numerics = 0, 0, 0, "", ""
	b.WallSeconds, b.TrainImagesPerSecond, b.PeakRSSBytes, b.Device, b.Numerics = 0, 0, 0, "", ""
	a.Assumptions, b.Assumptions = nil, nil // diagnostics of the bags, not outcomes: stores written before them still agree
	return reflect.DeepEqual(a, b)
}

// Validate checks a result read from disk.
func (r *Result) Validate() error {
	if r.Format != ResultFormat {
		return fmt.Errorf("format: is %q, want %q", r.Format, ResultFormat)
	}
	if k := r.Config.Key(); k != r.Key {
		return fmt.Errorf("key: is %s, but the config hashes to %s", r.Key, k)
	}
	if r.Seed != r.Config.Seed {
		return fmt.Errorf("seed: is %d, but config.seed is %d", r.Seed, r.Config.Seed)
	}
	return nil
}

// Store is a results directory: one JSON file per finished cell,
// DIR/cells/<key>.json, each written atomically (internal/atomicfile), so a
// killed run leaves only whole files (and perhaps a hidden temporary file,
// which readers ignore).
type Store struct {
	Dir string
}

// OpenStore creates DIR/cells if needed and returns the store.
func OpenStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("results directory: is empty")
	}
	for _, part := range storeParts {
		if st, err := os.Stat(filepath.Join(dir, part)); err == nil && !st.IsDir() {
			return nil, &experiments.InputError{Err: fmt.Errorf("results directory %s: %s is a file, not a folder: the store keeps its %s there; move the file out of the store (or remove it)",
				dir, filepath.Join(dir, part), storePartWhat[part])}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "cells"), 0o755); err != nil {
		return nil, fmt.Errorf("results directory %s: %w", dir, err)
	}
	removeStaleTemps(filepath.Join(dir, "cells"), ".*.json.tmp-*", time.Now().Add(-staleAfter))
	removeStaleTemps(filepath.Join(dir, "claims"), ".claim-*", time.Now().Add(-staleAfter)) // a claim's temporary file (claim.go)
	return &Store{Dir: dir}, nil
}

// storeParts are the folders of a store, and storePartWhat what each
// keeps. One that is a file stops a command before any work, as bad input:
// a run trained a cell and then failed, with exit status 1, to write its
// claim or to clear its failure record.
var (
	storeParts    = []string{"cells", "models", "damaged", "claims", "failed"}
	storePartWhat = map[string]string{"cells": "finished cells", "models": "saved models", "damaged": "damaged cell files set aside",
		"claims": "claims of the cells runs are training", "failed": "records of why cells did not train"}
)

// staleAfter is the age past which a temporary file of an atomic write
// (".<key>.json.tmp-*", internal/atomicfile) can only be the leftover of a
// killed writer: a cell's write takes milliseconds.
const staleAfter = time.Hour

// removeStaleTemps deletes the atomic-write temporaries in dir last modified
// before cutoff (they were once never cleaned). Younger ones
// may belong to a writer running now and are kept.
func removeStaleTemps(dir, pattern string, cutoff time.Time) {
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && st.ModTime().Before(cutoff) {
			os.Remove(m)
		}
	}
}

func (s *Store) path(key string) string { return filepath.Join(s.Dir, "cells", key+".json") }

// Has reports whether the cell with this key is finished: its file exists,
// parses and holds a valid result of that key (readResult). A damaged file
// (truncated, edited, another key) does not count: see Damaged.
func (s *Store) Has(key string) bool {
	_, err := s.Get(key)
	return err == nil
}

// Damaged returns why the file of the cell with this key does not hold a
// finished cell although it exists, or nil when it is absent or sound.
func (s *Store) Damaged(key string) error {
	if _, err := os.Stat(s.path(key)); err != nil {
		return nil
	}
	_, err := s.Get(key)
	return err
}

// SetAside moves the file of the cell with this key to DIR/damaged/, as
// <key>.json or, when that is taken, <key>.json.1, .2, …, so that the cell
// is run again and nothing is deleted. It returns the new path.
func (s *Store) SetAside(key string) (string, error) {
	dir := filepath.Join(s.Dir, "damaged")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	dst := filepath.Join(dir, key+".json")
	for n := 1; ; n++ {
		if _, err := os.Lstat(dst); os.IsNotExist(err) {
			break
		}
		dst = filepath.Join(dir, fmt.Sprintf("%s.json.%d", key, n))
	}
	if err := os.Rename(s.path(key), dst); err != nil {
		return "", fmt.Errorf("results directory %s: setting aside the damaged cell %s: %w", s.Dir, key, err)
	}
	return dst, nil
}

// Put writes r atomically.
func (s *Store) Put(r *Result) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("result %s: %w", r.Key, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("result %s: %w", r.Key, err)
	}
	return atomicfile.WriteFile(s.path(r.Key), append(b, '\n'))
}

// Get reads the result with this key.
func (s *Store) Get(key string) (*Result, error) {
	return readResult(s.path(key))
}

func readResult(path string) (*Result, error) {
	var r Result
	if err := decodeFile(path, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if want := keyOfFile(path); want != r.Key {
		return nil, fmt.Errorf("%s: holds key %s, want the file's name %s", path, r.Key, want)
	}
	return &r, nil
}

// decodeFile reads the JSON object in path into v, refusing a field v does
// not have (a file of another layout is not read as this one); an error
// reading the file is returned as it is (os.ErrNotExist stays testable),
// one decoding it names the path.
func decodeFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// keyOfFile is the cell key a store's file is named for: its name less .json.
func keyOfFile(path string) string { return strings.TrimSuffix(filepath.Base(path), ".json") }

func newProvenance(start, end time.Time) Provenance {
	rev, dirty := experiments.CodeVersion()
	host, _ := os.Hostname()
	return Provenance{
		CodeVersion: rev, Dirty: dirty, GoVersion: runtime.Version(), Host: host,
		GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(),
		Start: start.UTC(), End: end.UTC(), WallSeconds: end.Sub(start).Seconds(),
		PeakRSSBytes: experiments.PeakRSSBytes(),
	}
}
