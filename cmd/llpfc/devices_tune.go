package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	oclbe "github.com/llpfc/llpfc/training/device/opencl"
)

// `llpfc devices --tune-gemm SHAPES [DEVICE]`: the tuning pass of the
// matrix products' CLBlast parameters on a device (opencl.TuneGEMM), for
// the shapes of a profiled step (llpfc bench --profile's "gemms"), its
// result written beside the binary (or to --tune-out) where the OpenCL
// back end applies it at start (LLPFC_OPENCL_GEMM).

// tuneFlags are the flags of devices --tune-gemm.
type tuneFlags struct {
	shapes   *string
	seconds  *float64
	out      *string
	keepBest *bool
	kernels  *string
	seed     *uint64
}

func defineTuneFlags(fs *flag.FlagSet) *tuneFlags {
	return &tuneFlags{
		shapes:   fs.String("tune-gemm", "", "tune the matrix products' CLBlast parameters on DEVICE for the products listed in this JSON file (an array of\n{\"ta\", \"tb\", \"m\", \"n\", \"k\", \"calls\"} objects, as the \"gemms\" of llpfc bench --profile --json) and write the result\nbeside the binary, where --device opencl applies it (LLPFC_OPENCL_GEMM); exit status 1 if the tuning fails"),
		seconds:  fs.Float64("tune-seconds", 90, "with --tune-gemm, the search's time limit in seconds (the final check of the chosen parameters runs after it)"),
		out:      fs.String("tune-out", "", "with --tune-gemm, the file (or folder) to write instead of the device's file beside the binary"),
		keepBest: fs.Bool("tune-keep-best", false, "with --tune-gemm, keep the best candidate even when it is not faster than CLBlast's defaults (to run with overrides, as CI does)"),
		kernels:  fs.String("tune-kernels", "Xgemm,XgemmDirect", "with --tune-gemm, CLBlast's kernels to search, in order: Xgemm (the large products'), XgemmDirect (the small ones')"),
		seed:     fs.Uint64("tune-seed", 1, "with --tune-gemm, the seed of the candidates' random order"),
	}
}

// others returns the tuning flags other than --tune-gemm that were given.
func (f *tuneFlags) others(given map[string]bool) []string {
	var out []string
	for _, n := range []string{"tune-seconds", "tune-out", "tune-keep-best", "tune-kernels", "tune-seed"} {
		if given[n] {
			out = append(out, "--"+n)
		}
	}
	return out
}

// readShapes reads a shapes file: an array of device.GEMMProfile objects
// (unknown keys refused), each with positive sizes and calls.
func readShapes(path string) ([]opencl.GEMMCall, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usagef("--tune-gemm: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rows []device.GEMMProfile
	if err := dec.Decode(&rows); err != nil {
		return nil, usagef("--tune-gemm %s: %v (want a JSON array of {\"ta\", \"tb\", \"m\", \"n\", \"k\", \"calls\"} objects)", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, usagef("--tune-gemm %s: more than one JSON value", path)
	}
	if len(rows) == 0 {
		return nil, usagef("--tune-gemm %s: no products listed", path)
	}
	out := make([]opencl.GEMMCall, len(rows))
	for i, r := range rows {
		if r.M < 1 || r.N < 1 || r.K < 1 || r.Calls < 1 || r.TA < 0 || r.TA > 1 || r.TB < 0 || r.TB > 1 {
			return nil, usagef("--tune-gemm %s: product %d is %+v: m, n, k and calls must be ≥ 1, ta and tb 0 or 1", path, i+1, r)
		}
		out[i] = opencl.GEMMCall{TransA: r.TA == 1, TransB: r.TB == 1, M: r.M, N: r.N, K: r.K, Calls: r.Calls}
	}
	return out, nil
}

// runTune tunes dev and prints what it chose.
func runTune(dev string, f *tuneFlags, asJSON bool, stdout, stderr io.Writer) int {
	const cmd = "llpfc devices --tune-gemm"
	if _, err := opencl.ParseDevice(dev); err != nil {
		return exitWith(stderr, cmd, usageError{err})
	}
	if err := checkFlags(flagCheck{"tune-seconds", *f.seconds > 0, "> 0", *f.seconds}); err != nil {
		return exitWith(stderr, cmd, usageError{err})
	}
	var kernels []string
	for _, k := range strings.Split(*f.kernels, ",") {
		k = strings.TrimSpace(k)
		if k != opencl.KernelXgemm && k != opencl.KernelXgemmDirect {
			return exitWith(stderr, cmd, usagef("--tune-kernels %q: %q is not a kernel tuned here (want %s and/or %s)", *f.kernels, k, opencl.KernelXgemm, opencl.KernelXgemmDirect))
		}
		kernels = append(kernels, k)
	}
	shapes, err := readShapes(*f.shapes)
	if err != nil {
		return exitWith(stderr, cmd, err)
	}
	opt := opencl.TuneOptions{Budget: time.Duration(*f.seconds * float64(time.Second)), Seed: *f.seed, Log: stderr, Kernels: kernels, KeepBest: *f.keepBest}
	if *f.keepBest {
		opt.MinCandidates = 1
	}
	if err := opencl.Unavailable(dev); err != nil { // a device this machine lacks is bad input, as for --check
		return exitWith(stderr, cmd, usageError{fmt.Errorf("device %s: %w", dev, err)})
	}
	path, t, err := oclbe.TuneGEMM(dev, shapes, opt, *f.out)
	if err != nil {
		return exitWith(stderr, cmd, err)
	}
	if asJSON {
		b, err := json.Marshal(struct {
			Path string `json:"path"`
			*oclbe.GEMMTuning
		}{path, t})
		if err != nil {
			return exitWith(stderr, cmd, err)
		}
		fmt.Fprintln(stdout, string(b))
		return exitOK
	}
	r := t.Result
	fmt.Fprintf(stdout, "tuned %s (%s, driver %s): %d products, %.3f ms a step with CLBlast's defaults, %.3f ms with the choice (%.2f×); %d candidates (%d failed, %d wrong) in %.0f s\n",
		dev, t.Device, t.Driver, len(r.Shapes), 1e3*r.Default, 1e3*r.Tuned, r.Default/r.Tuned, r.Tried, r.Failed, r.Wrong, r.Seconds)
	if len(r.Skipped) > 0 {
		fmt.Fprintf(stdout, "  %d products left out (their operands would not fit a quarter of the device's memory)\n", len(r.Skipped))
	}
	fmt.Fprintf(stdout, "  parameters: %v\n  wrote %s\n", r.Params, path)
	return exitOK
}
