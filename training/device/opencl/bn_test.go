package opencl_test

import (
	"math/rand/v2"
	"testing"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// sweepNet is a two-layer network with fused batch norm evaluated in
// chunks of 3 rows over a minibatch of 5 (a padded last chunk), with a
// BNSweep, as KLChunked drives it.
type sweepNet struct {
	be       device.Backend
	x, coef  *gorgonia.Node
	params   gorgonia.Nodes
	out      *gorgonia.Node
	grads    gorgonia.Nodes
	sweep    *nn.BNSweep
	bns      []*nn.BatchNorm
	fwd, bwd device.Program
	data     []float32 // the minibatch, 5 rows
	coefs    []float32 // per row
}

const sweepChunk, sweepRows, sweepIn = 3, 5, 2 * 5 * 5

func newSweepNet(t *testing.T, be device.Backend) *sweepNet {
	g := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(5, 9))
	s := &sweepNet{be: be}
	s.x = tensorOf(g, r, "x", 0, 0, sweepChunk, 2, 5, 5)
	s.coef = tensorOf(g, r, "coef", 0, 0, sweepChunk, 3, 5, 5)
	w := tensorOf(g, r, "w", -0.5, 0.5, 3, 2, 3, 3)
	b1 := nn.NewBatchNorm(g, tensor.Float32, "bn1", 3, 4, 0.1, true)
	b2 := nn.NewBatchNorm(g, tensor.Float32, "bn2", 3, 4, 0.1, true)
	for _, b := range []*nn.BatchNorm{b1, b2} {
		randomize(r, b.Gamma, 0.5, 1.5)
		randomize(r, b.Beta, -0.5, 0.5)
	}
	s.bns = []*nn.BatchNorm{b1, b2}
	s.params = gorgonia.Nodes{w, b1.Gamma, b1.Beta, b2.Gamma, b2.Beta}
	h := must(nn.Conv2dIm2col(s.x, w, nil, 1, 1))
	h = must(b1.ForwardReLU(h, true, true))
	h = must(gorgonia.Square(h))
	s.out = must(b2.Forward(h, true, true))
	cost := must(gorgonia.Sum(must(gorgonia.HadamardProd(s.out, s.coef))))
	s.grads = grads(cost, s.params...)
	var err error
	s.sweep, err = nn.NewBNSweep(g, s.out)
	require.NoError(t, err)
	require.Equal(t, 2, s.sweep.Layers())
	s.fwd, err = be.Compile(g, gorgonia.Nodes{s.out}, device.Options{Name: "sweep forward", Params: s.params, Inputs: gorgonia.Nodes{s.x}})
	require.NoError(t, err)
	roots := append(append(gorgonia.Nodes{cost}, s.grads...), b1.RecordRoots()...)
	roots = append(roots, b2.RecordRoots()...)
	s.bwd, err = be.Compile(g, roots, device.Options{Name: "sweep backward", Params: s.params, Inputs: gorgonia.Nodes{s.x, s.coef}})
	require.NoError(t, err)
	s.data = make([]float32, sweepRows*sweepIn)
	for i := range s.data {
		s.data[i] = float32(r.Float64()*2 - 1)
	}
	s.coefs = make([]float32, sweepRows*3*25)
	for i := range s.coefs {
		s.coefs[i] = float32(r.Float64()*2 - 1)
	}
	return s
}

// chunks runs p over the minibatch's chunks, calling after with each.
func (s *sweepNet) chunks(p device.Program, after func(rows int) error) error {
	for start := 0; start < sweepRows; start += sweepChunk {
		rows := min(sweepChunk, sweepRows-start)
		x := s.x.Value().Data().([]float32)
		clear(x)
		copy(x, s.data[start*sweepIn:(start+rows)*sweepIn])
		c := s.coef.Value().Data().([]float32)
		clear(c)
		copy(c, s.coefs[start*75:(start+rows)*75])
		s.sweep.SetValid(rows)
		if err := p.Run(); err != nil {
			return err
		}
		if after != nil {
			if err := after(rows); err != nil {
				return err
			}
		}
	}
	return nil
}

// exactGradient computes the chunked loss's gradient with the
// minibatch's statistics (statistics sweeps, adjoint sweeps, the final
// backward sweep), summed over the chunks on the host, then the running
// averages after one update. On a device it checks that the statistics
// and adjoint sweeps and the update read nothing back and never wait.
func (s *sweepNet) exactGradient(t *testing.T) [][]float64 {
	cc, counted := s.be.(device.CostCounter)
	var before device.Costs
	if counted {
		before = cc.Costs()
	}
	require.NoError(t, s.sweep.Statistics(func() error { return s.chunks(s.fwd, nil) }))
	require.NoError(t, s.sweep.Adjoints(func() error { return s.chunks(s.bwd, nil) }))
	if counted {
		c := cc.Costs().Sub(before)
		assert.Zero(t, c.Reads, "reads in the statistics and adjoint sweeps")
		assert.Zero(t, c.Waits, "waits in the statistics and adjoint sweeps")
	}
	sum := make([][]float64, len(s.grads))
	require.NoError(t, s.chunks(s.bwd, func(int) error {
		for i, n := range s.grads {
			v, err := s.bwd.Value(n)
			if err != nil {
				return err
			}
			d := nn.ValueData(v)
			if sum[i] == nil {
				sum[i] = make([]float64, len(d))
			}
			for j, x := range d {
				sum[i][j] += x
			}
		}
		return nil
	}))
	s.sweep.Release()
	for _, b := range s.bns {
		if counted {
			before = cc.Costs()
		}
		require.NoError(t, b.Update())
		if counted {
			assert.Zero(t, cc.Costs().Sub(before).Waits, "waits in the running averages' update")
		}
		require.NoError(t, s.be.Pull(device.Held(s.be, gorgonia.Nodes{b.RunMean, b.RunVar})...))
		sum = append(sum, nn.ValueData(b.RunMean.Value()), nn.ValueData(b.RunVar.Value()))
	}
	return sum
}

// TestBNSweepMatchesTheCPU: a loss evaluated in padded chunks with the
// whole minibatch's batch-norm statistics (nn.BNSweep: accumulate, fixed,
// collect and adjoint modes) gives the CPU's gradients and running
// averages on the device.
func TestBNSweepMatchesTheCPU(t *testing.T) {
	be := openBackend(t)
	want := newSweepNet(t, cpu.New()).exactGradient(t)
	s := newSweepNet(t, be)
	got := s.exactGradient(t)
	require.Len(t, got, len(want))
	for i := range want {
		w, at := closeEnough(got[i], want[i])
		assert.LessOrEqual(t, w, 1e-4, "value %d entry %d: %g, CPU %g (relative %.3g)", i, at, got[i][at], want[i][at], w)
	}
	// and the statistics sweep is not a no-op: chunk statistics give other
	// gradients
	s2 := newSweepNet(t, cpu.New())
	sum := make([]float64, len(want[0]))
	require.NoError(t, s2.chunks(s2.bwd, func(int) error {
		v, err := s2.bwd.Value(s2.grads[0])
		for j, x := range nn.ValueData(v) {
			sum[j] += x
		}
		return err
	}))
	w, _ := closeEnough(sum, want[0])
	assert.Greater(t, w, 1e-3, "chunk statistics should differ from the minibatch's")
}
