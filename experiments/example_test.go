package experiments_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments"
)

// A spec expands into cells (datasets × seeds × bag sizes × methods); an
// override patches the cells it matches (here: KL's minibatch counts 2 bags,
// App. `subsec:KL`).
func ExampleSpec_Cells() {
	spec, err := experiments.ParseSpec("example", strings.NewReader(`{
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

// The canonical encoding hashed into a cell's key: fields in declaration
// order, zero-valued optional fields left out, numbers in shortest form.
func ExampleConfig_CanonicalJSON() {
	c := experiments.Config{Learner: "logreg", Normalize: "standardize", Dataset: "gmm:", Model: "linear", Method: "kl",
		Protocol: "paper", BagSize: 8, NumPoints: 64, Seed: 1,
		Hyper: experiments.Hyper{Epochs: 2, Optimizer: "sgd", LR: 1e-1, BatchSize: 2,
			Schedule: experiments.Schedule{Kind: "constant"}}}
	fmt.Printf("%s\n", c.CanonicalJSON())
	fmt.Println(len(c.Key()), "hex digits")
	// Output:
	// llpfc-cell/v2
	// {"learner":"logreg","dataset":"gmm:","model":"linear","method":"kl","protocol":"paper","bag_size":8,"num_points":64,"normalize":"standardize","seed":1,"hyper":{"epochs":2,"optimizer":"sgd","lr":0.1,"batch_size":2,"schedule":{"kind":"constant"}}}
	// 32 hex digits
}

// Shards deal the cells round-robin by key: they partition the grid and
// differ in size by at most one.
func ExampleShard_Select() {
	spec, _ := experiments.BuiltinSpec("llpgan") // 2 data sets × 3 methods × 7 bag sizes × 5 seeds
	cells, _ := spec.Cells()
	total := 0
	for i := 1; i <= 4; i++ {
		sh, _ := experiments.ParseShard(fmt.Sprintf("%d/4", i))
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
	sh, _ := experiments.ParseShardAuto("auto", func(k string) string { return env[k] })
	fmt.Println(sh)
	rerun := map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_COUNT": "1"}
	sh, _ = experiments.ParseShardAuto("auto/16", func(k string) string { return rerun[k] })
	fmt.Println(sh)
	_, err := experiments.ParseShardAuto("auto", func(string) string { return "" })
	fmt.Println(err)
	// Output:
	// 4/16
	// 3/16
	// shard "auto": $SLURM_ARRAY_TASK_ID is not set (not inside a Slurm job array? submit with sbatch --array, or give --shard i/n)
}

// A bag-only data set — instances, a bag id per instance and a row of label
// proportions per bag, no instance label — trains like any cell: its bags
// are the protocol "given" (here the committed fixture, made from
// Fashion-MNIST by dropping the labels; README, "Your own data").
func ExampleRunCell_bagOnly() {
	cell := experiments.Cell{Config: experiments.Config{Learner: "gorgonia", Dataset: "bags:../fixtures/bagonly/fashion-mnist-bags.npz",
		Model: "mlp", Method: "llpfc-uniform", Protocol: experiments.GivenProtocol, Normalize: "standardize", Seed: 1,
		Hyper: experiments.Hyper{Epochs: 3, Optimizer: "adam", LR: 1e-3, BatchSize: 128, RegroupEvery: 1,
			Schedule: experiments.Schedule{Kind: "constant"}}}}
	prob, err := experiments.LoadProblem(cell)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bags over %d images without labels (%v); %d labelled test images\n",
		len(prob.Bags.Bags), prob.Train.N, prob.Train.Y == nil, prob.Test.N)
	run, err := experiments.RunCell(context.Background(), cell, prob, experiments.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("test accuracy above chance (0.1):", run.Metrics.TestAccuracy > 0.3)
	// Output:
	// 32 bags over 1024 images without labels (true); 500 labelled test images
	// test accuracy above chance (0.1): true
}

// Train a cell keeping its network, save it as weights PyTorch loads and a
// manifest, read it back and score a data set with it (issue 29).
func ExampleLoadModel() {
	cfg := experiments.Config{Learner: "gorgonia", Dataset: "gmm:classes=3,dim=4,train=400,test=90,sep=4", Model: "mlp",
		Method: "llpfc-uniform", Protocol: "paper", BagSize: 8, NumPoints: 160, Seed: 1,
		Hyper: experiments.Hyper{Epochs: 2, Optimizer: "adam", LR: 1e-3, BatchSize: 32, Schedule: experiments.Schedule{Kind: "constant"}}}
	cell := experiments.Cell{Key: cfg.Key(), Config: cfg}
	prob, err := experiments.LoadProblem(cell)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := experiments.RunCell(context.Background(), cell, prob, experiments.RunOptions{KeepModel: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "llpfc-model")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model")
	if err := experiments.SaveModel(path, run.Model, run.Manifest); err != nil {
		fmt.Println(err)
		return
	}
	m, err := experiments.LoadModel(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, test, _ := experiments.LoadRaw(cfg.Dataset, "")
	p, err := m.Predict(context.Background(), test, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Manifest.Architecture, m.Manifest.NumClasses, "classes,", p.N, "instances scored")
	fmt.Println("same accuracy as training reported:", p.Scores.Accuracy == run.Metrics.TestAccuracy)
	// Output:
	// mlp 3 classes, 90 instances scored
	// same accuracy as training reported: true
}
