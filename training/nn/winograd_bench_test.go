package nn

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// winoLayers are the 3×3 stride-1 layers of WRN-16-4 at batch 32 on 32×32
// images (VGG16's at 32 have the same maps: 64 → 64 at 32×32, 128 → 128 at
// 16×16, 256 → 256 at 8×8).
var winoLayers = []struct {
	name          string
	n, c, o, h, w int
}{
	{"16to64@32", 32, 16, 64, 32, 32},
	{"64to64@32", 32, 64, 64, 32, 32},
	{"64to128@32", 32, 64, 128, 32, 32},
	{"128to128@16", 32, 128, 128, 16, 16},
	{"128to256@16", 32, 128, 256, 16, 16},
	{"256to256@8", 32, 256, 256, 8, 8},
}

// BenchmarkWinogradLayers times the forward, ∂/∂x and ∂/∂W of winoLayers by
// F(2×2, 3×3) and by F(4×4, 3×3), the two interleaved (the machine's speed
// drifts), 9 rounds of 3 runs each, and prints each one's minimum and
// median in ms (bench/NOTES.md, "Lever 17"); it keeps its own rounds,
// whatever b.N:
//
//	GOMAXPROCS=2 go test ./training/nn -run X -bench WinogradLayers -benchtime 1x -v
func BenchmarkWinogradLayers(t *testing.B) {
	defer func(v int) { winoF4MinMap = v }(winoF4MinMap)
	defer SetWinogradF4(SetWinogradF4(true))
	winoF4MinMap = 1
	for _, l := range winoLayers {
		c := convCase{l.n, l.c, l.h, l.w, l.o, 3, 1, 1}
		g := newConvGeom(c.c, c.h, c.w, c.o, c.k, c.pad, c.stride)
		x, w, bias, dy, rand := convInputs(c, 1)
		y, dx, dw := rand(len(dy)), rand(len(x)), rand(len(w))
		var sc scratch[float32]
		for pass, run := range []func(){
			func() { convForwardPacked(g, c.n, x, w, bias, y, &sc) },
			func() { _ = convBackwardPacked(g, 0, c.n, w, dy, dx, &sc) },
			func() { _ = convBackwardPacked(g, 1, c.n, x, dy, dw, &sc) },
		} {
			var times [2][]float64
			for round := 0; round < 9; round++ {
				for k, f4 := range []bool{false, true} {
					SetWinogradF4(f4)
					run()
					t0 := time.Now()
					for i := 0; i < 3; i++ {
						run()
					}
					times[k] = append(times[k], time.Since(t0).Seconds()/3*1e3)
				}
			}
			line := fmt.Sprintf("%-12s %-3s", l.name, []string{"fwd", "dx", "dw"}[pass])
			for k, name := range []string{"F(2×2)", "F(4×4)"} {
				sort.Float64s(times[k])
				line += fmt.Sprintf("  %s min %5.1f median %5.1f", name, times[k][0], times[k][4])
			}
			t.Log(line)
		}
	}
}
