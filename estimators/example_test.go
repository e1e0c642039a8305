package estimators_test

import (
	"fmt"

	"github.com/llpfc/llpfc/estimators"
)

// ExampleBuild reduces four bags of a 2-class problem to LLPFC groups with
// Algorithm 2 (LLPFC-uniform) and prints, per group, α̂ and T̂ and the
// weight of one instance of each noisy label.
func ExampleBuild() {
	set := &estimators.BagSet{NumClasses: 2, Bags: []estimators.Bag{
		{ID: 0, Size: 10, Proportions: []float64{0.8, 0.2}},
		{ID: 1, Size: 30, Proportions: []float64{0.3, 0.7}},
		{ID: 2, Size: 20, Proportions: []float64{0.5, 0.5}},
		{ID: 3, Size: 20, Proportions: []float64{0.1, 0.9}},
	}}
	red, err := estimators.BuildSeed(set, estimators.Options{Mode: estimators.ModeUniform}, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("σ̂ = %.4f\n", red.SigmaHat)
	for i, g := range red.Groups {
		j := red.JSON().Groups[i]
		fmt.Printf("group %d: bags %v, α̂ = %.3f, T̂ = %.3f, instance weights %.4f %.4f\n",
			i, j.Bags, g.Alpha, j.T, red.InstanceWeight(i, 0), red.InstanceWeight(i, 1))
	}
	// Checked by hand: σ̂ = (8+9+10+2)/80 = 0.3625; group {1, 2} has sizes
	// 30, 20, so α̂ = (0.6, 0.4), σ̂_0 = (0.38, 0.62), T̂(0,0) = 0.3·0.6/0.38;
	// group {0, 3}: α̂ = (1/3, 2/3), σ̂_1 = (1/3, 2/3), T̂ = [[.8·(1/3)/(1/3) .2·(1/3)/(2/3)] [.1·(2/3)/(1/3) .9·(2/3)/(2/3)]];
	// weights w_i/n_i = 0.5/50 and 0.5/30.

	// Output:
	// σ̂ = [0.3625 0.6375]
	// group 0: bags [1 2], α̂ = [0.600 0.400], T̂ = [[0.474 0.677] [0.526 0.323]], instance weights 0.0100 0.0100
	// group 1: bags [0 3], α̂ = [0.333 0.667], T̂ = [[0.800 0.100] [0.200 0.900]], instance weights 0.0167 0.0167
}
