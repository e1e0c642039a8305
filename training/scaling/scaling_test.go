package scaling

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/optim"
)

// TestPropertyEffIsTheLoopsMakespan: Eff is the speed-up the project's
// loops give equal pieces of work, read off the loops themselves run at P
// threads under the static schedule (where the dynamic one gives equal
// pieces the same rounds): the pieces over the most pieces one worker
// took, times the share of the work a piece is — par.Chunks's fixed
// chunks, and the ranges par.Range cuts its divisible work into.
func TestPropertyEffIsTheLoopsMakespan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer par.SetSchedule(par.SetSchedule(par.Static))
	props := gopter.NewProperties(gopter.DefaultTestParametersWithSeed(16))
	props.Property("Eff = pieces / the busiest worker's pieces", prop.ForAll(func(w, p int) string {
		runtime.GOMAXPROCS(p)
		var mu sync.Mutex
		perWorker := map[int]int{}
		par.Chunks(w, func(_, worker int) { mu.Lock(); perWorker[worker]++; mu.Unlock() })
		most := 0
		for _, n := range perWorker {
			most = max(most, n)
		}
		if got, want := Eff(stepprof.Width{N: w, Fixed: true}, p), float64(w)/float64(most); math.Abs(got-want) > 1e-12 {
			return "fixed chunks: Eff " + ftoa(got) + ", the loop's " + ftoa(want)
		}
		// Range runs on the calling goroutine below two pieces.
		if w < 2 {
			return ""
		}
		clear(perWorker)
		ranges, size := 0, 0
		par.Range(w<<15, func(lo, hi int) {
			mu.Lock()
			defer mu.Unlock()
			ranges++
			size = max(size, hi-lo)
		})
		// The busiest worker's share: its ranges' elements over all of them.
		if ranges == 0 {
			return "divisible: no range"
		}
		// (Ranges differ by at most one element of 2¹⁵.)
		rounds := (ranges + p - 1) / p
		if got, want := Eff(stepprof.Width{N: w}, p), float64(w<<15)/float64(rounds*size); math.Abs(got-want) > 1e-3*got {
			return "divisible: Eff " + ftoa(got) + ", the loop's " + ftoa(want) + " (" + ftoa(float64(ranges)) + " ranges)"
		}
		return ""
	}, gen.IntRange(1, 64), gen.IntRange(1, 24)))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

func ftoa(v float64) string { return fmt.Sprint(v) }

// two hand-made runs of one step at 1 and 2 threads: a convolution with
// 10 ms of serial work and fixed chunks (8 of them, 80 ms of work at one
// thread, 88 ms at two) whose 20 calls move 400 MB, 20 MB each (in the
// cache), an elementwise op that is all serial, and an optimizer whose
// 64 MB exceed the 32 MB cache.
func handRuns() (Run, Run) {
	conv := func(w8 float64) Op {
		return Op{Name: "llpfc.Conv2dIm2col", Class: ClassConvForward, Calls: 20, Bytes: 400e6, SerialCPU: 0.010, SectionCPU: w8 + 0.004,
			Work: []Work{{Width: stepprof.Width{N: 8, Fixed: true}, CPU: w8}, {Width: stepprof.Width{N: 64}, CPU: 0.004}}}
	}
	add := Op{Name: "gorgonia.elemBinOp(+)", Class: ClassElementwise, Calls: 1, Bytes: 1e6, SerialCPU: 0.005}
	opt := Op{Name: optim.ProfileRegion, Class: ClassOptimizer, Calls: 1, Bytes: 64e6, SerialCPU: 0.001, SectionCPU: 0.004,
		Work: []Work{{Width: stepprof.Width{N: 100}, CPU: 0.004}}}
	a := Run{Threads: 1, CacheBytes: 32e6, Ops: []Op{conv(0.080), add, opt}}
	b := Run{Threads: 2, CacheBytes: 32e6, Ops: []Op{conv(0.088), add, opt}}
	return a, b
}

// TestStructuralByHand: the formula worked by hand on handRuns' second run.
func TestStructuralByHand(t *testing.T) {
	_, b := handRuns()
	// 16 threads, no bandwidth: conv 10 ms + 88/8 + 4/16; add 5; optimizer 1 + 4/16.
	e := Structural(b, 16, 0)
	assert.InDelta(t, 0.010+0.088/8+0.004/16+0.005+0.001+0.004/16, e.Seconds(), 1e-12)
	assert.InDelta(t, 0.016, e.Serial(), 1e-12)
	// 3 threads: 8 fixed chunks take 3 rounds, so 8/3 workers' worth.
	e = Structural(b, 3, 0)
	assert.InDelta(t, 0.010+0.088*3/8+0.004/3+0.005+0.001+0.004/3, e.Seconds(), 1e-12)
	// With 10 GB/s the optimizer's 64 MB (over the cache) take 6.4 ms, more
	// than its 0.25 ms of work; the conv's 20 MB a call fit the cache (its
	// 400 MB a step would take 40 ms).
	e = Structural(b, 16, 10)
	assert.InDelta(t, 0.010+0.088/8+0.004/16+0.005+0.001+0.0064, e.Seconds(), 1e-12)
	c := e.ByClass()
	assert.InDelta(t, 0.0074, c[ClassOptimizer], 1e-12)
	assert.InDelta(t, 0.005, c[ClassElementwise], 1e-12)
}

// TestExtrapolatedByHand: from 1 to 2 threads the 8 fixed chunks' work grew
// by 8 ms, so at 16 threads it is 80 + 15·8 = 200 ms, in 8 rounds of one;
// the widths that did not grow keep their time; the serial time is the
// second run's.
func TestExtrapolatedByHand(t *testing.T) {
	a, b := handRuns()
	e := Extrapolated(a, b, 16, 0)
	assert.InDelta(t, 0.010+0.200/8+0.004/16+0.005+0.001+0.004/16, e.Seconds(), 1e-12)
	assert.InDelta(t, Structural(b, 2, 0).Seconds(), Extrapolated(a, b, 2, 0).Seconds(), 1e-12, "at the second count it is the structural prediction")
	// A shrink is not extrapolated; an op measured at one count only is kept.
	b.Ops[0].Work[0].CPU = 0.070
	b.Ops = append(b.Ops, Op{Name: "only at 2", Class: ClassOther, SerialCPU: 0.002})
	a.Ops = append(a.Ops, Op{Name: "only at 1", Class: ClassOther, SerialCPU: 0.003})
	e = Extrapolated(a, b, 16, 0)
	assert.InDelta(t, 0.010+0.070/8+0.004/16+0.005+0.001+0.004/16+0.002+0.003, e.Seconds(), 1e-12)
}

// TestEveryOpKindHasAClass: every operation kind a training graph runs
// (training/testdata/ops.golden) falls in a named class, not "other".
func TestEveryOpKindHasAClass(t *testing.T) {
	f, err := os.Open("../testdata/ops.golden")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	seen := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "gorgonia.") && !strings.HasPrefix(line, "llpfc.") {
			continue
		}
		seen++
		assert.NotEqual(t, ClassOther, Class(line), "op kind %q", line)
	}
	require.Greater(t, seen, 40, "the golden's list of every kind was not read")
	for kind, want := range map[string]string{
		"llpfc.Conv2dIm2colGrad(x)": ClassConvData, "llpfc.Conv2dIm2colGrad(W)": ClassConvFilter, "llpfc.Conv2dIm2colGrad(b)": ClassConvFilter,
		"llpfc.Conv2dIm2col": ClassConvForward, "gorgonia.linAlgBinOp(A × Bᵀ)": ClassGEMM, "llpfc.BatchNormReLUGrad(γ)": ClassBatchNorm,
		"llpfc.MaxPool2ReLUGrad": ClassPooling, "llpfc.FCLossGrad": ClassLoss, "gorgonia.elemBinOp(+)": ClassElementwise,
		optim.ProfileRegion: ClassOptimizer, training.RegionGradCheck: ClassHost, stepprof.Outside: ClassHost, "gorgonia.reshapeOp": ClassBookkeeping,
	} {
		assert.Equal(t, want, Class(kind), kind)
	}
}

// TestMeasureProfilesEachCount: a tiny cnn step measured at 1 and 2
// threads, with the loops' goroutines spawned or pooled: one run a count, each with the step's operations (convolutions
// with sections, the optimizer), serial and section CPU adding up to the
// operation's, no negative time, and the report's rows and classes.
func TestMeasureProfilesEachCount(t *testing.T) {
	for _, s := range []par.Start{par.Spawned, par.Pooled} {
		t.Run(string(s), func(t *testing.T) {
			defer par.SetStart(par.SetStart(s))
			measureProfilesEachCount(t)
		})
	}
}

func measureProfilesEachCount(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	runs, err := Measure(context.Background(), Config{Bench: training.StepBenchConfig{Model: "cnn", BatchSize: 8, Height: 8, Width: 8, Channels: 1,
		Steps: 2, Warmup: 1, Seed: 1}, Threads: []int{1, 2}, StreamBytes: 1 << 20})
	require.NoError(t, err)
	assert.Equal(t, procs, runtime.GOMAXPROCS(0), "GOMAXPROCS restored")
	require.Len(t, runs, 2)
	for i, r := range runs {
		assert.Equal(t, []int{1, 2}[i], r.Threads)
		assert.Greater(t, r.Bandwidth, 0.0)
		classes := map[string]bool{}
		for _, o := range r.Ops {
			classes[o.Class] = true
			assert.InDelta(t, o.CPU, o.SerialCPU+o.SectionCPU, 1e-12, o.Name)
			assert.True(t, o.SerialCPU >= 0 && o.SectionCPU >= 0 && o.Wall >= 0, "%+v", o)
			var w float64
			for _, x := range o.Work {
				w += x.CPU
			}
			assert.InDelta(t, o.SectionCPU, w, 1e-9, "%s: the widths' work is the sections'", o.Name)
			if o.Class == ClassConvForward {
				assert.Greater(t, o.Sections, 0.0, "a convolution runs in parallel sections")
				assert.Equal(t, 2.0, o.Calls, "cnn has two convolutions")
				if r.Threads == 2 {
					assert.Greater(t, o.Balance.Sections, 0.0, "its loops report their workers' busy time")
				}
			}
			b := o.Balance
			if r.Threads == 1 {
				assert.Zero(t, b, "%s: one worker, no balance to measure", o.Name)
			}
			assert.True(t, b.Max >= b.Mean && b.Mean >= 0 && b.Wall >= 0 && b.Sections <= o.Sections, "%s: %+v", o.Name, b)
		}
		for _, c := range []string{ClassConvForward, ClassConvData, ClassConvFilter, ClassGEMM, ClassOptimizer, ClassLoss, ClassHost} {
			assert.True(t, classes[c], "run at %d threads has no %s: %v", r.Threads, c, classes)
		}
	}
	rep := NewReport("cnn", runs)
	require.Len(t, rep.Rows, 2)
	assert.Equal(t, 1.0, rep.Rows[0].SpeedUp)
	md := rep.Markdown()
	assert.Contains(t, md, "| 2 |")
	assert.Contains(t, md, ClassConvFilter)
	_, err = Measure(context.Background(), Config{Threads: []int{2, 1}})
	assert.ErrorContains(t, err, "increasing")
}

// TestBalanceInTheReport: the report's imbalance and start/stop are the
// operations' slowest-worker time less the mean, and wall less the
// slowest, summed by thread count and by class.
func TestBalanceInTheReport(t *testing.T) {
	a, b := handRuns()
	b.Ops[0].Balance = Balance{Sections: 20, Max: 0.030, Mean: 0.020, Wall: 0.035}
	b.Ops[2].Balance = Balance{Sections: 1, Max: 0.002, Mean: 0.0015, Wall: 0.004}
	rep := NewReport("hand", []Run{a, b})
	require.Len(t, rep.Rows, 2)
	assert.Zero(t, rep.Rows[0].Imbalance)
	assert.InDelta(t, 0.0105, rep.Rows[1].Imbalance, 1e-12)
	assert.InDelta(t, 0.007, rep.Rows[1].StartStop, 1e-12)
	byClass := map[string]ClassRow{}
	for _, c := range rep.Classes {
		byClass[c.Class] = c
	}
	assert.InDelta(t, 0.010, byClass[ClassConvForward].Imbalance, 1e-12)
	assert.InDelta(t, 0.005, byClass[ClassConvForward].StartStop, 1e-12)
	assert.InDelta(t, 0.0005, byClass[ClassOptimizer].Imbalance, 1e-12)
	assert.InDelta(t, 0.002, byClass[ClassOptimizer].StartStop, 1e-12)
	md := rep.Markdown()
	assert.Contains(t, md, "| 10.5 | 7.0 |", "the row at 2 threads ends with imbalance and start/stop")
	assert.Contains(t, md, "| 10.0 | 5.0 |", "the convolution's class row")
}

// TestParseThreads reads lists and refuses what is not one.
func TestParseThreads(t *testing.T) {
	got, err := ParseThreads("1,2, 4,16")
	require.NoError(t, err)
	assert.Equal(t, []int{1, 2, 4, 16}, got)
	for _, bad := range []string{"", "0", "1,1", "2,1", "1,x", "1.5", "1,,2", "-1"} {
		_, err := ParseThreads(bad)
		assert.Error(t, err, bad)
	}
}

// TestHybridByHand: the structure of a run at 16 threads (the conv's serial
// 20 ms, its work split 3:1 between 8 fixed chunks and ÷16) with the work
// of the run at 2 threads (92 ms): 69 ms in chunks, 23 ms divisible; an
// operation the run at 2 threads lacks keeps its own work.
func TestHybridByHand(t *testing.T) {
	_, b := handRuns()
	r := Run{Threads: 16, Ops: []Op{
		{Name: "llpfc.Conv2dIm2col", Class: ClassConvForward, Calls: 2, SerialCPU: 0.020, SectionCPU: 0.200,
			Work: []Work{{Width: stepprof.Width{N: 8, Fixed: true}, CPU: 0.150}, {Width: stepprof.Width{N: 16}, CPU: 0.050}}},
		{Name: "new at 16", Class: ClassOther, SerialCPU: 0.001, SectionCPU: 0.032, Work: []Work{{Width: stepprof.Width{N: 32}, CPU: 0.032}}},
	}}
	e := Hybrid(b, r, 16, 0)
	assert.InDelta(t, 0.020+0.069/8+0.023/16+0.001+0.032/16, e.Seconds(), 1e-12)
	assert.InDelta(t, 0.020+0.150/8+0.050/16+0.001+0.032/16, Structural(r, 16, 0).Seconds(), 1e-12)
}
