package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMutationListIsCurrent keeps the reviewed list applicable: at least 25
// mutations, unique IDs, each replacing text that occurs exactly once in
// today's sources by something different (a stale entry would make
// `make mutate` stop before it runs).
func TestMutationListIsCurrent(t *testing.T) {
	assert.GreaterOrEqual(t, len(mutations), 25, "issue 11: at least 25 mutations")
	seen := map[string]bool{}
	for _, m := range mutations {
		assert.False(t, seen[m.ID], "duplicate mutation ID %q", m.ID)
		seen[m.ID] = true
		assert.True(t, m.Old != m.New && m.Bug != "", "%s: empty change or no description", m.ID)
		assert.True(t, strings.HasPrefix(m.File, "theory/") || strings.HasPrefix(m.File, "estimators/"),
			"%s: mutates %s, want a file under theory/ or estimators/", m.ID, m.File)
		b, err := os.ReadFile(filepath.Join("..", "..", m.File))
		if !assert.NoError(t, err, m.ID) {
			continue
		}
		assert.Equal(t, 1, strings.Count(string(b), m.Old), "%s: the text to replace must occur exactly once in %s", m.ID, m.File)
	}
}
