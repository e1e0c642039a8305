package testnet

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// HostGrads is a device.Grads over float64 slices on the host, which Add
// adds into (in Learnables order), so a test reads the accumulated gradients
// directly for finite differences; it works with the CPU back end's
// programs, whose node values are Go values.
type HostGrads [][]float64

// NewHostGrads returns a HostGrads of zeros, one slice per parameter.
func NewHostGrads(params gorgonia.Nodes) HostGrads {
	h := make(HostGrads, len(params))
	for i, p := range params {
		h[i] = make([]float64, p.Shape().TotalSize())
	}
	return h
}

// Reset sets every accumulated gradient to zero.
func (h HostGrads) Reset() error {
	for _, a := range h {
		clear(a)
	}
	return nil
}

// Add adds scale times the values of nodes (the gradients, one node per
// parameter) into the accumulators.
func (h HostGrads) Add(_ device.Program, nodes gorgonia.Nodes, scale float64) error {
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

// NonFinite reports the first accumulated gradient that is NaN or infinite.
func (h HostGrads) NonFinite() (int, int, float64, bool, error) {
	for i, a := range h {
		for j, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i, j, v, true, nil
			}
		}
	}
	return 0, 0, 0, false, nil
}

// Read copies the accumulated gradients into dst.
func (h HostGrads) Read(dst [][]float64) error {
	for i := range dst {
		copy(dst[i], h[i])
	}
	return nil
}
