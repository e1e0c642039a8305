package grid_test

import (
	"fmt"
	"strings"

	"github.com/llpfc/llpfc/experiments/grid"
)

// A spec expands into cells (datasets × seeds × bag sizes × methods); an
// override patches the cells it matches (here: KL's minibatch counts 2 bags,
// App. `subsec:KL`).
func ExampleSpec_Cells() {
	spec, err := grid.ParseSpec("example", strings.NewReader(`{
	  "name": "example", "learner": "logreg", "model": "linear",
	  "datasets": ["gmm:classes=3,dim=4"], "methods": ["llpfc-uniform", "kl"],
	  "bag_sizes": [16, 64], "seeds": [1, 2], "protocol": "paper", "num_points": 1024,
	  "hyper": {"epochs": 5, "optimizer": "adam", "lr": 0.01, "batch_size": 128, "schedule": {"kind": "constant"}},
	  "overrides": [{"when": {"methods": ["kl"]}, "set": {"hyper": {"batch_size": 2}}}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	cells, _ := spec.Cells()
	fmt.Println(len(cells), "cells")
	for _, c := range cells[:4] {
		fmt.Printf("seed %d, bag size %d, %s, batch %d\n", c.Config.Seed, c.Config.BagSize, c.Config.Method, c.Config.Hyper.BatchSize)
	}
	// Output:
	// 8 cells
	// seed 1, bag size 16, llpfc-uniform, batch 128
	// seed 1, bag size 16, kl, batch 2
	// seed 1, bag size 64, llpfc-uniform, batch 128
	// seed 1, bag size 64, kl, batch 2
}

// Shards deal the cells round-robin by key: they partition the grid and
// differ in size by at most one.
func ExampleShard_Select() {
	spec, _ := grid.BuiltinSpec("llpgan") // 2 data sets × 3 methods × 7 bag sizes × 5 seeds
	cells, _ := spec.Cells()
	total := 0
	for i := 1; i <= 4; i++ {
		sh, _ := grid.ParseShard(fmt.Sprintf("%d/4", i))
		n := len(sh.Select(cells))
		total += n
		fmt.Printf("shard %s: %d cells\n", sh, n)
	}
	fmt.Println("total", total, "of", len(cells))
	// Output:
	// shard 1/4: 53 cells
	// shard 2/4: 53 cells
	// shard 3/4: 52 cells
	// shard 4/4: 52 cells
	// total 210 of 210
}

// Inside a Slurm job array, --shard auto reads the shard from the task's
// variables: task 7 of sbatch --array=1-31:2 is shard 4 of 16, and with
// auto/N the task ID is the shard number, so --array=3 reruns shard 3.
func ExampleParseShardAuto() {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1",
		"SLURM_ARRAY_TASK_MAX": "31", "SLURM_ARRAY_TASK_COUNT": "16", "SLURM_ARRAY_TASK_STEP": "2"}
	sh, _ := grid.ParseShardAuto("auto", func(k string) string { return env[k] })
	fmt.Println(sh)
	rerun := map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": "1"}
	sh, _ = grid.ParseShardAuto("auto/16", func(k string) string { return rerun[k] })
	fmt.Println(sh)
	_, err := grid.ParseShardAuto("auto", func(string) string { return "" })
	fmt.Println(err)
	// Output:
	// 4/16
	// 3/16
	// shard "auto": $SLURM_ARRAY_TASK_ID is not set (not inside a Slurm job array? submit with sbatch --array, or give --shard i/n)
}
