package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/training/scaling"
)

// checkScaling checks --scaling's thread counts and what goes with them:
// the CPU back end, and no --threads of its own.
func (f *benchFlags) checkScaling() error {
	if *f.scaling == "" {
		return nil
	}
	if _, err := scaling.ParseThreads(*f.scaling); err != nil {
		return fmt.Errorf("--scaling %q: %w", *f.scaling, err)
	}
	if *f.threads != 0 {
		return fmt.Errorf("--threads %d: --scaling sets the threads of each run", *f.threads)
	}
	if dev := *f.device; dev != "" && dev != "cpu" {
		return fmt.Errorf("--device %s: --scaling profiles the CPU back end", dev)
	}
	return nil
}

// scalingJSON is the --scaling --json object: the report and its Markdown.
type scalingJSON struct {
	scaling.Report
	Model     string `json:"model"`
	BatchSize int    `json:"batch_size"`
	// Schedule and ParStart say how the parallel loops ran (par: their
	// chunks' schedule, and their goroutines spawned or pooled).
	Schedule string `json:"schedule"`
	ParStart string `json:"par_start"`
	Markdown string `json:"markdown"`
}

// runScaling runs `bench --scaling`: the step profile at each thread count
// and the model's predictions.
func runScaling(f *benchFlags, stdout, stderr io.Writer) int {
	threads, _ := scaling.ParseThreads(*f.scaling) // checked
	cfg := scaling.Config{Bench: f.config(), Threads: threads, StreamBytes: int64(*f.streamMiB) << 20, CPUTime: processCPUTime}
	runs, err := scaling.Measure(context.Background(), cfg)
	if err != nil {
		return exitWith(stderr, "llpfc bench --scaling", err)
	}
	name := fmt.Sprintf("%s, batch %d, %d×%d×%d (%s; %s schedule, %s goroutines)", *f.model, *f.batch, *f.channels, *f.height, *f.width, *f.method, par.ActiveSchedule(), par.ActiveStart())
	rep := scaling.NewReport(name, runs)
	md := rep.Markdown()
	if !*f.asJSON {
		fmt.Fprint(stdout, md)
		return exitOK
	}
	b, err := json.Marshal(scalingJSON{Report: rep, Model: *f.model, BatchSize: *f.batch, Schedule: string(par.ActiveSchedule()), ParStart: string(par.ActiveStart()), Markdown: md})
	if err != nil {
		return exitWith(stderr, "llpfc bench --scaling", err)
	}
	fmt.Fprintln(stdout, strings.TrimSpace(string(b)))
	return exitOK
}
