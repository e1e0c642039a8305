package loss

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/internal/testnet"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

func init() { models.RegisterModel("test-tiny", testnet.NewFDTinyNet) }

// hostAcc is a device.Grads over the caller's float64 slices, which Add
// adds into (in Learnables order), so tests read the accumulated
// gradients directly; it works with the CPU back end's programs, whose node
// values are Go values.
type hostAcc [][]float64

// newHostAcc returns a hostAcc of zeros, one slice per parameter.
func newHostAcc(params gorgonia.Nodes) hostAcc {
	h := make(hostAcc, len(params))
	for i, p := range params {
		h[i] = make([]float64, p.Shape().TotalSize())
	}
	return h
}

func (h hostAcc) Reset() error {
	for _, a := range h {
		clear(a)
	}
	return nil
}

func (h hostAcc) Add(_ device.Program, nodes gorgonia.Nodes, scale float64) error {
	if len(nodes) != len(h) {
		return fmt.Errorf("%d gradient nodes for %d accumulators", len(nodes), len(h))
	}
	for i, n := range nodes {
		for j, v := range nn.ValueData(n.Value()) {
			h[i][j] += scale * v
		}
	}
	return nil
}

func (h hostAcc) NonFinite() (int, int, float64, bool, error) {
	for i, a := range h {
		for j, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i, j, v, true, nil
			}
		}
	}
	return 0, 0, 0, false, nil
}

func (h hostAcc) Read(dst [][]float64) error {
	for i := range dst {
		copy(dst[i], h[i])
	}
	return nil
}

// cpuBackend runs the tests' programs.
var cpuBackend = cpu.New()
