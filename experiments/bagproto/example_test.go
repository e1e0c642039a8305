package bagproto_test

import (
	"fmt"

	"github.com/llpfc/llpfc/experiments/bagproto"
)

// Four bags of 25 drawn by the paper's protocol from 300 labelled points of
// 3 classes; the proportions are the bags' empirical label proportions.
func ExampleMake() {
	y := make([]int, 300)
	for i := range y {
		y[i] = i % 3
	}
	p, _ := bagproto.ParseProtocol("paper")
	res, err := bagproto.Make(y, 3, bagproto.Config{Protocol: p, BagSize: 25, NumPoints: 100, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, b := range res.Bags.Bags {
		sum := 0.0
		for _, q := range b.Proportions {
			sum += q
		}
		fmt.Printf("bag %d: %d instances, proportions sum to %.0f\n", b.ID, len(b.Indices), sum)
	}
	// Output:
	// bag 0: 25 instances, proportions sum to 1
	// bag 1: 25 instances, proportions sum to 1
	// bag 2: 25 instances, proportions sum to 1
	// bag 3: 25 instances, proportions sum to 1
}
