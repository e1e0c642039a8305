package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutationsApplyOnce: every mutation's text occurs exactly once in its
// file of the current tree (so `make mutate` mutates what it says), changes
// it, and the ids are unique; there are at least 25, as issue 11 asks.
func TestMutationsApplyOnce(t *testing.T) {
	if len(mutations) < 25 {
		t.Errorf("%d mutations, want at least 25", len(mutations))
	}
	seen := map[string]bool{}
	for _, m := range mutations {
		if seen[m.ID] {
			t.Errorf("duplicate mutation id %s", m.ID)
		}
		seen[m.ID] = true
		b, err := os.ReadFile(filepath.Join("..", "..", m.File))
		if err != nil {
			t.Errorf("%s: %v", m.ID, err)
			continue
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			t.Errorf("%s: the text occurs %d times in %s, want once", m.ID, n, m.File)
		}
		if m.Old == m.New || m.Bug == "" {
			t.Errorf("%s: changes nothing or has no description", m.ID)
		}
	}
}
