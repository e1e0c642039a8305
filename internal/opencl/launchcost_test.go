package opencl

import (
	"testing"
)

// BenchmarkLaunchHostCost times what one command costs the host: a launch
// of a four-argument kernel of one work item (the driver's work for it is
// next to nothing), and a copy of one value, on each driver that opens
// here (OpenCL's first device; CUDA's first, which bench/launch-cost.sh
// points at the fake libraries of testdata/fakecuda.c on a machine without
// a GPU, so that the figure is our own code's and purego's, the fake's
// queue costing tens of nanoseconds). The queue is drained every 1,024
// commands, as a training step would never let it grow. On a GPU the
// device runs a step's commands while the host enqueues the next ones, so
// a step's commands times these figures bound the step only where the
// device's own time for them is smaller (bench/NOTES.md, "What a launch
// costs the host").
func BenchmarkLaunchHostCost(b *testing.B) {
	for _, dev := range []string{"opencl", "cuda"} {
		b.Run(dev, func(b *testing.B) {
			if err := Unavailable(dev); err != nil {
				b.Skip(err)
			}
			ctx, err := Open(dev)
			if err != nil {
				b.Fatal(err)
			}
			defer ctx.Close()
			k := saxpyKernel(b, ctx)
			x, err := ctx.AllocFloat32([]float32{1})
			if err != nil {
				b.Fatal(err)
			}
			y, err := ctx.AllocFloat32([]float32{1})
			if err != nil {
				b.Fatal(err)
			}
			b.Run("launch", func(b *testing.B) {
				hostCost(b, ctx, func() error { return k.Launch([]int{1}, []int{1}, y, x, float32(2), 1) })
			})
			b.Run("copy", func(b *testing.B) {
				hostCost(b, ctx, func() error { return ctx.Copy(y, 0, x, 0, 1) })
			})
		})
	}
}

// hostCost runs cmd b.N times, draining the queue every 1,024.
func hostCost(b *testing.B, ctx *Context, cmd func() error) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := cmd(); err != nil {
			b.Fatal(err)
		}
		if i%1024 == 1023 {
			if err := ctx.Finish(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := ctx.Finish(); err != nil {
		b.Fatal(err)
	}
}

// saxpyKernel builds y += a·x, y[i] for i < n, on ctx: a kernel of four
// arguments whose work is next to nothing.
func saxpyKernel(tb testing.TB, ctx *Context) *Kernel {
	tb.Helper()
	p, err := ctx.BuildProgram(`__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
	int i = get_global_id(0);
	if (i < n) y[i] += a * x[i];
}`, "")
	if err != nil {
		tb.Fatal(err)
	}
	k, err := p.Kernel("saxpy")
	if err != nil {
		tb.Fatal(err)
	}
	return k
}
