package training

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/stretchr/testify/require"
)

// TestMemoryLeversMatchTape: for every model × method of the op
// list (parityCases, VGG16 left out: its ops are cnn-bn's and ResNet18's, and
// its 134 million parameters take gigabytes a run), two training steps on
// the CPU back end with its memory levers — the activation plan
// (cpu.ActivationPlan), then also the gradients read in the plan's memory
// (cpu.BorrowGradients) — give bit for bit the first step's loss, gradients
// and batch-norm running statistics and the parameters after both steps
// that gorgonia's tape machine gives; and so does the plan with
// cpu.PoisonFreed, which fills every value's memory with NaN as soon as its
// last planned reader has run (and the whole arena before each run), so
// that an operation that read a value the plan had given away, or that
// accumulated into memory it did not write, shows here.
func TestMemoryLeversMatchTape(t *testing.T) {
	if testing.Short() {
		t.Skip("trains every paper model four times (-short)")
	}
	defer func(plan, borrow, poison bool) {
		cpu.ActivationPlan, cpu.BorrowGradients, cpu.PoisonFreed = plan, borrow, poison
	}(cpu.ActivationPlan, cpu.BorrowGradients, cpu.PoisonFreed)
	levers := []struct{ plan, borrow, poison bool }{{true, false, false}, {true, true, false}, {true, true, true}}
	for _, c := range ParityCases(false) {
		if c.Model == ModelVGG16 {
			continue
		}
		t.Run(c.Model+"×"+c.Method, func(t *testing.T) {
			cpu.ActivationPlan, cpu.BorrowGradients, cpu.PoisonFreed = false, false, false
			tape, err := runSteps(cpu.New(), c)
			require.NoError(t, err, "%v on the tape", c)
			for _, l := range levers {
				cpu.ActivationPlan, cpu.BorrowGradients, cpu.PoisonFreed = l.plan, l.borrow, l.poison
				got, err := runSteps(cpu.New(), c)
				require.NoError(t, err, "%v, levers %+v", c, l)
				require.NoError(t, identicalStates(tape, got), "%v, levers %+v against the tape", c, l)
			}
		})
	}
}

// identicalStates reports the first value in which b differs from a, bit
// for bit (NaN included).
func identicalStates(a, b *stepState) error {
	if math.Float64bits(a.loss) != math.Float64bits(b.loss) {
		return fmt.Errorf("loss %v, want %v", b.loss, a.loss)
	}
	for _, part := range []struct {
		what string
		a, b [][]float32
	}{{"gradient of", a.grads, b.grads}, {"running statistic", a.running, b.running}, {"parameter", a.params, b.params}} {
		if len(part.a) != len(part.b) {
			return fmt.Errorf("%d %ss, want %d", len(part.b), part.what, len(part.a))
		}
		for i := range part.a {
			if len(part.a[i]) != len(part.b[i]) {
				return fmt.Errorf("%s %d: %d values, want %d", part.what, i, len(part.b[i]), len(part.a[i]))
			}
			for j, v := range part.a[i] {
				if math.Float32bits(v) != math.Float32bits(part.b[i][j]) {
					name := fmt.Sprint(i)
					if part.what != "running statistic" {
						name = a.names[i]
					}
					return fmt.Errorf("%s %s[%d] = %v, want %v", part.what, name, j, part.b[i][j], v)
				}
			}
		}
	}
	return nil
}
