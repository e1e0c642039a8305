package training

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/llpfc/llpfc/training/nn"
)

// BenchmarkWinogradSteps times training steps of WRN-16-4 and VGG16 at batch
// 32 (3×32×32) with F(4×4, 3×3) on the 32×32 maps and with F(2×2, 3×3)
// alone, the two alternating step by step in one process (the machine's
// speed drifts by ±20 % within minutes, too much for separate runs to
// show a 10 % change), and prints each one's minimum, median and maximum
// step in ms (bench/NOTES.md, "Lever 17"); it keeps its own count of steps
// (LLPFC_WINO_STEPS of each, default 12), whatever b.N:
//
//	GOMAXPROCS=2 go test ./training -run X -bench WinogradSteps -benchtime 1x -v
func BenchmarkWinogradSteps(t *testing.B) {
	n := 12
	if v := os.Getenv("LLPFC_WINO_STEPS"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
			t.Fatalf("LLPFC_WINO_STEPS=%q: want a positive number of steps", v)
		}
	}
	defer nn.SetWinograd(nn.SetWinograd(true))
	defer nn.SetWinogradF4(nn.SetWinogradF4(true))
	for _, model := range []string{"wrn-16-4", "vgg16"} {
		var marks []time.Time
		const skip = 2 // the first two timed steps (F(2×2)'s first, which may grow the scratch)
		res, err := RunStepBenchmark(context.Background(), StepBenchConfig{Model: model, BatchSize: 32, Channels: 3, Height: 32, Width: 32,
			Warmup: 3, Steps: 2*n + skip, EachStep: func(i int) {
				marks = append(marks, time.Now())
				nn.SetWinogradF4(i%2 == 1)
			}})
		if err != nil {
			t.Fatal(err)
		}
		marks = append(marks, marks[0].Add(time.Duration(res.Seconds*float64(time.Second))))
		var times [2][]float64
		for i := skip; i+1 < len(marks); i++ {
			times[i%2] = append(times[i%2], marks[i+1].Sub(marks[i]).Seconds()*1e3)
		}
		line := model
		for k, name := range []string{"F(2×2) alone", "F(4×4) on 32×32"} {
			sort.Float64s(times[k])
			m := len(times[k])
			line += fmt.Sprintf("; %s: %.0f–%.0f–%.0f ms", name, times[k][0], times[k][m/2], times[k][m-1])
		}
		t.Log(line)
	}
}
