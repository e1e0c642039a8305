package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/docs"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite the table of methods in docs/methods.md (\"The methods\") from the registry, wherever in the documentation its markers are")

// The documentation's table of methods (docs/methods.md) lies between
// these lines.
const (
	readmeMethodsBegin = "<!-- methods: TestReadmeMethodsTable writes this table (go generate ./...) -->\n"
	readmeMethodsEnd   = "<!-- end of methods -->"
)

//go:generate go test -count=1 -run ^TestReadmeMethodsTable$ -update-readme

// TestReadmeMethodsTable: the documentation's table of methods
// (docs/methods.md) is what `llpfc methods --markdown` prints from the
// registry, row for row: a method registered, renamed or re-described shows
// in the guide or fails here (go generate ./... rewrites it: -update-readme).
func TestReadmeMethodsTable(t *testing.T) {
	var out bytes.Buffer
	writeMethodsMarkdown(&out)
	block, err := docs.Find("../..", readmeMethodsBegin, readmeMethodsEnd)
	require.NoError(t, err)
	if *updateReadme {
		require.NoError(t, block.Replace(out.String()))
		return
	}
	assert.Equal(t, out.String(), block.Body, "%s's table under \"The methods\" is stale: go generate ./cmd/llpfc", block.Path)
	assert.Equal(t, len(methods.All())+2, strings.Count(out.String(), "\n"), "a header, a rule and one row per method")
}

// TestMethodsJSONListsTheRegistry: `llpfc methods --json` lists every
// registered method once, in report order, with the facts the Python client
// and a reader need (its minibatch's unit and default, its search space).
func TestMethodsJSONListsTheRegistry(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, runMethods([]string{"--json"}, &stdout, &stderr), stderr.String())
	var got []struct {
		Name         string    `json:"name"`
		Batch        string    `json:"batch_unit"`
		DefaultBatch int       `json:"default_batch"`
		SearchLR     []float64 `json:"search_lr"`
		UsesLabels   bool      `json:"uses_labels"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	all := methods.All()
	require.Len(t, got, len(all))
	for i, d := range all {
		assert.Equal(t, d.Name, got[i].Name)
		assert.Equal(t, d.Batch.String(), got[i].Batch)
		assert.Equal(t, d.DefaultBatch, got[i].DefaultBatch)
		assert.Equal(t, d.Search.LR, got[i].SearchLR)
		assert.Equal(t, d.UsesLabels(), got[i].UsesLabels)
	}
	assert.Equal(t, exitBadUsage, runMethods([]string{"--json", "--markdown"}, &stdout, &stderr))
}

// TestDefaultBatchIsTheDescriptors: `train` without --batch-size trains
// every method with its descriptor's minibatch (a method missing from a
// hand-kept table once trained with 128 bags a step, and nothing noticed);
// --batch-size's help names each default.
func TestDefaultBatchIsTheDescriptors(t *testing.T) {
	help := batchHelp()
	for _, d := range methods.All() {
		f := &trainFlags{method: new(string), batch: new(int)}
		*f.method = d.Name
		f.defaultBatch()
		assert.Equal(t, d.DefaultBatch, *f.batch, d.Name)
		assert.Contains(t, help, d.Name, "--batch-size's help")
	}
}
