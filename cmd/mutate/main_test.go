package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMutationListIsCurrent keeps the reviewed list applicable: at least 25
// mutations, unique IDs, each replacing text that occurs exactly once in
// today's sources by something different (a stale entry would make
// `make mutate` stop before it runs).
func TestMutationListIsCurrent(t *testing.T) {
	if len(mutations) < 25 {
		t.Errorf("%d mutations, want ≥ 25 (issue 11)", len(mutations))
	}
	seen := map[string]bool{}
	for _, m := range mutations {
		if seen[m.ID] {
			t.Errorf("duplicate mutation ID %q", m.ID)
		}
		seen[m.ID] = true
		if m.Old == m.New || m.Bug == "" {
			t.Errorf("%s: empty change or no description", m.ID)
		}
		if !strings.HasPrefix(m.File, "theory/") && !strings.HasPrefix(m.File, "estimators/") {
			t.Errorf("%s: mutates %s, want a file under theory/ or estimators/", m.ID, m.File)
		}
		b, err := os.ReadFile(filepath.Join("..", "..", m.File))
		if err != nil {
			t.Errorf("%s: %v", m.ID, err)
			continue
		}
		if n := strings.Count(string(b), m.Old); n != 1 {
			t.Errorf("%s: the text to replace occurs %d times in %s, want once", m.ID, n, m.File)
		}
	}
}
