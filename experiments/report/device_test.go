package report

import (
	"testing"

	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/stretchr/testify/assert"
)

// TestReportNamesDevicesOffTheCPU: a table whose cells all ran on
// the CPU (or predate devices) reads as before; one with a cell trained
// elsewhere lists every device with its cell count.
func TestReportNamesDevicesOffTheCPU(t *testing.T) {
	md := func(rs []*grid.Result) string { return oneTable(t, rs) }
	cpu := []*grid.Result{tableCell("kl", 32, 0, nil), tableCell("kl", 32, 1, nil)}
	cpu[1].Metrics.Device = "cpu"
	assert.NotContains(t, md(cpu), "Devices:", "CPU cells, one of them from before devices")
	gpu := tableCell("kl", 32, 2, nil)
	gpu.Metrics.Device = "opencl:0:0 (NVIDIA H100)"
	assert.Contains(t, md(append(cpu, gpu)), "Devices: cpu (2 cells), opencl:0:0 (NVIDIA H100) (1 cell).")
}
