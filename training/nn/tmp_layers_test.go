package nn

import (
	"fmt"
	"os"
	"sort"
	"testing"
	"time"
)

func TestTmpLayers(t *testing.T) {
	if os.Getenv("TMPLAYERS") == "" {
		t.Skip()
	}
	defer func(v int) { winoF4MinMap = v }(winoF4MinMap)
	winoF4MinMap = 1
	type cfg struct {
		name  string
		f4    bool
		share int
		minT  int
	}
	cfgs := []cfg{{"F2", false, 16, 1}, {"F4/t1", true, 16, 1}, {"F4/t64", true, 16, 64}, {"F4/s36t64", true, 36, 64}}
	if os.Getenv("TMPCFG") == "2" {
		cfgs = []cfg{{"F2", false, 16, 1}, {"F4", true, 16, 1}}
	}
	layers := []struct {
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
	if os.Getenv("TMPONLY16") != "" {
		layers = layers[3:5]
	}
	for _, l := range layers {
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
			times := make([][]float64, len(cfgs))
			for round := 0; round < 9; round++ {
				for k, cf := range cfgs {
					SetWinogradF4(cf.f4)
					run()
					t0 := time.Now()
					for i := 0; i < 3; i++ {
						run()
					}
					times[k] = append(times[k], time.Since(t0).Seconds()/3*1e3)
				}
			}
			line := fmt.Sprintf("%-12s %-3s", l.name, []string{"fwd", "dx", "dw"}[pass])
			for k, cf := range cfgs {
				sort.Float64s(times[k])
				line += fmt.Sprintf("  %s %5.1f %5.1f", cf.name, times[k][0], times[k][4])
			}
			fmt.Println(line)
		}
	}
}
