package learn_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/learn"
)

// A bag-only data set — instances, a bag id per instance and a row of label
// proportions per bag, no instance label — trains like any cell: its bags
// are the protocol "given" (here the committed fixture, made from
// Fashion-MNIST by dropping the labels; docs/own-data.md).
func ExampleRunCell_bagOnly() {
	cell := experiments.Cell{Config: experiments.Config{Learner: "gorgonia", Dataset: "bags:../../fixtures/bagonly/fashion-mnist-bags.npz",
		Model: "mlp", Method: "llpfc-uniform", Protocol: experiments.GivenProtocol, Normalize: "standardize", Seed: 1,
		Hyper: experiments.Hyper{Epochs: 3, Optimizer: "adam", LR: 1e-3, BatchSize: 128, RegroupEvery: 1,
			Schedule: experiments.Schedule{Kind: "constant"}}}}
	prob, err := learn.LoadProblem(cell)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bags over %d images without labels (%v); %d labelled test images\n",
		len(prob.Bags.Bags), prob.Train.N, prob.Train.Y == nil, prob.Test.N)
	run, err := learn.RunCell(context.Background(), cell, prob, learn.RunOptions{})
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
// manifest, read it back and score a data set with it.
func ExampleLoadModel() {
	cfg := experiments.Config{Learner: "gorgonia", Dataset: "gmm:classes=3,dim=4,train=400,test=90,sep=4", Model: "mlp",
		Method: "llpfc-uniform", Protocol: "paper", BagSize: 8, NumPoints: 160, Seed: 1,
		Hyper: experiments.Hyper{Epochs: 2, Optimizer: "adam", LR: 1e-3, BatchSize: 32, Schedule: experiments.Schedule{Kind: "constant"}}}
	cell := experiments.Cell{Key: cfg.Key(), Config: cfg}
	prob, err := learn.LoadProblem(cell)
	if err != nil {
		fmt.Println(err)
		return
	}
	run, err := learn.RunCell(context.Background(), cell, prob, learn.RunOptions{KeepModel: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "llpfc-model")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model")
	if err := learn.SaveModel(path, run.Model, run.Manifest); err != nil {
		fmt.Println(err)
		return
	}
	m, err := learn.LoadModel(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	_, test, _ := learn.LoadRaw(cfg.Dataset, "")
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
