package main

// The shared helpers: what more than one command family uses (the
// families are the files named after a command, TestCommandFamiliesKeepApart).
// Flags shared by commands are in flags.go, the input/output guard in
// guard.go, the exit on a crash or an interrupt in crash.go, interrupt.go
// and supervise_*.go, --slurm and --estimate of run and reproduce in
// sbatch.go and estimate.go.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/experiments/report"
)

// contains reports whether s is in list.
func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// namedSetIn finds which named data set has its files in dir.
//
// MNIST and Fashion-MNIST have the same file names, so when several named sets
// fit, the directory's own name decides (one containing "fashion" is
// Fashion-MNIST, another containing "mnist" is MNIST); otherwise the caller
// must name the set (an MNIST directory was once reported as
// fashion-mnist).
func namedSetIn(dir string) (name, resolvedDir string, err error) {
	var names, dirs []string
	for _, n := range data.Names {
		if strings.Contains(n, "fixture") {
			continue
		}
		if d, err := data.Resolve(n, dir); err == nil {
			names, dirs = append(names, n), append(dirs, d)
		}
	}
	if len(names) == 0 {
		return "", "", fmt.Errorf("holds the files of none of %s", strings.Join(data.Names, ", "))
	}
	if len(names) == 1 {
		return names[0], dirs[0], nil
	}
	base := strings.ToLower(filepath.Base(filepath.Clean(dir)))
	for i, n := range names {
		if (n == "fashion-mnist" && strings.Contains(base, "fashion")) || (n == "mnist" && strings.Contains(base, "mnist") && !strings.Contains(base, "fashion")) {
			return n, dirs[i], nil
		}
	}
	return "", "", fmt.Errorf("holds files that fit %s alike (the same file names); name the set: --data %s --data-dir %s",
		strings.Join(names, " and "), names[0], dir)
}

// peakRSS returns the process's peak resident set size in bytes (Linux
// getrusage reports kilobytes), or 0 if unavailable.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

// printTrouble prints the predicted trouble of a bag set: the
// distribution over rounds random groupings of ‖T̂⁻¹‖₁ and of the condition
// number of Γ̂, the fraction of groups where the paper's assumption fails,
// and a plain-words warning when the median ‖T̂⁻¹‖₁ is large.
func printTrouble(w io.Writer, set *estimators.BagSet, opts estimators.Options, seed int64, rounds int) error {
	s, err := estimators.PredictTrouble(set, opts, seed, rounds)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "predicted trouble over %d random groupings (%d groups, mode %s): ‖T̂⁻¹‖₁ median %s, 90th percentile %s, max %s; cond Γ̂ median %s, 90th percentile %s; assumption fails in %.0f%% of groups, T̂ singular in %.0f%%\n",
		s.Partitions, s.Groups, opts.Mode, fmtNum(s.InvNorm1Median), fmtNum(s.InvNorm1P90), fmtNum(s.InvNorm1Max),
		fmtNum(s.CondGammaMedian), fmtNum(s.CondGammaP90), 100*s.AssumptionFails, 100*s.Singular)
	if warn := s.WarningFor(set); warn != "" {
		fmt.Fprintln(w, warn)
	}
	if warn := absentClassWarning(set, nil); warn != "" {
		fmt.Fprintln(w, warn)
	}
	fmt.Fprintln(w)
	return nil
}

// absentClassWarning warns of the classes whose proportion is 0 in every
// bag (such a set once trained without a word): no bag says the class
// exists, so no LLP method can learn it — every instance of it will be
// given another class. names are the classes' names, when the data named
// them. "" when every class has a bag.
func absentClassWarning(set *estimators.BagSet, names []string) string {
	var absent []string
	for c := 0; c < set.NumClasses; c++ {
		seen := false
		for _, b := range set.Bags {
			seen = seen || (c < len(b.Proportions) && b.Proportions[c] > 0)
		}
		if !seen {
			name := fmt.Sprint(c)
			if c < len(names) {
				name = fmt.Sprintf("%d (%q)", c, names[c])
			}
			absent = append(absent, name)
		}
	}
	if len(absent) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: class %s has proportion 0 in every bag: no bag says it exists, so no method can learn it from these bags, and every instance of it will be given another class (check the proportions' columns)",
		strings.Join(absent, ", "))
}

// resultStores returns the stores of dirs, each of which must be a results
// directory (one with cells/ inside); the error names flag.
func resultStores(flag string, dirs []string) ([]*grid.Store, error) {
	var stores []*grid.Store
	for _, dir := range dirs {
		if st, err := os.Stat(filepath.Join(dir, "cells")); err != nil || !st.IsDir() {
			return nil, usagef("%s %s: not a results directory (no cells/ inside); run 'llpfc run SPEC --results %s' first", flag, dir, dir)
		}
		stores = append(stores, &grid.Store{Dir: dir})
	}
	return stores, nil
}

// storeError marks the errors that come from the stores' contents — one key
// with two outcomes, cells of one spec that cannot share a table — as bad
// input (exit status 2); other errors stay failures.
func storeError(err error) error {
	var conflict *grid.ConflictError
	var incomparable *grid.IncomparableError
	var missing *report.MissingMetricError
	if errors.As(err, &conflict) || errors.As(err, &incomparable) || errors.As(err, &missing) || errors.As(err, new(*experiments.InputError)) {
		return usageError{err}
	}
	return err
}

func fmtNum(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.4g", v)
}

// dataFlagError is err of reading --data NAME, said once: "--data NAME: "
// before it, unless its message starts with NAME's file (else it says
// "--data npz:F: F, array X: …"), which then follows "--data KIND:" alone.
func dataFlagError(name string, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, name) {
		return prefixedError{"--data ", err}
	}
	if kind, path, ok := strings.Cut(name, ":"); ok && path != "" && strings.HasPrefix(msg, path) {
		return prefixedError{"--data " + kind + ":", err}
	}
	return prefixedError{"--data " + name + ": ", err}
}

// prefixedError is an error with words before its message (errors.Is and
// errors.As see the error).
type prefixedError struct {
	prefix string
	err    error
}

func (e prefixedError) Error() string { return e.prefix + e.err.Error() }
func (e prefixedError) Unwrap() error { return e.err }
