package experiments_test

import (
	"fmt"

	"github.com/llpfc/llpfc/experiments"
)

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
