package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/training/models"
)

// Issue 38: nothing of the user's is lost or misread. The tests of its
// numbered items that are not a property of their own (guard_test.go,
// experiments/data's TestPropertyTableHeaders).

// gmmSet is a small labelled set train and predict read in milliseconds.
const gmmSet = "gmm:classes=3,dim=2,train=200,test=20"

// saveGMMModel trains the mlp on gmmSet with seed and saves it to path.
func saveGMMModel(t *testing.T, path, seed string) {
	t.Helper()
	code, _, stderr := runCmd("train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1",
		"--batch-size", "16", "--quiet", "--seed", seed, "--save-model", path)
	require.Equal(t, exitOK, code, stderr)
}

// setManifest rewrites a field of the model's manifest (a dotted path) and
// returns the manifest's path.
func setManifest(t *testing.T, model, field string, v any) {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(readString(t, model+".json")), &m))
	setField(m, field, v)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(model+".json", b, 0o644))
}

// Item 17 of the exit-status list: the weights and the manifest are one
// model. The manifest records the SHA-256 of the weights file (checked here
// against sha256 of the bytes on disk), and weights from another save
// beside it — what a crash between the two writes, or a copy of one file,
// leaves — are refused by name, either way round.
func TestSavedModelIsTied(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	saveGMMModel(t, a, "1")
	saveGMMModel(t, b, "2")
	var man struct {
		Sum string `json:"weights_sha256"`
	}
	require.NoError(t, json.Unmarshal([]byte(readString(t, a+".json")), &man))
	sum := sha256.Sum256([]byte(readString(t, a+".npz")))
	assert.Equal(t, hex.EncodeToString(sum[:]), man.Sum, "the manifest's checksum is not the weights'")
	code, _, stderr := runCmd("predict", "--model", a, "--data", gmmSet)
	require.Equal(t, exitOK, code, stderr)

	for _, swap := range []string{".npz", ".json"} {
		c := filepath.Join(dir, "c"+swap[1:])
		for _, ext := range []string{".npz", ".json"} {
			from := a
			if ext == swap {
				from = b
			}
			writeFile(t, dir, filepath.Base(c)+ext, readString(t, from+ext))
		}
		code, _, stderr := runCmd("predict", "--model", c, "--data", gmmSet)
		assert.Equal(t, exitBadUsage, code, "%s from another save: %s", swap, stderr)
		assert.Contains(t, stderr, c+".npz", "the message names the weights")
		assert.Contains(t, stderr, c+".json", "the message names the manifest")
	}
}

// Item 5: predict never scores probabilities that are not finite. A NaN
// weight (its checksum recorded, as a model trained to NaN would have it)
// makes every probability NaN: exit 1 naming the first instance, and no
// accuracy printed. A manifest whose standard deviation is 0 is refused on
// load naming the field (exit 2); an edited manifest's wrong type is named
// in the file's words, not as a Go struct.
func TestPredictNeverScoresNonFinite(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	saveGMMModel(t, m, "1")
	orig := readString(t, m+".json")

	state, err := models.ReadNPZBytes([]byte(readString(t, m+".npz")))
	require.NoError(t, err)
	state[0].Data[0] = float32(math.NaN())
	var w bytes.Buffer
	require.NoError(t, models.WriteNPZ(&w, state))
	require.NoError(t, os.WriteFile(m+".npz", w.Bytes(), 0o644))
	sum := sha256.Sum256(w.Bytes())
	setManifest(t, m, "weights_sha256", hex.EncodeToString(sum[:]))
	code, stdout, stderr := runCmd("predict", "--model", m, "--data", gmmSet, "--out", filepath.Join(dir, "p.csv"))
	assert.Equal(t, exitFailed, code, stderr)
	assert.Contains(t, stderr, "instance 0")
	assert.Contains(t, stderr, "not finite")
	assert.NotContains(t, stdout, "accuracy")
	assert.NoFileExists(t, filepath.Join(dir, "p.csv"))

	saveGMMModel(t, m, "1")
	setManifest(t, m, "normalization.std", []any{0, 1})
	code, _, stderr = runCmd("predict", "--model", m, "--data", gmmSet)
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Contains(t, stderr, "normalization.std[0]")

	require.NoError(t, os.WriteFile(m+".json", []byte(strings.Replace(orig, `"num_classes": 3`, `"num_classes": "three"`, 1)), 0o644))
	code, _, stderr = runCmd("predict", "--model", m, "--data", gmmSet)
	assert.Equal(t, exitBadUsage, code, stderr)
	assert.Contains(t, stderr, "num_classes")
	assert.NotContains(t, stderr, "Go struct")
}
