package training

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// benchData returns random image data (c×h×w, 10 classes) in bags of size m.
func benchData(numBags, m, c, h, w int) *TrainData {
	r := rng.New(1, "bench")
	D := c * h * w
	d := &TrainData{X: make([]float32, numBags*m*D), Channels: c, Height: h, Width: w, Bags: &estimators.BagSet{NumClasses: 10}}
	for i := range d.X {
		d.X[i] = r.Float32()
	}
	for b := 0; b < numBags; b++ {
		bag := estimators.Bag{ID: b, Size: m, Proportions: make([]float64, 10)}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, b*m+i)
			bag.Proportions[(b+i)%10] += 1 / float64(m)
		}
		d.Bags.Bags = append(d.Bags.Bags, bag)
	}
	return d
}

// benchMethod builds the stepper of cfg on data as Train does (the method's
// programs compiled on the CPU back end) and its optimizer.
func benchMethod(b *testing.B, cfg Config, data *TrainData) (*stepper, device.Optimizer) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		b.Fatal(err)
	}
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses = data.Channels, data.Height, data.Width, 10
	st, err := newStepper(&cfg, data, spec)
	if err != nil {
		b.Fatal(err)
	}
	opt, err := st.backend.NewOptimizer(cfg.Optimizer, st.learn, st.grads)
	if err != nil {
		b.Fatal(err)
	}
	return st, opt
}

// benchTrainStep measures one LLPFC training step (forward, FC loss,
// backward, optimizer update) at batch 128 and reports images per second.
func benchTrainStep(b *testing.B, model string) {
	data := benchData(20, 128, 1, 28, 28)
	cfg := Config{Method: "llpfc-uniform", Model: nn.ModelSpec{Name: model}, Optimizer: optim.Config{Name: "adam", LR: 1e-3}, BatchSize: 128, Epochs: 1, Seed: 1}
	st, opt := benchMethod(b, cfg, data)
	defer st.Close()
	steps, err := st.method.BeginEpoch(0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.step(i%steps, opt, 1e-3); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*128)/b.Elapsed().Seconds(), "img/s")
}

// BenchmarkTrainStepMLP is one mlp step on 28×28×1 inputs, batch 128.
func BenchmarkTrainStepMLP(b *testing.B) { benchTrainStep(b, "mlp") }

// BenchmarkTrainStepCNN is one cnn step on 28×28×1 inputs, batch 128.
func BenchmarkTrainStepCNN(b *testing.B) { benchTrainStep(b, "cnn") }

// peakHeap samples the live heap every millisecond while f runs and returns
// the maximum seen above the heap in use before f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	base := read()
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(stop)
	wg.Wait()
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// BenchmarkKLChunked measures one KL step (a minibatch of 2 bags, mlp on
// 28×28×1, chunks of 256 instances) for bag sizes 32 … 2048 and reports
// the peak heap above the heap before the step ("peak-heap-MB", sampled
// every millisecond with GOGC=5 so that it reflects live memory), which does
// not grow with the bag size, and images per second.
func BenchmarkKLChunked(b *testing.B) {
	for _, m := range []int{32, 128, 512, 2048} {
		b.Run(fmt.Sprintf("bag=%d", m), func(b *testing.B) {
			// The same 4096 instances for every bag size, so that the live
			// heap (data, parameters, chunk graph) is the same.
			data := benchData(4096/m, m, 1, 28, 28)
			cfg := Config{Method: "kl", Model: nn.ModelSpec{Name: "mlp"}, Optimizer: optim.Config{Name: "adam", LR: 1e-3}, BatchSize: 2, Epochs: 1, Seed: 1, ChunkSize: 256}
			st, opt := benchMethod(b, cfg, data)
			defer st.Close()
			steps, err := st.method.BeginEpoch(0)
			if err != nil {
				b.Fatal(err)
			}
			// warm up: the machines allocate their buffers on the first run
			if _, err := st.step(0, opt, 1e-3); err != nil {
				b.Fatal(err)
			}
			// Collect garbage eagerly, so that the peak measures what the
			// step keeps alive rather than when the collector happens to run
			// (each chunk's temporaries are garbage after the chunk).
			defer debug.SetGCPercent(debug.SetGCPercent(5))
			var peak uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := peakHeap(func() {
					if _, err := st.step(i%steps, opt, 1e-3); err != nil {
						b.Fatal(err)
					}
				})
				peak = max(peak, p)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(b.N*2*m)/b.Elapsed().Seconds(), "img/s")
		})
	}
}

// BenchmarkKLWholeBag is the reference without chunking: the KL loss of 2
// bags (mlp, 28×28×1) as one graph over all 2m instances (KLLoss), for
// contrast with BenchmarkKLChunked: its peak heap grows with the bag size.
func BenchmarkKLWholeBag(b *testing.B) {
	for _, m := range []int{32, 128, 512, 2048} {
		b.Run(fmt.Sprintf("bag=%d", m), func(b *testing.B) {
			spec := nn.ModelSpec{Name: "mlp", Channels: 1, Height: 28, Width: 28, NumClasses: 10}
			g := gorgonia.NewGraph()
			model, err := models.NewModel(g, spec, rng.New(1, "init"))
			if err != nil {
				b.Fatal(err)
			}
			n := 2 * m
			x, xt := nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(n))
			avg, at := nn.NewInputNode(g, tensor.Float32, "avg", tensor.Shape{2, n})
			props, pt := nn.NewInputNode(g, tensor.Float32, "props", tensor.Shape{2, 10})
			r := rng.New(1, "bench")
			for i, d := range [][]float32{xt.Data().([]float32), pt.Data().([]float32)} {
				for j := range d {
					d[j] = r.Float32()
					if i == 1 {
						d[j] = 0.1
					}
				}
			}
			ad := at.Data().([]float32)
			for k := 0; k < 2; k++ {
				for j := k * m; j < (k+1)*m; j++ {
					ad[k*n+j] = 1 / float32(m)
				}
			}
			z, err := model.Forward(x, true)
			if err != nil {
				b.Fatal(err)
			}
			loss, err := loss.KLLoss(z, avg, props)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gorgonia.Grad(loss, model.Learnables()...); err != nil {
				b.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(g)
			defer vm.Close()
			defer debug.SetGCPercent(debug.SetGCPercent(5))
			var peak uint64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				peak = max(peak, peakHeap(func() {
					vm.Reset() // whole-bag graph: every intermediate is allocated, as in a plain framework step
					if err := vm.RunAll(); err != nil {
						b.Fatal(err)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "img/s")
		})
	}
}
