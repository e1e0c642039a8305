package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/opcheck"
)

// `llpfc devices --check [DEVICE]` (issue 37): the kernel library against
// its Go references (the CPU back end's operations, training/device/opcheck)
// on a device, and short trainings on it against the CPU back end (the
// parity cases, training.CheckParity) — the checks TestEveryOpKindMatchesTheCPU
// and TestOpenCLParity run on PoCL, by the same code.

// deviceCheckFlags are the flags of devices --check.
type deviceCheckFlags struct {
	check  *bool
	parity *string
	asJSON *bool
}

func defineCheckFlags(fs *flag.FlagSet) *deviceCheckFlags {
	return &deviceCheckFlags{
		check:  fs.Bool("check", false, "check DEVICE (the argument after the flags; default opencl, platform 0 device 0): every operation of the kernel library against the CPU back end's,\nthen the first training steps of each model × method against the CPU back end; exit status 1 if any check fails"),
		parity: fs.String("parity", "all", "with --check, the model × method trainings to compare: all (every case of the op list), none, full (with VGG16's\nother methods), or a comma-separated list of MODEL/METHOD (e.g. mlp/llpfc-uniform,cnn-bn/kl)"),
		asJSON: fs.Bool("json", false, "with --check, print one JSON object (the device, every op case and kind, every model case, ok) instead of text"),
	}
}

// parityCases returns the cases --parity selects.
func (f *deviceCheckFlags) parityCases() ([]training.ParityCase, error) {
	switch *f.parity {
	case "all", "":
		return training.ParityCases(false), nil
	case "full":
		return training.ParityCases(true), nil
	case "none":
		return nil, nil
	}
	all := training.ParityCases(true)
	var out []training.ParityCase
	for _, want := range strings.Split(*f.parity, ",") {
		want = strings.ReplaceAll(strings.TrimSpace(want), "×", "/")
		found := false
		for _, c := range all {
			if c.Model+"/"+c.Method == want {
				out, found = append(out, c), true
			}
		}
		if !found {
			var names []string
			for _, c := range all {
				names = append(names, c.Model+"/"+c.Method)
			}
			return nil, usagef("--parity %q: no case %q (want all, none, full or MODEL/METHOD of: %s)", *f.parity, want, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// deviceReport is what devices --check found (its --json output).
type deviceReport struct {
	Device string          `json:"device"`
	Ops    []opCaseOut     `json:"ops"`
	Kinds  map[string]bool `json:"op_kinds"`
	Models []modelOut      `json:"models"`
	OK     bool            `json:"ok"`
}

type opCaseOut struct {
	Case    string   `json:"case"`
	OK      bool     `json:"ok"`
	Worst   float64  `json:"worst"`
	Kinds   []string `json:"kinds"`
	Error   string   `json:"error,omitempty"`
	Seconds float64  `json:"seconds"`
}

type modelOut struct {
	Model, Method string
	OK            bool    `json:"ok"`
	Worst         float64 `json:"worst_entry"`
	WorstTensor   float64 `json:"worst_tensor"`
	Detail        string  `json:"detail"`
	Seconds       float64 `json:"seconds"`
}

// runDeviceCheck runs the checks on dev and prints them; the exit status
// is 1 if any failed.
func runDeviceCheck(dev string, f *deviceCheckFlags, stdout, stderr io.Writer) int {
	if _, err := opencl.ParseDevice(dev); err != nil {
		return exitWith(stderr, "llpfc devices --check", usagef("device %q: %v", dev, err))
	}
	cases, err := f.parityCases()
	if err != nil {
		return exitWith(stderr, "llpfc devices --check", err)
	}
	be, err := device.Open(dev)
	if err != nil {
		return exitWith(stderr, "llpfc devices --check", err)
	}
	rep := &deviceReport{Device: be.Name(), OK: true}
	text := !*f.asJSON
	if text {
		fmt.Fprintf(stdout, "llpfc devices --check %s\nops: %d cases on the device against the CPU back end (each entry within %g of the larger of its magnitude and its tensor's RMS)\n",
			rep.Device, len(opcheck.Cases()), opcheck.Tol)
	}
	checkOps(be, rep, text, stdout)
	be.Close()
	if text && len(cases) > 0 {
		fmt.Fprintf(stdout, "models: the first training step (loss, gradients, running statistics) and the parameters after 2 SGD steps against the CPU back end (each tensor within %g, each entry within %g)\n",
			training.ParityTol, training.EntryTol)
	}
	checkModels(dev, cases, rep, text, stdout)
	return printCheckVerdict(rep, f, stdout)
}

// checkOps runs every op case and the per-kind verdict.
func checkOps(be device.Backend, rep *deviceReport, text bool, w io.Writer) {
	var results []opcheck.Result
	for _, c := range opcheck.Cases() {
		t0 := time.Now()
		r := opcheck.Run(be, c)
		results = append(results, r)
		o := opCaseOut{Case: r.Case, OK: r.OK(), Worst: r.Worst, Kinds: r.Kinds, Seconds: time.Since(t0).Seconds()}
		if r.Err != nil {
			o.Error = r.Err.Error()
		}
		rep.Ops = append(rep.Ops, o)
		rep.OK = rep.OK && o.OK
		if text {
			fmt.Fprintf(w, "  %-4s %v (%.1f s)\n", okWord(o.OK), r, o.Seconds)
		}
	}
	kinds, ok := opcheck.Kinds(results)
	rep.Kinds = map[string]bool{}
	var bad []string
	for _, k := range kinds {
		rep.Kinds[k] = ok[k]
		if !ok[k] {
			bad = append(bad, k)
		}
	}
	if text {
		fmt.Fprintf(w, "op kinds: %d of %d ok\n", len(kinds)-len(bad), len(kinds))
		for _, k := range kinds {
			fmt.Fprintf(w, "  %-4s %s\n", okWord(ok[k]), k)
		}
	}
}

// checkModels runs the parity cases.
func checkModels(dev string, cases []training.ParityCase, rep *deviceReport, text bool, w io.Writer) {
	for _, c := range cases {
		t0 := time.Now()
		p, err := training.CheckParity(dev, c)
		o := modelOut{Model: c.Model, Method: c.Method, OK: err == nil && p.OK(), Worst: p.Worst, WorstTensor: p.Norm, Detail: p.String(), Seconds: time.Since(t0).Seconds()}
		if err != nil {
			o.Detail = err.Error()
		}
		rep.Models = append(rep.Models, o)
		rep.OK = rep.OK && o.OK
		if text {
			fmt.Fprintf(w, "  %-4s %s × %s: %s (%.1f s)\n", okWord(o.OK), c.Model, c.Method, o.Detail, o.Seconds)
		}
	}
}

// printCheckVerdict prints the JSON report or the verdict line and returns
// the exit status.
func printCheckVerdict(rep *deviceReport, f *deviceCheckFlags, w io.Writer) int {
	if *f.asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return exitFailed
		}
		fmt.Fprintln(w, string(b))
	} else {
		failed := 0
		for _, o := range rep.Ops {
			if !o.OK {
				failed++
			}
		}
		for _, m := range rep.Models {
			if !m.OK {
				failed++
			}
		}
		fmt.Fprintf(w, "verdict: %s (%d op cases, %d op kinds, %d model × method cases; %d failed) on %s\n",
			okWord(rep.OK), len(rep.Ops), len(rep.Kinds), len(rep.Models), failed, rep.Device)
	}
	if !rep.OK {
		return exitFailed
	}
	return exitOK
}

func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}
