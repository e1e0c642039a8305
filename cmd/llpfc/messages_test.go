package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Issue 27, messages: `reproduce --quick --model cnn` was refused with a
// message about "the paper's tables", which the quick grid is not.
func TestReproduceQuickModelMessage(t *testing.T) {
	var o, e bytes.Buffer
	assert.Equal(t, exitBadUsage, dispatch([]string{"reproduce", "--quick", "--model", "cnn", "--dry-run"}, &o, &e))
	assert.Contains(t, e.String(), "the quick grid trains the mlp")
	assert.NotContains(t, e.String(), "paper's tables")
	e.Reset()
	assert.Equal(t, exitBadUsage, dispatch([]string{"reproduce", "--table", "vgg16", "--model", "cnn", "--dry-run"}, &o, &e))
	assert.Contains(t, e.String(), "the paper's tables (--table vgg16) fix their networks")
}
