// Command llpfc checks the claims of "Learning from Label Proportions by
// Learning with Label Noise" (Zhang, Wang, Scott, NeurIPS 2022) numerically,
// turns bags with label proportions into LLPFC groups, and runs reproducible
// LLP experiments.
//
// Usage:
//
//	llpfc <command> [flags]
//
// Run `llpfc help` for the list of commands and `llpfc <command> -h` for the
// flags of one command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments/data"
	ocl "github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/llpfc/llpfc/training/device/opencl"
	"github.com/llpfc/llpfc/training/nn"
)

// command is one subcommand. Each lives in its own file and registers itself
// in an init function.
type command struct {
	name    string
	summary string // one line for `llpfc help`
	// run executes the command with its arguments (without the command name),
	// writing results to stdout and diagnostics to stderr. It returns the
	// process exit status.
	run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("llpfc: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// Exit statuses shared by every command.
const (
	exitOK       = 0
	exitFailed   = 1 // the command ran and found a failure (e.g. a claim failed), or llpfc itself failed (a panic, out of memory: crash.go)
	exitBadUsage = 2 // invalid flags or invalid input, and nothing else
)

func main() {
	setGCPercent(os.Getenv("GOGC"))
	if status, supervised := supervise(); supervised {
		os.Exit(status)
	}
	status := dispatch(os.Args[1:], os.Stdout, os.Stderr)
	finished(status)
	os.Exit(status)
}

// defaultGCPercent is the garbage collector's target when GOGC is not set:
// a heap goal of 1.5× the live heap instead of Go's 2×. A training run's
// live heap is its networks' activations, so the goal decides its peak
// memory: a WRN-16-4 run 3.4 → 2.4 GB maximum RSS at the same speed
// (bench/NOTES.md, "The 5.2 GB of a real WRN-16-4 training run", lever B).
const defaultGCPercent = 50

// setGCPercent applies defaultGCPercent unless the user set GOGC.
func setGCPercent(env string) {
	if env == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
}

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 2 && args[0] == "help" {
		// `llpfc help CMD` is `llpfc CMD -h`: one help, said once.
		if c, ok := commands[args[1]]; ok {
			return runCommand(c, []string{"-h"}, stdout, stderr)
		}
		fmt.Fprintf(stderr, "llpfc: unknown command %q; run `llpfc help` for the list\n", args[1])
		return exitBadUsage
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitBadUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "llpfc: unknown command %q; run `llpfc help` for the list\n", args[0])
		return exitBadUsage
	}
	return runCommand(c, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "llpfc: learning from label proportions by learning with label noise (Zhang, Wang, Scott, NeurIPS 2022)")
	fmt.Fprintln(w, "\nUsage: llpfc <command> [flags]   (llpfc <command> -h for the flags of one command)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nEnvironment:")
	for _, e := range environment {
		fmt.Fprintf(w, "  %-21s %s\n", e[0], e[1])
	}
}

// environment lists the variables the commands read, for usage.
var environment = [][2]string{
	{data.EnvDataDir, "where --data-dir defaults to: the data sets' files, or a root with one folder per set"},
	{nn.Conv3x3Env, "the 3×3 stride-1 convolutions' algorithm: winograd (default: F(4×4,3×3) on maps ≥ 32×32, F(2×2,3×3) below), winograd2 (F(2×2,3×3) everywhere, the numbers before F(4×4,3×3)) or im2col (the numbers before Winograd); results record it (numerics)"},
	{sgemm.KernelEnv, "force the matrix product's micro-kernel (avx512-8x32, avx2-6x16, go-6x16, go-8x32), for benchmarks; results record it (numerics)"},
	{opencl.ProfileEnv, "time every OpenCL program step (waiting for each: slower) and print the times and launches per operation kind at the end"},
	{ocl.CUDACacheEnv, "where the CUDA kernels NVRTC compiled are kept for the next process (default ~/.cache/llpfc/cuda; off: none); one that cannot be written only costs the compile"},
}

// newFlagSet returns a flag set for a subcommand whose -h output explains every
// flag. parse reports whether the caller should go on, and if not, the exit
// status to return.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("llpfc "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: llpfc %s\n\n%s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args into fs. It returns ok=false and the exit status when
// the command should stop: 0 after -h, 2 after a bad flag or a stray argument.
func parseFlags(fs *flag.FlagSet, args []string) (ok bool, status int) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return false, exitOK
		}
		return false, exitBadUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "llpfc: unexpected argument %q\n", fs.Arg(0))
		return false, exitBadUsage
	}
	return finiteFlags(fs)
}

// finiteFlags refuses a NaN or infinite value of any number flag given on
// the command line (--val-bags nan once passed every check and crashed
// the cell's JSON encoding): no flag of llpfc means anything by
// them. It is called by every command's parse (parseFlags,
// parsePositional), so a new flag cannot escape it.
func finiteFlags(fs *flag.FlagSet) (ok bool, status int) {
	var bad *flag.Flag
	fs.Visit(func(fl *flag.Flag) {
		if g, isGetter := fl.Value.(flag.Getter); isGetter && bad == nil {
			if v, isFloat := g.Get().(float64); isFloat && (math.IsNaN(v) || math.IsInf(v, 0)) {
				bad = fl
			}
		}
	})
	if bad != nil {
		fmt.Fprintf(fs.Output(), "%s: --%s is %s, want a finite number\n", strings.Join(strings.Fields(fs.Name())[:2], " "), bad.Name, bad.Value)
		return false, exitBadUsage
	}
	return true, exitOK
}
