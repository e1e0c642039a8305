package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchJSON runs `llpfc bench` briefly for each model of issue 7 and
// checks the JSON contract: positive images per second consistent with the
// steps, batch and seconds reported, and a finite loss.
func TestBenchJSON(t *testing.T) {
	for _, model := range []string{"mlp", "cnn"} {
		var o, e bytes.Buffer
		args := []string{"bench", "--model", model, "--batch-size", "16", "--steps", "2", "--warmup", "1", "--height", "8", "--width", "8", "--json"}
		if code := dispatch(args, &o, &e); code != exitOK {
			t.Fatalf("%s: exit %d: %s", model, code, e.String())
		}
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
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
			t.Fatalf("%s: last line %q: %v", model, lines[len(lines)-1], err)
		}
		if got.Model != model || got.BatchSize != 16 || got.Steps != 2 || got.ParamCount <= 0 {
			t.Errorf("%s: got %+v, want model %s, batch 16, 2 steps, parameters > 0", model, got, model)
		}
		if want := 32 / got.Seconds; !(got.ImagesPerSecond > 0) || got.ImagesPerSecond < want*0.999 || got.ImagesPerSecond > want*1.001 {
			t.Errorf("%s: images_per_second %v, want 2·16/seconds = %v", model, got.ImagesPerSecond, want)
		}
		if !(got.FinalLoss > 0) || got.FinalLoss > 100 {
			t.Errorf("%s: final loss %v, want a positive finite FC loss", model, got.FinalLoss)
		}
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
		if code := dispatch(append([]string{"bench"}, c.args...), &o, &e); code != exitBadUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, exitBadUsage)
		}
		if !strings.Contains(e.String(), c.want) {
			t.Errorf("%v: stderr %q does not name %s", c.args, e.String(), c.want)
		}
	}
}
