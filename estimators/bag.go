package estimators

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/llpfc/llpfc/internal/jsonkeys"
)

// ProportionTol is the tolerance on the sum of a bag's label proportions.
const ProportionTol = 1e-9

// Bag is one bag of an LLP data set (Section 5.1): the indices of its
// instances in the underlying data set (optional: a bags file may carry only
// sizes), its size |b| and its empirical label proportions γ̂.
type Bag struct {
	ID          int       `json:"id"`
	Size        int       `json:"size"`
	Proportions []float64 `json:"proportions"`
	Indices     []int     `json:"indices,omitempty"`
}

// BagSet is an LLP data set: C classes and the bags {(b_k, γ̂_k)}. Its JSON
// form is the bags file read by `llpfc groups` and written by `llpfc bags`:
//
//	{"num_classes": C, "bags": [{"id": 0, "size": 64, "proportions": [...], "indices": [...]}, ...]}
type BagSet struct {
	NumClasses int   `json:"num_classes"`
	Bags       []Bag `json:"bags"`
}

// Validate checks the rules every consumer relies on and returns an error
// naming the first bag that breaks one: C ≥ 2; at least one bag; unique ids;
// size > 0; exactly C proportions, each finite and ≥ 0, summing to 1±1e-9;
// when indices are given, exactly size of them, each ≥ 0, and no instance in
// two places (a bag's instances are distinct and bags are disjoint, as every
// protocol of Section 6 draws them: an instance counted twice would weigh
// twice in one method and be refused by another). A bag is named by its
// position in the file and its id, and a repeat by both places (naming one
// once sent the user to the wrong bag).
func (s *BagSet) Validate() error {
	if s.NumClasses < 2 {
		return fmt.Errorf("num_classes is %d, want ≥ 2", s.NumClasses)
	}
	if len(s.Bags) == 0 {
		return fmt.Errorf("no bags")
	}
	seen := make(map[int]int, len(s.Bags))
	type place struct{ bag, pos int }
	where := map[int]place{}
	for k, b := range s.Bags {
		if prev, dup := seen[b.ID]; dup {
			return fmt.Errorf("bags[%d]: id %d repeats the id of bags[%d]; ids must be unique", k, b.ID, prev)
		}
		seen[b.ID] = k
		for j, ix := range b.Indices {
			if p, dup := where[ix]; dup {
				return fmt.Errorf("bags[%d] (id %d): instance index %d at position %d is also at position %d of bags[%d] (id %d); an instance belongs to one bag once",
					k, b.ID, ix, j, p.pos, p.bag, s.Bags[p.bag].ID)
			}
			where[ix] = place{k, j}
		}
		if b.Size <= 0 {
			return fmt.Errorf("bag %d: size is %d, want > 0", b.ID, b.Size)
		}
		if len(b.Proportions) != s.NumClasses {
			return fmt.Errorf("bag %d: has %d proportions, want num_classes=%d", b.ID, len(b.Proportions), s.NumClasses)
		}
		sum := 0.0
		for c, p := range b.Proportions {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return fmt.Errorf("bag %d: proportion of class %d is %v, want a finite number", b.ID, c, p)
			}
			if p < 0 {
				return fmt.Errorf("bag %d: proportion of class %d is %g, want ≥ 0", b.ID, c, p)
			}
			sum += p
		}
		if math.Abs(sum-1) > ProportionTol {
			return fmt.Errorf("bag %d: proportions sum to %.12g, want 1±%g", b.ID, sum, ProportionTol)
		}
		if b.Indices != nil {
			if len(b.Indices) != b.Size {
				return fmt.Errorf("bag %d: has %d indices, want size=%d", b.ID, len(b.Indices), b.Size)
			}
			for _, ix := range b.Indices {
				if ix < 0 {
					return fmt.Errorf("bag %d: instance index %d, want ≥ 0", b.ID, ix)
				}
			}
		}
	}
	return nil
}

// ReadBagSet decodes a bags file from r and validates it. Unknown fields are
// an error, so a misspelt key is not silently ignored, and so are a key named
// twice in one object and a key in another case than documented (jsonkeys:
// encoding/json would keep the last, matching names without case).
func ReadBagSet(r io.Reader) (*BagSet, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("bags file: %w", err)
	}
	if err := jsonkeys.Unique(data); err != nil {
		return nil, fmt.Errorf("bags file: %w", err)
	}
	if err := jsonkeys.Exact(data, new(BagSet)); err != nil {
		return nil, fmt.Errorf("bags file: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s BagSet
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("bags file: %w", err)
	}
	// Like a spec file: one JSON object and nothing after it (`cat a.json
	// b.json` used to read as a).
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("bags file: trailing data after the bags object (offset %d); a bags file holds one JSON object", dec.InputOffset())
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// ReadBagSetFile reads and validates the bags file at path.
func ReadBagSetFile(path string) (*BagSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadBagSet(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Write encodes s as a bags file. The encoding is deterministic: the same
// BagSet always gives the same bytes.
func (s *BagSet) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(s)
}
