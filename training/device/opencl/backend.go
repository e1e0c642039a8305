package opencl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// Name is the back end's registered name; CUDAName is the same back end
// on the CUDA driver (opencl.Context's second driver: the same kernels
// compiled by NVRTC, the products on cuBLAS).
const (
	Name     = "opencl"
	CUDAName = "cuda"
)

func init() {
	for _, name := range []string{Name, CUDAName} {
		device.Register(name, func(spec string) (device.Backend, error) {
			dev := name
			if spec != "" {
				dev += ":" + spec
			}
			return Open(dev)
		})
	}
}

// Backend runs graphs on one OpenCL device. Parameters live in device
// buffers shared by every Program it compiles; Push and Pull copy them
// between the nodes' Go values and the device.
type Backend struct {
	ctx  *opencl.Context
	lib  *opencl.Lib
	name string

	prof *profiler // the per-op profile (device.Profiler, ProfileEnv)
	// numerics names the variant the back end computes with: the
	// products' CLBlast parameters (GEMMEnv) and the convolutions' path.
	numerics string

	mu     sync.Mutex
	params map[*gorgonia.Node]*opencl.Buffer
	progs  map[*program]struct{}
	// inputs are the nodes some program of the back end declared as
	// inputs: another program that reads one without declaring it
	// (gorgonia shares nodes between graphs built on one ExprGraph) uploads
	// it before every run too, as the CPU, which reads the Go value, would
	// see it.
	inputs map[*gorgonia.Node]bool
	// bnDevs are the fused batch-norm ops' statistics kept on the device
	// (bn.go), shared by every program that runs an op.
	bnDevs map[nn.BatchNormOp]*bnDev
	closed bool
}

// deviceError is err naming the device dev once: an error that already
// starts with "device " (opencl's Resolve names it) is left as it is
// (else: "device opencl:1:0: device opencl:1:0: …").
func deviceError(dev string, err error) error {
	if strings.HasPrefix(err.Error(), "device ") {
		return err
	}
	return fmt.Errorf("device %s: %w", dev, err)
}

// Open opens the device a device string names ("opencl" for platform 0
// device 0, "opencl:P:D", or "cuda" / "cuda:N" for CUDA device N) and
// builds the kernel library on it. A missing OpenCL loader, device or
// CLBlast (CUDA driver, NVRTC or cuBLAS) is an error naming what is
// missing.
func Open(dev string) (*Backend, error) {
	if err := opencl.Unavailable(dev); err != nil {
		return nil, deviceError(dev, err)
	}
	ctx, err := opencl.Open(dev)
	if err != nil {
		return nil, deviceError(dev, err)
	}
	if err := applyMemoryEnv(ctx); err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	conv, convName, err := convVariant()
	if err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	algos, err := cudnnAlgosVariant(conv)
	if err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	if conv == opencl.ConvCuDNN {
		if !ctx.Device().CUDA {
			ctx.Close()
			return nil, deviceError(dev, fmt.Errorf("%s=cudnn: cuDNN's convolutions run on the CUDA driver only (--device cuda)", ConvEnv))
		}
		v, err := opencl.CuDNNAvailable()
		if err == nil {
			err = ctx.SetCuDNNAlgos(algos)
		}
		if err != nil {
			ctx.Close()
			return nil, deviceError(dev, fmt.Errorf("%s=cudnn: %w", ConvEnv, err))
		}
		convName = cudnnNumerics(v, algos)
	}
	perChannel, reduceName, err := reduceVariant()
	if err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	gemm, err := gemmVariant(ctx)
	if err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	lib, err := ctx.Library()
	if err != nil {
		ctx.Close()
		return nil, deviceError(dev, err)
	}
	lib.Conv = conv
	lib.GroupPerChannel = perChannel
	numerics := gemm
	for _, n := range []string{convName, reduceName} {
		if n != "" {
			numerics += "; " + n
		}
	}
	d := ctx.Device()
	name := fmt.Sprintf("%v (%s, %s)", d.Selector(), d.Name, d.PlatformName)
	if d.CUDA {
		name = fmt.Sprintf("%v (%s)", d.Selector(), d.Name)
	}
	return &Backend{
		ctx: ctx, lib: lib,
		name:     name,
		params:   map[*gorgonia.Node]*opencl.Buffer{},
		progs:    map[*program]struct{}{},
		inputs:   map[*gorgonia.Node]bool{},
		bnDevs:   map[nn.BatchNormOp]*bnDev{},
		prof:     newProfiler(),
		numerics: numerics,
	}, nil
}

// Numerics names the arithmetic the back end runs with beyond its device
// (device.NumericsNamer): the matrix products' CLBlast parameters
// (GEMMEnv: CLBlast's defaults, or a tuning file's) and, when it is not
// the default im2col, the convolutions' path (ConvEnv), recorded in every
// result so that runs of different variants are never mixed up.
func (b *Backend) Numerics() string { return b.numerics }

// Name returns "opencl:P:D (device, platform)" or "cuda:N (device)".
func (b *Backend) Name() string { return b.name }

// KernelImage says how the kernel library reached a CUDA device — the
// image NVRTC compiled in this process, or the one read from the disk
// cache — and "" on OpenCL, so that a device check shows what its open
// time paid for.
func (b *Backend) KernelImage() string {
	if !b.ctx.Device().CUDA {
		return ""
	}
	return b.lib.CUDAImage().String()
}

// Context is the back end's OpenCL context (tests and diagnostics).
func (b *Backend) Context() *opencl.Context { return b.ctx }

var errClosed = errors.New("device opencl: the back end is closed")

// float32Data returns the float32 values of a node's Go value.
func float32Data(n *gorgonia.Node) ([]float32, error) {
	v := n.Value()
	if v == nil {
		return nil, fmt.Errorf("device opencl: node %s has no value", n.Name())
	}
	switch d := v.Data().(type) {
	case []float32:
		return d, nil
	case float32:
		return []float32{d}, nil
	}
	return nil, fmt.Errorf("device opencl: node %s holds %T; the OpenCL back end runs float32 graphs", n.Name(), v.Data())
}

// param returns the device buffer of parameter n, uploading its Go value
// the first time. The caller holds b.mu.
func (b *Backend) param(n *gorgonia.Node) (*opencl.Buffer, error) {
	return b.held(n, opencl.RoleParam)
}

// held returns the device buffer of n (a parameter, or state such as a
// running average: role), uploading its Go value the first time. The
// caller holds b.mu.
func (b *Backend) held(n *gorgonia.Node, role opencl.Role) (*opencl.Buffer, error) {
	if buf, ok := b.params[n]; ok {
		return buf, nil
	}
	d, err := float32Data(n)
	if err != nil {
		return nil, err
	}
	buf, err := b.ctx.Alloc(len(d))
	if err != nil {
		return nil, fmt.Errorf("device opencl: %s %s: %w", role, n.Name(), err)
	}
	buf.SetRole(role)
	if err := buf.Write(d); err != nil {
		buf.Release()
		return nil, fmt.Errorf("device opencl: %s %s: %w", role, n.Name(), err)
	}
	b.params[n] = buf
	return buf, nil
}

// Holds reports whether n's value lives on the device (a parameter, or
// running averages kept there): device.StateHolder.
func (b *Backend) Holds(n *gorgonia.Node) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.params[n]
	return ok
}

// pushGroup allocates the parameters of nodes that have no buffer yet as
// one group (opencl.Context.AllocGroup), so the optimizer can update them
// all in one launch; where a group cannot be allocated (larger than the
// device's largest buffer) they are allocated one by one. The caller
// holds b.mu.
func (b *Backend) pushGroup(nodes []*gorgonia.Node) (map[*gorgonia.Node]bool, error) {
	var fresh []*gorgonia.Node
	var sizes []int
	seen := map[*gorgonia.Node]bool{}
	for _, n := range nodes {
		if _, ok := b.params[n]; ok || seen[n] {
			continue
		}
		d, err := float32Data(n)
		if err != nil {
			return nil, err
		}
		seen[n] = true
		fresh = append(fresh, n)
		sizes = append(sizes, len(d))
	}
	if len(fresh) < 2 {
		return nil, nil
	}
	bufs, err := b.ctx.AllocGroup(sizes, opencl.RoleParam)
	if err != nil {
		return nil, nil // one by one (param)
	}
	for i, n := range fresh {
		d, _ := float32Data(n)
		if err := bufs[i].Write(d); err != nil {
			return nil, fmt.Errorf("device opencl: parameter %s: %w", n.Name(), err)
		}
		b.params[n] = bufs[i]
	}
	return seen, nil
}

// Push copies the Go values of parameter nodes (and of state the back end
// holds) to the device; parameters new to it are allocated as one group.
func (b *Backend) Push(nodes ...*gorgonia.Node) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed
	}
	grouped, err := b.pushGroup(nodes)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if grouped[n] {
			continue
		}
		if buf, ok := b.params[n]; ok {
			d, err := float32Data(n)
			if err != nil {
				return err
			}
			if len(d) != buf.Len() {
				return fmt.Errorf("device opencl: parameter %s has %d values, its device copy %d", n.Name(), len(d), buf.Len())
			}
			if err := buf.Write(d); err != nil {
				return fmt.Errorf("device opencl: parameter %s: %w", n.Name(), err)
			}
			continue
		}
		if _, err := b.param(n); err != nil {
			return err
		}
	}
	return nil
}

// Pull copies the device's values of parameter nodes (and of state the
// back end holds) into their Go values.
func (b *Backend) Pull(nodes ...*gorgonia.Node) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return errClosed
	}
	for _, n := range nodes {
		buf, ok := b.params[n]
		if !ok {
			return fmt.Errorf("device opencl: %s is not a parameter of this device (never pushed or compiled)", n.Name())
		}
		d, err := float32Data(n)
		if err != nil {
			return err
		}
		if _, isScalar := n.Value().Data().(float32); isScalar {
			return fmt.Errorf("device opencl: parameter %s is a scalar; pull needs a tensor", n.Name())
		}
		if err := buf.Read(d); err != nil {
			return fmt.Errorf("device opencl: parameter %s: %w", n.Name(), err)
		}
	}
	return nil
}

// Close releases every program, parameter, gradient and optimizer buffer
// and the context; the back end cannot be used afterwards.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	progs := make([]*program, 0, len(b.progs))
	for p := range b.progs {
		progs = append(progs, p)
	}
	b.mu.Unlock()
	var errs []error
	for _, p := range progs {
		errs = append(errs, p.Close())
	}
	if b.prof.env {
		b.prof.write(os.Stderr, b.name)
	}
	errs = append(errs, b.ctx.Close())
	return errors.Join(errs...)
}

func (b *Backend) isClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.closed
}

// declaredInput reports whether some program declared n as an input.
func (b *Backend) declaredInput(n *gorgonia.Node) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.inputs[n]
}
