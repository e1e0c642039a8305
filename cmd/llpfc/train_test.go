package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runTrainCmd(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = dispatch(append([]string{"train"}, args...), &o, &e)
	return code, o.String(), e.String()
}

// TestTrainJSONContract trains each built-in method briefly on the embedded
// fixture and checks the last stdout line is one JSON object with the
// contract's fields, sensible values, and that the same seed repeats the
// test accuracy (for llpfc-uniform; determinism of every method is tested
// in package training).
func TestTrainJSONContract(t *testing.T) {
	for _, method := range []string{"llpfc-uniform", "kl"} {
		args := []string{"--data", "fixture", "--method", method, "--model", "mlp", "--bag-size", "16", "--num-points", "640",
			"--protocol", "paper", "--epochs", "2", "--optimizer", "adam", "--lr", "1e-3", "--regroup-every", "1", "--seed", "3", "--json", "--quiet"}
		if method != "kl" {
			args = append(args, "--batch-size", "32")
		}
		var accs []float64
		runs := 1
		if method == "llpfc-uniform" {
			runs = 2
		}
		for run := 0; run < runs; run++ {
			code, out, errOut := runTrainCmd(args...)
			if code != exitOK {
				t.Fatalf("%s: exit %d: %s", method, code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var got map[string]any
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
				t.Fatalf("%s: last line %q: %v", method, lines[len(lines)-1], err)
			}
			for _, k := range []string{"test_accuracy", "epochs", "wall_seconds", "train_images_per_second", "peak_rss_bytes"} {
				v, ok := got[k].(float64)
				if !ok {
					t.Fatalf("%s: field %s missing or not a number in %v", method, k, got)
				}
				if k != "test_accuracy" && !(v > 0) {
					t.Errorf("%s: %s = %v, want > 0", method, k, v)
				}
			}
			if got["epochs"].(float64) != 2 {
				t.Errorf("%s: epochs %v, want 2", method, got["epochs"])
			}
			acc := got["test_accuracy"].(float64)
			if !(acc > 0.1 && acc <= 1) { // 10 classes: better than chance after 2 epochs
				t.Errorf("%s: test accuracy %v, want in (0.1, 1]", method, acc)
			}
			accs = append(accs, acc)
		}
		if len(accs) == 2 && accs[0] != accs[1] {
			t.Errorf("%s: same seed gave accuracies %v and %v", method, accs[0], accs[1])
		}
	}
}

// TestTrainOutAndResume writes result.json and a checkpoint, then resumes a
// longer run from it and checks it equals an uninterrupted run.
func TestTrainOutAndResume(t *testing.T) {
	dir := t.TempDir()
	base := []string{"--data", "fixture", "--method", "llpfc-approx", "--model", "mlp", "--bag-size", "16", "--num-points", "320",
		"--optimizer", "nesterov", "--lr", "0.01", "--weight-decay", "5e-4", "--batch-size", "32", "--regroup-every", "1", "--seed", "5", "--json", "--quiet"}
	code, _, errOut := runTrainCmd(append(base, "--epochs", "1", "--out", dir)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"result.json", "checkpoint.gob"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	code, resumed, errOut := runTrainCmd(append(base, "--epochs", "2", "--out", dir, "--resume")...)
	if code != exitOK {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	code, straight, errOut := runTrainCmd(append(base, "--epochs", "2")...)
	if code != exitOK {
		t.Fatalf("straight: exit %d: %s", code, errOut)
	}
	acc := func(out string) float64 {
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
			t.Fatal(err)
		}
		return m["test_accuracy"].(float64)
	}
	if a, b := acc(resumed), acc(straight); a != b {
		t.Errorf("resumed accuracy %v, uninterrupted %v", a, b)
	}
}

func TestTrainBadUsage(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--data", "fixture", "--method", "bogus", "--epochs", "1", "--num-points", "320", "--bag-size", "16"},
		{"--data", "fixture", "--optimizer", "rmsprop", "--epochs", "1", "--num-points", "320", "--bag-size", "16"},
		{"--data", "nope"},
		{"--data", "fixture", "--milestones", "5,x"},
		{"--data", "fixture", "--resume"},
		{"--data", "fixture", "--bag-size", "16", "--num-points", "100"},
		{"--data", t.TempDir()},
		{"--data", "fixture", "--augment", "mixup"},
	} {
		code, _, errOut := runTrainCmd(args...)
		if code == exitOK || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want a failure with a message", args, code, errOut)
		}
	}
}

// TestTrainPreset checks that --preset runs a built-in table's cell and that
// explicit flags win: the quick table's LLPFC-uniform cell at bag size 64 is
// Adam (lr 1e-3, here overridden to 0.05) with minibatches of 128 on the mlp,
// here 1 epoch on 640 points for speed.
func TestTrainPreset(t *testing.T) {
	code, out, errOut := runTrainCmd("--data", "fixture", "--preset", "quick", "--method", "llpfc-uniform", "--lr", "0.05", "--epochs", "1",
		"--bag-size", "64", "--num-points", "640", "--json", "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatal(err)
	}
	if got["optimizer"] != "adam" || got["lr"].(float64) != 0.05 || got["batch_size"].(float64) != 128 || got["model"] != "mlp" || got["epochs"].(float64) != 1 || got["num_points"].(float64) != 640 {
		t.Errorf("preset quick with --lr 0.05 --epochs 1 --num-points 640: %v", got)
	}
	if code, _, _ := runTrainCmd("--data", "fixture", "--preset", "nope"); code != exitBadUsage {
		t.Errorf("unknown preset: exit %d, want %d", code, exitBadUsage)
	}
}
