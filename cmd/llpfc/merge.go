package main

import (
	"fmt"
	"io"
	"os"

	"github.com/llpfc/llpfc/experiments"
)

func init() {
	register(command{
		name:    "merge",
		summary: "combine results stores (e.g. the shards of a grid) into one",
		run:     runMerge,
	})
}

const mergeSynopsis = `Copies every finished cell of the stores SRC... into the store --out (created if
missing). A cell present in several stores must have the same outcome in each (same
configuration and metrics; wall time, memory and host may differ); otherwise nothing is
written and the error names the cell's key and both stores.`

func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("merge --out DIR SRC...", mergeSynopsis, stderr)
	out := fs.String("out", "", "destination results store (required); may already hold results")
	pos, ok, status := parsePositional(fs, args)
	if !ok {
		return status
	}
	if *out == "" || len(pos) == 0 {
		fmt.Fprintln(stderr, "llpfc merge: want --out DIR and at least one SRC store")
		fs.Usage()
		return exitBadUsage
	}
	var srcs []*experiments.Store
	for _, p := range pos {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "llpfc merge: source %s: not a results directory\n", p)
			return exitBadUsage
		}
		srcs = append(srcs, &experiments.Store{Dir: p})
	}
	// The store is created by Merge only once no cell conflicts, so a
	// refused merge leaves nothing behind (issue 17, item 6).
	dst := &experiments.Store{Dir: *out}
	n, err := experiments.Merge(dst, srcs...)
	if err != nil {
		fmt.Fprintf(stderr, "llpfc merge: %v\n", err)
		return exitFailed
	}
	all, err := dst.All()
	if err != nil {
		fmt.Fprintf(stderr, "llpfc merge: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(stdout, "merged %d new results from %d stores into %s (%d results in all)\n", n, len(srcs), *out, len(all))
	return exitOK
}
