package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The exit-code rule of every command (main.go): 0 success, 1
// failure (the command ran and something failed: a cell, a damaged file, a
// claim; or llpfc itself, crash.go), 2 bad flags or input, and nothing else
// — never a panic or out of memory (crash_test.go). exitCodeTable is that
// rule, command by command: a success and the documented failures run once
// each (TestExitCodeTable), and the bad inputs are generated
// (TestPropertyBadInputsExit2): every generated bad input of every command
// exits 2 with a message naming the flag, field or value at fault.

// exitRow is a row of exitCodeTable: a command line (made in dir, from r
// for the generated ones) and the status it must exit with; for status 2,
// the message must contain one of want.
type exitRow struct {
	name   string
	status int
	make   func(t *testing.T, r *rand.Rand, dir string) (args, want []string)
}

// static is a row whose command line does not depend on r.
func static(args ...string) func(*testing.T, *rand.Rand, string) ([]string, []string) {
	return func(_ *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		out := make([]string, len(args))
		for i, a := range args {
			out[i] = strings.ReplaceAll(a, "{dir}", dir)
		}
		return out, nil
	}
}

// naming is a static row whose message must name each of want.
func naming(want []string, args ...string) func(*testing.T, *rand.Rand, string) ([]string, []string) {
	return func(t *testing.T, r *rand.Rand, dir string) ([]string, []string) {
		a, _ := static(args...)(t, r, dir)
		return a, want
	}
}

// tinySpec is a valid spec of one cell of the logistic learner on a small
// synthetic set: it runs in milliseconds.
const tinySpec = `{"name": "t", "learner": "logreg", "model": "linear", "datasets": ["gmm:classes=3,dim=4,train=600,test=100"],
 "methods": ["llpfc-uniform"], "bag_sizes": [8], "seeds": [0], "protocol": "paper", "num_points": 256,
 "hyper": {"epochs": 1, "optimizer": "adam", "lr": 0.05, "batch_size": 32, "schedule": {"kind": "constant"}}}`

// writeFile writes body to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// storeWithCell makes a results store in dir/name holding the tiny spec's
// cell, run for real.
func storeWithCell(t *testing.T, dir, name string) string {
	t.Helper()
	spec := writeFile(t, dir, "tiny.json", tinySpec)
	store := filepath.Join(dir, name)
	code, _, stderr := runCmd("run", spec, "--results", store)
	require.Equal(t, exitOK, code, stderr)
	return store
}

// exitCodeTable is the exit status of every command for its success, its
// documented failures and its bad inputs (generated: badInput).
var exitCodeTable = []exitRow{
	// 0: success, one per command.
	{"help", exitOK, static("help")},
	// devices: --parity and --json go with --check; a DEVICE that is no device string (no OpenCL needed
	// for either: both are refused before a device is opened)
	{"devices: --json without --check", exitBadUsage, naming([]string{"--json", "--check"}, "devices", "--json")},
	{"devices: --check of no device string", exitBadUsage, naming([]string{`"nope:1"`}, "devices", "--check", "nope:1")},
	// a device this machine lacks, as train --device (devices --check once exited 1 where train exited 2)
	{"devices: --check of a device this machine lacks", exitBadUsage, naming([]string{"opencl:9:9"}, "devices", "--check", "opencl:9:9")},
	{"devices: --check of a signed index", exitBadUsage, naming([]string{"-0"}, "devices", "--check", "opencl:-0:0")},
	{"verify", exitOK, static("verify", "--cases", "5", "--only", "Pinsker")},
	{"methods", exitOK, static("methods", "--json")},
	{"methods: --json with --markdown", exitBadUsage, naming([]string{"--json", "--markdown"}, "methods", "--json", "--markdown")},
	{"bags", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		return []string{"bags", "--data", "csv:" + writeTable(t, dir, 200), "--bag-size", "8", "--num-points", "64", "--out", dir + "/b.json"}, nil
	}},
	{"groups", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		code, _, stderr := runCmd("bags", "--data", "csv:"+writeTable(t, dir, 200), "--bag-size", "8", "--num-points", "64", "--out", dir+"/b.json")
		require.Equal(t, exitOK, code, stderr)
		return []string{"groups", "--bags", dir + "/b.json", "--mode", "uniform"}, nil
	}},
	{"train", exitOK, static("train", "--data", "gmm:classes=3,dim=2,train=200,test=20", "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--batch-size", "16", "--quiet")},
	{"bench", exitOK, static("bench", "--model", "mlp", "--height", "4", "--width", "4", "--steps", "1", "--warmup", "0", "--batch-size", "8", "--bag-size", "8")},
	{"run", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		return []string{"run", writeFile(t, dir, "s.json", tinySpec), "--results", dir + "/r"}, nil
	}},
	{"merge", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		return []string{"merge", "--out", dir + "/m", storeWithCell(t, dir, "a")}, nil
	}},
	{"report", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		return []string{"report", "--results", storeWithCell(t, dir, "a"), "--out", dir + "/rep"}, nil
	}},
	{"reproduce", exitOK, static("reproduce", "--quick", "--dry-run", "--json", "--results", "{dir}/q")},
	{"predict", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		code, _, stderr := runCmd("train", "--data", "gmm:classes=3,dim=2,train=200,test=20", "--bag-size", "8", "--num-points", "64",
			"--epochs", "1", "--batch-size", "16", "--quiet", "--save-model", dir+"/m")
		require.Equal(t, exitOK, code, stderr)
		return []string{"predict", "--model", dir + "/m", "--data", "gmm:classes=3,dim=2,train=200,test=20", "--out", dir + "/p.csv"}, nil
	}},
	{"train: a bag-only set", exitOK, static("train", "--data", "bags:"+fixturePath, "--epochs", "1", "--quiet")},
	{"groups: a bag-only set", exitOK, static("groups", "--data", "bags:"+fixturePath, "--mode", "uniform")},
	{"run: a bag-only set", exitOK, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		writeBagOnlyInputs(t, dir)
		spec := strings.Replace(tinySpec, `"gmm:classes=3,dim=4,train=600,test=100"`, `"bags:`+dir+`/bo"`, 1)
		spec = strings.Replace(strings.Replace(spec, `"bag_sizes": [8], `, "", 1), `"protocol": "paper", "num_points": 256,`, "", 1)
		return []string{"run", writeFile(t, dir, "s.json", spec), "--results", dir + "/r"}, nil
	}},
	{"reproduce --table binary", exitOK, static("reproduce", "--table", "binary", "--offline", "--dry-run", "--results", "{dir}/b")},
	// 1: documented failures.
	{"run: a cell fails (Algorithm 1's assumption)", exitFailed, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		spec := strings.Replace(tinySpec, `"llpfc-uniform"`, `"llpfc-ideal"`, 1)
		return []string{"run", writeFile(t, dir, "s.json", spec), "--results", dir + "/r"}, nil
	}},
	{"merge: a damaged cell is not merged", exitFailed, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		store := storeWithCell(t, dir, "a")
		writeFile(t, store, "cells/0123456789abcdef0123456789abcdef.json", `{"format": "llpfc-re`)
		return []string{"merge", "--out", dir + "/m", store}, nil
	}},
	{"report: no finished cell", exitFailed, func(t *testing.T, _ *rand.Rand, dir string) ([]string, []string) {
		require.NoError(t, os.MkdirAll(dir+"/empty/cells", 0o755))
		return []string{"report", "--results", dir + "/empty", "--out", dir + "/rep"}, nil
	}},
	// 2: bad flags or input, generated.
	{"bad input", exitBadUsage, badInput},
}

// TestExitCodeTable runs every row of exitCodeTable once (the bad inputs:
// one drawn) and checks its exit status, and that no command crashed.
func TestExitCodeTable(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, row := range exitCodeTable {
		t.Run(row.name, func(t *testing.T) {
			args, want := row.make(t, r, t.TempDir())
			code, _, stderr := runCmd(args...)
			assert.Equal(t, row.status, code, "llpfc %v: %s", args, stderr)
			assert.NoError(t, noCrash(args, stderr))
			if row.status == exitBadUsage {
				assert.True(t, containsAny(stderr, want), "llpfc %v: the message names none of %q: %s", args, want, stderr)
			}
		})
	}
}

// TestPropertyBadInputsExit2: every generated bad input of every command
// (badInput) exits 2, with a message naming the flag, field or value at
// fault, and never crashes.
func TestPropertyBadInputsExit2(t *testing.T) {
	type seed struct{ S int64 }
	n := forAllCases(t, "bad inputs exit 2", gridCases(200), func(r *rand.Rand) seed { return seed{r.Int63()} }, func(s seed) error {
		dir := t.TempDir()
		args, want := badInput(t, rand.New(rand.NewSource(s.S)), dir)
		code, _, stderr := runCmd(args...)
		if err := noCrash(args, stderr); err != nil {
			return err
		}
		if code != exitBadUsage {
			return fmt.Errorf("llpfc %q: exit %d, want 2: %s", args, code, stderr)
		}
		if !containsAny(stderr, want) {
			return fmt.Errorf("llpfc %q: the message names none of %q: %s", args, want, stderr)
		}
		return nil
	})
	t.Logf("%d generated bad inputs", n)
}

// badFlag is a flag of a command and values it refuses.
type badFlag struct {
	flag string
	bad  []string
}

// commandFlags are, per command, a valid base command line (with {dir}) and
// the values each flag refuses.
var commandFlags = []struct {
	base  []string
	flags []badFlag
}{
	{[]string{"bags", "--data", "csv:{dir}/t.csv", "--bag-size", "8", "--num-points", "64", "--out", "{dir}/b.json"}, []badFlag{
		{"--bag-size", []string{"0", "-3", "x"}}, {"--num-points", []string{"-1", "65", "1000000"}}, {"--num-bags", []string{"-2"}},
		{"--trouble-rounds", []string{"-1"}}, {"--protocol", []string{"nope", "dirichlet:0", "dirichlet:-1", "dirichlet:x"}},
		{"--shortfall", []string{"nope"}}, {"--split", []string{"validation"}}, {"--data", []string{"nope", "gmm:train=-5", "csv:{dir}/missing.csv"}},
		{"--seed", []string{"x"}}, {"--out", []string{"{dir}/a-file/b.json", ""}},
	}},
	{[]string{"train", "--data", "gmm:classes=3,dim=2,train=200,test=20", "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet"}, []badFlag{
		{"--epochs", []string{"0", "-1"}}, {"--batch-size", []string{"-1"}}, {"--lr", []string{"0", "-1", "NaN", "+Inf"}},
		{"--weight-decay", []string{"-1", "Inf", "NaN"}}, {"--momentum", []string{"1", "-0.1", "NaN"}}, {"--beta1", []string{"1", "-Inf"}}, {"--beta2", []string{"1.5", "NaN"}},
		{"--gamma", []string{"0", "1", "NaN"}}, {"--dropout", []string{"1", "-0.5", "NaN"}}, {"--eval-every", []string{"-1"}},
		{"--num-points", []string{"-1", "63", "1000000"}}, {"--bag-size", []string{"0"}}, {"--vat-eps", []string{"-1", "Inf"}},
		{"--vat-xi", []string{"-1", "NaN"}}, {"--vat-power-iters", []string{"-1"}}, {"--regroup-every", []string{"0"}}, {"--chunk-size", []string{"0"}},
		{"--val-bags", []string{"NaN", "Inf", "-Inf", "-1", "2.5"}}, {"--select", []string{"best-val", "best"}},
		{"--save-model", []string{"{dir}/tiny", "{dir}/a-file/m"}},
		{"--optimizer", []string{"rmsprop", "gd"}}, {"--method", []string{"nope"}}, {"--model", []string{"nope", "llpgan-g", "cnn", "vgg16"}},
		{"--protocol", []string{"nope"}}, {"--normalize", []string{"minmax"}}, {"--augment", []string{"mixup", "crop-flip"}},
		{"--kl-scale", []string{"x"}}, {"--vat-rampup", []string{"x"}}, {"--bn-stats", []string{"x"}}, {"--group-weights", []string{"x"}},
		{"--compat", []string{"x"}}, {"--milestones", []string{"x", "0", "5,3"}}, {"--preset", []string{"nope"}},
		{"--data", []string{"nope", "csv:{dir}/missing.csv", "gmm:dim=0", "csv:{dir}/mixed.csv"}}, {"--bags", []string{"{dir}/missing.json"}},
		{"--out", []string{"/proc/self"}}, {"--seed", []string{"1.5"}}, {"--nope", []string{"1"}},
	}},
	{[]string{"devices", "--check", "--parity", "none"}, []badFlag{
		{"--parity", []string{"nope", "mlp/nope", "mlp/llpfc-uniform,x"}},
	}},
	{[]string{"bench", "--steps", "1", "--warmup", "0"}, []badFlag{
		{"--model", []string{"nope", "llpgan-g"}}, {"--method", []string{"nope"}}, {"--batch-size", []string{"0"}}, {"--steps", []string{"0"}},
		{"--warmup", []string{"-1"}}, {"--channels", []string{"0"}}, {"--height", []string{"0", "100000"}}, {"--width", []string{"0"}},
		{"--classes", []string{"1"}}, {"--bag-size", []string{"0"}}, {"--threads", []string{"-1"}},
	}},
	{[]string{"train", "--data", "bags:{dir}/bo", "--epochs", "1", "--quiet"}, []badFlag{
		{"--method", []string{"supervised"}}, {"--protocol", []string{"paper", "kmeans:3"}}, {"--bag-size", []string{"8"}},
		{"--num-points", []string{"64"}}, {"--bags", []string{"{dir}/b.json"}}, {"--data", badBagOnlyTrain},
	}},
	{[]string{"groups", "--data", "bags:{dir}/bo", "--mode", "uniform"}, []badFlag{
		{"--data", badBagOnly}, {"--bags", []string{"{dir}/b.json"}},
	}},
	{[]string{"groups", "--bags", "{dir}/b.json", "--mode", "uniform"}, []badFlag{
		{"--mode", []string{"nope"}}, {"--weights", []string{"nope"}}, {"--compat", []string{"nope"}}, {"--trouble-rounds", []string{"-1"}},
		{"--bags", []string{"{dir}/missing.json", "{dir}/garbage.json", "{dir}/dup.json", "{dir}/trailing.json"}},
	}},
	{[]string{"run", "{dir}/tiny.json", "--results", "{dir}/r"}, []badFlag{
		{"--shard", []string{"0/2", "3/2", "x", "1/0"}}, {"--results", []string{"{dir}/a-file/x", "{dir}/tiny.json"}}, {"--print-spec", []string{"--list"}},
	}},
	{[]string{"run", "{dir}/tiny.json", "--results", "{dir}/r", "--sbatch"}, []badFlag{
		{"--time-limit", []string{"banana", "1:2:3:4", "-5", "12h"}}, {"--mem", []string{"lots", "4GB", "-1", "1.5G"}},
		{"--cpus-per-task", []string{"0", "-2"}}, {"--shards", []string{"0", "-1"}},
	}},
	{[]string{"run", "{dir}/tiny.json", "--results", "{dir}/r", "--check"}, []badFlag{
		{"--shards", []string{"0", "-3"}},
	}},
	{[]string{"reproduce", "--results", "{dir}/q", "--out", "{dir}/qo"}, []badFlag{
		{"--table", []string{"nope"}}, {"--shard", []string{"x", "2/1"}}, {"--model", []string{"cnn", "resnet18"}},
		{"--results", []string{"{dir}/a-file/x"}},
	}},
	{[]string{"reproduce", "--table", "binary", "--offline", "--dry-run", "--results", "{dir}/b"}, []badFlag{
		{"--trials", []string{"0", "-1"}}, {"--bag-sizes", []string{"x", "0"}}, {"--methods", []string{"nope"}},
		{"--train-size", []string{"-5"}}, {"--max-exact", []string{"-1"}},
	}},
	{[]string{"verify", "--cases", "1", "--only", "Pinsker"}, []badFlag{
		{"--cases", []string{"0", "-1", "x"}}, {"--only", []string{"no-such-claim"}}, {"--seed", []string{"x"}},
	}},
	{[]string{"report", "--results", "{dir}/store"}, []badFlag{
		{"--results", []string{"{dir}/missing", "{dir}/not-a-store", "{dir}/a-file"}}, {"--out", []string{"{dir}/a-file"}},
	}},
	{[]string{"merge", "--out", "{dir}/m", "{dir}/store"}, []badFlag{
		{"--out", []string{"{dir}/a-file", ""}}, {"--src", []string{"{dir}/missing", "{dir}/not-a-store", "{dir}/a-file"}},
	}},
}

// specMutations are bad values of a spec's fields, each with the name its
// message must give.
var specMutations = []struct {
	field string
	value any
	want  string
}{
	{"name", "", "name"}, {"datasets", []any{}, "datasets"}, {"datasets", []any{""}, "datasets[0]"},
	{"datasets", []any{"nope"}, "dataset"}, {"datasets", []any{"gmm:train=-5"}, "train"}, {"datasets", []any{"csv:/no/such.csv"}, "no/such.csv"},
	{"methods", []any{}, "methods"}, {"methods", []any{"nope"}, "method"}, {"methods", []any{"kl", "kl"}, "methods[1]"},
	{"bag_sizes", []any{}, "bag_sizes"}, {"bag_sizes", []any{0}, "bag_size"}, {"bag_sizes", []any{-3}, "bag_size"},
	{"seeds", []any{}, "seeds"}, {"seeds", []any{1, 1}, "seeds[1]"}, {"protocol", "nope", "protocol"}, {"protocol", "dirichlet:0", "protocol"},
	{"num_points", 0, "num_points"}, {"num_points", 100, "num_points"}, {"num_points", 1 << 20, "num_points"},
	{"learner", "torch", "learner"}, {"learner", "", "learner"}, {"model", "", "model"}, {"model", "mlp", "model"},
	{"test_points", -1, "test_points"}, {"normalize", "minmax", "normalize"}, {"shortfall", "nope", "shortfall"},
	{"foo", 1, "foo"}, {"hyper.epochs", 0, "hyper.epochs"}, {"hyper.lr", 0, "hyper.lr"}, {"hyper.optimizer", "rmsprop", "hyper.optimizer"},
	{"hyper.batch_size", -1, "hyper.batch_size"}, {"hyper.momentum", 1, "hyper.momentum"}, {"hyper.schedule.kind", "x", "hyper.schedule.kind"},
	{"hyper.schedule.kind", "multistep", "hyper.schedule.milestones"}, {"hyper.dropout", 1, "hyper.dropout"}, {"hyper.augment", true, "hyper.augment"},
	{"overrides", []any{map[string]any{"set": map[string]any{"nope": 1}}}, "overrides[0].set"},
	{"overrides", []any{map[string]any{"set": map[string]any{"method": "kl"}}}, "overrides"},
	{"protocol", "given", "protocol"}, {"protocol", "kmeans:0", "protocol"}, {"protocol", "feature:", "protocol"},
	{"datasets", []any{"bags:/no/such.npz"}, "bag-only"},
	{"hyper.lr", json.RawMessage("1e999"), "hyper.lr"}, {"hyper.val_bags", json.RawMessage("-1e999"), "hyper.val_bags"},
	{"hyper.momentum", "NaN", "hyper.momentum"}, {"hyper.val_bags", 2.5, "hyper.val_bags"},
}

// badInput draws a bad command line: a flag of a command set to a value it
// refuses, a spec with one bad field, an unknown command or flag, or a
// stray argument. The files it needs are made in dir.
func badInput(t *testing.T, r *rand.Rand, dir string) (args, want []string) {
	writeFile(t, dir, "tiny.json", tinySpec)
	writeTable(t, dir, 200)
	writeFile(t, dir, "b.json", `{"num_classes": 2, "bags": [{"id": 1, "size": 1, "proportions": [1, 0]}, {"id": 2, "size": 1, "proportions": [0, 1]}]}`)
	writeFile(t, dir, "a-file", "x")
	writeFile(t, dir, "garbage.json", "{not json")
	writeFile(t, dir, "dup.json", `{"num_classes": 2, "bags": [{"id": 1, "size": 1, "proportions": [1, 0]}, {"id": 1, "size": 1, "proportions": [0, 1]}]}`)
	writeFile(t, dir, "trailing.json", `{"num_classes": 2, "bags": [{"id": 1, "size": 1, "proportions": [1, 0]}]} {}`)
	writeBagOnlyInputs(t, dir)
	writeFile(t, dir, "mixed.csv", "label,a\n0,1\n1,2\n0,three\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "not-a-store"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "store", "cells"), 0o755))
	expand := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = strings.ReplaceAll(x, "{dir}", dir)
		}
		return out
	}
	switch k := r.Intn(10); {
	case k < 6: // a flag with a bad value
		cmd := commandFlags[r.Intn(len(commandFlags))]
		f := cmd.flags[r.Intn(len(cmd.flags))]
		v := strings.ReplaceAll(f.bad[r.Intn(len(f.bad))], "{dir}", dir)
		args = expand(cmd.base)
		switch {
		case f.flag == "--src": // merge's positional sources
			args = append(args[:len(args)-1], v)
		case f.flag == "--print-spec":
			args = append(args, "--print-spec", v)
		default:
			args = append(args, f.flag, v)
		}
		return args, []string{f.flag, strings.TrimPrefix(f.flag, "-"), v, filepath.Base(v)}
	case k < 9: // a spec with one bad field
		m := specMutations[r.Intn(len(specMutations))]
		var spec map[string]any
		require.NoError(t, json.Unmarshal([]byte(tinySpec), &spec))
		setField(spec, m.field, m.value)
		b, _ := json.Marshal(spec)
		p := writeFile(t, dir, "bad.json", string(b))
		args = []string{"run", p, "--results", dir + "/r"}
		if r.Intn(2) == 0 {
			args = append(args, "--list")
		}
		return args, []string{m.want}
	}
	names := []string{"bags", "train", "bench", "groups", "run", "reproduce", "verify", "report", "merge", "devices"}
	switch r.Intn(3) {
	case 0:
		return []string{"nope"}, []string{`unknown command "nope"`}
	case 1:
		return []string{names[r.Intn(len(names))], "--no-such-flag"}, []string{"-no-such-flag"}
	}
	cmd := []string{"bags", "train", "bench", "groups", "reproduce", "verify", "report", "devices"}[r.Intn(8)]
	return []string{cmd, "stray"}, []string{`unexpected argument "stray"`}
}

// setField sets the dotted field of spec ("hyper.schedule.kind") to v.
func setField(spec map[string]any, field string, v any) {
	parts := strings.Split(field, ".")
	m := spec
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	m[parts[len(parts)-1]] = v
}

// TestExitCodeTableCoversEveryCommand: every registered command has a row
// of exitCodeTable or bad inputs in commandFlags, so a new command cannot
// escape the rule unnoticed (devices, whose success depends on the
// machine's OpenCL, gets only the generated unknown flag and stray
// argument of badInput).
func TestExitCodeTableCoversEveryCommand(t *testing.T) {
	covered := map[string]bool{"devices": true}
	for _, row := range exitCodeTable {
		covered[strings.Fields(row.name)[0]] = true
	}
	for _, c := range commandFlags {
		covered[c.base[0]] = true
	}
	for name := range commands {
		assert.True(t, covered[name], "command %s has no row in exitCodeTable", name)
	}
}

// TestEveryBadInputExit2 tries every bad value of commandFlags and every
// mutation of specMutations once (the property draws them at random), each
// with the exit status 2 and its name in the message.
func TestEveryBadInputExit2(t *testing.T) {
	dir := t.TempDir()
	badInput(t, rand.New(rand.NewSource(1)), dir) // the files
	for _, cmd := range commandFlags {
		for _, f := range cmd.flags {
			for _, v := range f.bad {
				v = strings.ReplaceAll(v, "{dir}", dir)
				var args []string
				for _, a := range cmd.base {
					args = append(args, strings.ReplaceAll(a, "{dir}", dir))
				}
				switch f.flag {
				case "--src":
					args = append(args[:len(args)-1], v)
				case "--print-spec":
					args = append(args, "--print-spec", v)
				default:
					args = append(args, f.flag, v)
				}
				code, _, stderr := runCmd(args...)
				assert.Equal(t, exitBadUsage, code, "llpfc %q: %s", args, stderr)
				assert.True(t, containsAny(stderr, []string{f.flag, strings.TrimPrefix(f.flag, "-"), v, filepath.Base(v)}),
					"llpfc %q: the message names neither the flag nor the value: %s", args, stderr)
			}
		}
	}
	for _, m := range specMutations {
		var spec map[string]any
		require.NoError(t, json.Unmarshal([]byte(tinySpec), &spec))
		setField(spec, m.field, m.value)
		b, _ := json.Marshal(spec)
		p := writeFile(t, dir, "bad.json", string(b))
		for _, args := range [][]string{{"run", p, "--list", "--results", dir + "/r"}, {"run", p, "--results", dir + "/r"}} {
			code, _, stderr := runCmd(args...)
			assert.Equal(t, exitBadUsage, code, "spec %s=%v: llpfc %q: %s", m.field, m.value, args, stderr)
			assert.Contains(t, stderr, m.want, "spec %s=%v", m.field, m.value)
		}
	}
}
