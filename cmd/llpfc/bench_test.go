package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchJSON runs `llpfc bench` briefly for each model of issue 7 and
// checks the JSON contract: positive images per second consistent with the
// steps, batch and seconds reported, and a finite loss.
func TestBenchJSON(t *testing.T) {
	for _, model := range []string{"mlp", "cnn"} {
		var o, e bytes.Buffer
		args := []string{"bench", "--model", model, "--batch-size", "16", "--steps", "2", "--warmup", "1", "--height", "8", "--width", "8", "--json"}
		require.Equal(t, exitOK, dispatch(args, &o, &e), "%s: %s", model, e.String())
		lines := strings.Split(strings.TrimSpace(o.String()), "\n")
		var got struct {
			ImagesPerSecond float64 `json:"images_per_second"`
			Model           string  `json:"model"`
			BatchSize       int     `json:"batch_size"`
			Steps           int     `json:"steps"`
			Seconds         float64 `json:"seconds"`
			FinalLoss       float64 `json:"final_loss"`
			ParamCount      int     `json:"param_count"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), "%s: last line %q", model, lines[len(lines)-1])
		assert.True(t, got.Model == model && got.BatchSize == 16 && got.Steps == 2 && got.ParamCount > 0,
			"%s: got %+v, want model %s, batch 16, 2 steps, parameters > 0", model, got, model)
		want := 32 / got.Seconds
		assert.True(t, got.ImagesPerSecond > 0 && got.ImagesPerSecond >= want*0.999 && got.ImagesPerSecond <= want*1.001,
			"%s: images_per_second %v, want 2·16/seconds = %v", model, got.ImagesPerSecond, want)
		assert.True(t, got.FinalLoss > 0 && got.FinalLoss <= 100, "%s: final loss %v, want a positive finite FC loss", model, got.FinalLoss)
	}
}

// TestBenchBadFlags checks that bad flags give exit status 2 and a message
// naming the flag.
func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "nope"}, "--model"},
		{[]string{"--steps", "0"}, "--steps"},
		{[]string{"--batch-size", "-1"}, "--batch-size"},
		{[]string{"--classes", "1"}, "--classes"},
		{[]string{"--method", "nope"}, "--method"},
	} {
		var o, e bytes.Buffer
		assert.Equal(t, exitBadUsage, dispatch(append([]string{"bench"}, c.args...), &o, &e), "%v", c.args)
		assert.Contains(t, e.String(), c.want, "%v: stderr does not name %s", c.args, c.want)
	}
}
