package opencl

import (
	"fmt"
	"os"
	"strconv"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
)

// Costs returns the counts of the back end's context (opencl.Counts):
// device.CostCounter.
func (b *Backend) Costs() device.Costs {
	c := b.ctx.Counts()
	out := device.Costs{Launches: c.Launches(), Kernels: c.Kernels, BLASCalls: c.BLASCalls, Copies: c.Copies, Fills: c.Fills,
		BytesHtoD: c.BytesHtoD, BytesDtoH: c.BytesDtoH, Reads: c.Reads, Waits: c.Waits, Allocs: c.Allocs, AllocBytes: c.AllocBytes,
		PeakBytes: b.ctx.PeakBytes()}
	for r, t := range c.Transfers {
		if out.Transfers == nil {
			out.Transfers = map[string]device.Transfer{}
		}
		out.Transfers[string(r)] = device.Transfer{HtoD: t.HtoD, DtoH: t.DtoH}
	}
	return out
}

// CostsNote says what the counts cover.
func (b *Backend) CostsNote() string {
	return "every command the OpenCL queue ran (kernels, CLBlast calls — each enqueues kernels of CLBlast's own, not counted —, copies, fills), the bytes each way, the host's blocking waits and the device buffers allocated"
}

// GlobalMemEnv names the variable that lowers the device memory the back
// end plans against (bytes, or with a K, M or G suffix): for tests, to
// see a model refused without a model larger than the device.
const GlobalMemEnv = "LLPFC_OPENCL_GLOBAL_MEM"

// parseBytes reads a byte count with an optional K, M or G (binary)
// suffix.
func parseBytes(s string) (uint64, error) {
	mult := uint64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, s = 1<<10, s[:n-1]
		case 'M', 'm':
			mult, s = 1<<20, s[:n-1]
		case 'G', 'g':
			mult, s = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("%s=%q: want a positive number of bytes (K, M, G suffixes allowed)", GlobalMemEnv, s)
	}
	return v * mult, nil
}

// applyMemoryEnv lowers the context's planned memory to GlobalMemEnv's.
func applyMemoryEnv(ctx *opencl.Context) error {
	v := os.Getenv(GlobalMemEnv)
	if v == "" {
		return nil
	}
	n, err := parseBytes(v)
	if err != nil {
		return err
	}
	ctx.SetGlobalMemory(n)
	return nil
}

// CheckMemory refuses, before the first run, what cannot fit the device:
// the buffers allocated so far (parameters, gradients, optimizer state,
// the programs' inputs and constants), the largest program's activations
// and the convolution workspaces together against the device's global
// memory (device.MemoryChecker). It is a lower bound of what a run needs
// (the trainer frees one program's activations before it runs another),
// so a refusal is certain.
func (b *Backend) CheckMemory() error {
	b.mu.Lock()
	var params, state int64
	for _, buf := range b.params {
		n := 4 * int64(buf.Len())
		if buf.Role() == opencl.RoleRunning {
			state += n
		} else {
			params += n
		}
	}
	var acts int64
	var convs []opencl.ConvGeom
	for p := range b.progs {
		if p.stores == nil {
			acts = max(acts, p.activationBytes())
		}
		convs = append(convs, p.convs...)
	}
	b.mu.Unlock()
	allocated := b.ctx.BytesAllocated()
	ws := b.lib.WorkspaceBytes(convs)
	need := allocated + acts + ws
	limit := int64(b.ctx.GlobalMemory())
	if need <= limit {
		return nil
	}
	return &device.MemoryError{Device: b.name, Need: need, Limit: limit, Parts: []device.MemoryPart{
		{What: "parameters", Bytes: params}, {What: "running statistics", Bytes: state},
		{What: "gradients, optimizer state, inputs and constants", Bytes: allocated - params - state},
		{What: "activations of the largest program", Bytes: acts}, {What: "convolution workspaces", Bytes: ws},
	}}
}
