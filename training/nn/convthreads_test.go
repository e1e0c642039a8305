package nn

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/stretchr/testify/require"
)

// TestConvBitsDoNotDependOnTheThreads: the forward, ∂/∂x and ∂/∂W of every
// path — per image, stacked small maps, Winograd (with the group sizes its
// tests run under) — give the same bits on 1 thread and on 2 to 33, under
// either schedule of the chunks (par.Schedule) and with the loops'
// goroutines pooled (par.Start), where the images are cut
// into more chunks than convChunks, small maps into smaller groups, and
// ∂/∂W's chunks into column pieces or shares of
// Winograd's 16 products (convthreads.go). One thread runs the code as it
// was before those cuts, so the results are also the bits of before.
func TestConvBitsDoNotDependOnTheThreads(t *testing.T) {
	defer func(v int) { winoOwnValues = v }(winoOwnValues)
	type tc struct {
		convCase
		group int
	}
	var cases []tc
	for _, c := range append(append([]convCase(nil), convCases...), stackedCases...) {
		cases = append(cases, tc{c, winoOwnValues})
	}
	for _, c := range winoCases {
		cases = append(cases, tc{c.convCase, c.group})
	}
	// A WRN-16-4 layer at 8×8 (stacked four images a product, eight ∂/∂W
	// chunks), its Winograd layer at 16×16, a ResNet18 one at 4×4, and
	// per-image products (maps of 256 values or more, not Winograd's): a
	// 3×3 convolution of 8 channels at 18×18 and WRN-16-4's 1×1 shortcut
	// from 32×32 to 16×16, whose ∂/∂W columns (72 and 64) make several
	// pieces.
	cases = append(cases, tc{convCase{32, 64, 8, 8, 64, 3, 1, 1}, 1 << 14}, tc{convCase{32, 32, 16, 16, 32, 3, 1, 2}, 1 << 14},
		tc{convCase{40, 32, 4, 4, 48, 3, 1, 1}, 1 << 14}, tc{convCase{24, 48, 8, 8, 40, 1, 0, 1}, 1 << 14},
		tc{convCase{16, 8, 18, 18, 12, 3, 1, 1}, 1 << 14}, tc{convCase{12, 64, 32, 32, 16, 1, 0, 2}, 1 << 14})
	for i, c := range cases {
		t.Run(fmt.Sprintf("%+v/group%d", c.convCase, c.group), func(t *testing.T) {
			winoOwnValues = c.group
			one := convPackedAll(t, c.convCase, int64(i), 1)
			for _, procs := range []int{2, 5, 9, 16, 33} {
				// Both schedules of the chunks (par.Schedule), and the
				// pool's goroutines (par.Start): which goroutine runs a
				// chunk changes no bit.
				for _, mode := range []struct {
					sched par.Schedule
					start par.Start
				}{{par.Dynamic, par.Spawned}, {par.Static, par.Spawned}, {par.Dynamic, par.Pooled}} {
					sched := mode.sched
					old, oldStart := par.SetSchedule(sched), par.SetStart(mode.start)
					got := convPackedAll(t, c.convCase, int64(i), procs)
					par.SetSchedule(old)
					par.SetStart(oldStart)
					for k, name := range []string{"y", "∂x", "∂W"} {
						for j := range one[k] {
							if math.Float32bits(got[k][j]) != math.Float32bits(one[k][j]) {
								require.Failf(t, "result depends on the threads", "%s[%d]: %v on %d threads (%s schedule, %s), %v on 1", name, j, got[k][j], procs, sched, mode.start, one[k][j])
							}
						}
					}
				}
			}
		})
	}
}
