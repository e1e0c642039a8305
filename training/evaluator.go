package training

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/nn"
	"gonum.org/v1/gonum/floats"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// evaluator computes test accuracy with the model's evaluation-mode forward
// pass on fixed-size batches (the last one padded), compiled on the run's
// back end.
type evaluator struct {
	batch, dim int
	xT         *tensor.Dense
	logits     *gorgonia.Node
	prog       device.Program
	// link reads the class probabilities the method trains from a row of
	// logits, for the bags' scores (bagMeans); the test set's
	// probabilities are the softmax's whatever the method.
	link methods.Link
}

func newEvaluator(be device.Backend, g *gorgonia.ExprGraph, m nn.Model, spec nn.ModelSpec, batch int) (*evaluator, error) {
	x, xT := nn.NewInputNode(g, spec.DType(), "eval.x", spec.InputShape(batch))
	z, err := m.Forward(x, false)
	if err != nil {
		return nil, err
	}
	// The running statistics are the host's (BatchNormModel updates them
	// after each step): inputs of the evaluation.
	in := gorgonia.Nodes{x}
	if bn, ok := m.(nn.BatchNormModel); ok {
		in = append(in, bn.RunningStats()...)
	}
	prog, err := be.Compile(g, gorgonia.Nodes{z}, device.Options{Name: "evaluation", Params: m.Learnables(), Inputs: in})
	if err != nil {
		return nil, err
	}
	return &evaluator{batch: batch, dim: spec.InputDim(), xT: xT, logits: z, prog: prog}, nil
}

func (e *evaluator) Close() { e.prog.Close() }

// Predict writes the argmax class of each row of x into out.
func (e *evaluator) Predict(ctx context.Context, x []float32, out []int) error {
	return e.forEachBatch(ctx, x, func(start, end int, z []float32) {
		C := len(z) / e.batch
		for i := start; i < end; i++ {
			row := z[(i-start)*C : (i-start+1)*C]
			best := 0
			for c, v := range row {
				if v > row[best] {
					best = c
				}
			}
			out[i] = best
		}
	})
}

// forEachBatch runs the rows of x through the network a batch at a time and
// calls use with each batch's range of rows and its logits (batch×C, the
// rows past end being padding).
func (e *evaluator) forEachBatch(ctx context.Context, x []float32, use func(start, end int, z []float32)) error {
	n := len(x) / e.dim
	buf := e.xT.Data().([]float32)
	for start := 0; start < n; start += e.batch {
		if err := ctx.Err(); err != nil { // an interrupt stops evaluation too (Ctrl-C during it was once ignored)
			return err
		}
		end := min(start+e.batch, n)
		copy(buf, x[start*e.dim:end*e.dim])
		clear(buf[(end-start)*e.dim:])
		if err := e.prog.Run(); err != nil {
			return err
		}
		v, err := e.prog.Value(e.logits)
		if err != nil {
			return err
		}
		z, ok := v.Data().([]float32)
		if !ok {
			return fmt.Errorf("evaluation: logits of type %T, want float32", v.Data())
		}
		use(start, end, z)
	}
	return nil
}

// Accuracy returns the fraction of rows of x whose predicted class is y;
// the evaluator's program drops its values afterwards.
func (e *evaluator) Accuracy(ctx context.Context, x []float32, y []int) (float64, error) {
	if len(y) == 0 {
		return 0, errors.New("evaluation: empty test split")
	}
	defer e.prog.Release()
	pred := make([]int, len(y))
	if err := e.Predict(ctx, x, pred); err != nil {
		return 0, err
	}
	right := 0
	for i := range y {
		if pred[i] == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(y)), nil
}

// rowProbabilities runs the rows of x listed in rows (each the input size)
// through the network a batch at a time, in order, and calls use with each
// row's position in rows and its softmax probabilities (float64, from the
// float32 logits; the slice is reused).
func (e *evaluator) rowProbabilities(ctx context.Context, x []float32, rows []int, use func(k int, p []float64)) error {
	return e.rowLinked(ctx, x, rows, methods.Softmax, use)
}

// rowLinked is rowProbabilities with the probabilities read by link
// (softmaxRow or sigmoidRow).
func (e *evaluator) rowLinked(ctx context.Context, x []float32, rows []int, link methods.Link, use func(k int, p []float64)) error {
	row := softmaxRow
	if link == methods.Sigmoid {
		row = sigmoidRow
	}
	var z []float32
	buf := make([]float32, 0, e.batch*e.dim)
	var p []float64
	for start := 0; start < len(rows); start += e.batch {
		end := min(start+e.batch, len(rows))
		buf = buf[:0]
		for _, r := range rows[start:end] {
			buf = append(buf, x[r*e.dim:(r+1)*e.dim]...)
		}
		err := e.forEachBatch(ctx, buf, func(_, _ int, logits []float32) { z = logits })
		if err != nil {
			return err
		}
		C := len(z) / e.batch
		if p == nil {
			p = make([]float64, C)
		}
		for k := start; k < end; k++ {
			row(z[(k-start)*C:(k-start+1)*C], p)
			if err := finiteRow(rows[k], p); err != nil {
				return err
			}
			use(k, p)
		}
	}
	return nil
}

// evaluate returns the accuracy of the rows of x against y (the argmax of
// the float32 logits, as Predict) and every row's class probabilities
// (N×C); the program drops its values afterwards.
func (e *evaluator) evaluate(ctx context.Context, x []float32, y []int) (float64, []float64, error) {
	if len(y) == 0 {
		return 0, nil, errors.New("evaluation: empty test split")
	}
	defer e.prog.Release()
	rows := make([]int, len(y))
	for i := range rows {
		rows[i] = i
	}
	var C int
	var probs []float64
	right := 0
	err := e.rowProbabilities(ctx, x, rows, func(k int, p []float64) {
		if probs == nil {
			C = len(p)
			probs = make([]float64, len(y)*C)
		}
		copy(probs[k*C:], p)
		best := 0
		for c, v := range p {
			if v > p[best] {
				best = c
			}
		}
		if best == y[k] {
			right++
		}
	})
	if err != nil {
		return 0, nil, err
	}
	return float64(right) / float64(len(y)), probs, nil
}

// bagMeans returns, for each bag, the class proportions the network
// predicts (evaluation mode): the mean over the bag's instances of the
// probabilities the method trains (its link: Descriptor.Output),
// normalized to sum to 1 — a no-op for the softmax; for per-class
// sigmoids, whose means are each class's expected share of the bag, the
// shares made a distribution.
func (e *evaluator) bagMeans(ctx context.Context, x []float32, bags []estimators.Bag) ([][]float64, error) {
	if len(bags) == 0 {
		return nil, errors.New("bag scores: no bags")
	}
	defer e.prog.Release()
	var rows, bagOf []int
	for b, bag := range bags {
		rows = append(rows, bag.Indices...)
		for range bag.Indices {
			bagOf = append(bagOf, b)
		}
	}
	sums := make([][]float64, len(bags))
	err := e.rowLinked(ctx, x, rows, e.link, func(k int, p []float64) {
		s := sums[bagOf[k]]
		if s == nil {
			s = make([]float64, len(p))
			sums[bagOf[k]] = s
		}
		for c, v := range p {
			s[c] += v
		}
	})
	for b, bag := range bags {
		for c := range sums[b] {
			sums[b][c] /= float64(len(bag.Indices))
		}
		if e.link != methods.Softmax {
			t := floats.Sum(sums[b])
			floats.Scale(1/t, sums[b])
		}
	}
	return sums, err
}

// bagProportionError returns the mean over bags of ‖p̄_b − γ_b‖₁, p̄_b the
// mean predicted class probabilities over bag b's instances: how well the
// network reproduces the bags' label proportions (no instance label is
// used).
func (e *evaluator) bagProportionError(ctx context.Context, x []float32, bags []estimators.Bag) (float64, error) {
	_, pe, err := e.bagScores(ctx, x, bags)
	return pe, err
}

// bagScores returns the bags' mean KL divergence KL(γ_b ‖ p̄_b + ε) =
// Σ_c γ_c log(γ_c/(p̄_c + ε)) (ε = loss.KLFloor, 0·log 0 = 0) — the
// validation loss of held-out bags whatever the training method — and their
// mean proportion error ‖p̄_b − γ_b‖₁.
func (e *evaluator) bagScores(ctx context.Context, x []float32, bags []estimators.Bag) (kl, propErr float64, err error) {
	means, err := e.bagMeans(ctx, x, bags)
	if err != nil {
		return 0, 0, err
	}
	for b, bag := range bags {
		for c, g := range bag.Proportions {
			propErr += math.Abs(means[b][c] - g)
			if g > 0 {
				kl += g * math.Log(g/(means[b][c]+loss.KLFloor))
			}
		}
	}
	n := float64(len(bags))
	return kl / n, propErr / n, nil
}

// softmaxRow writes softmax(z) into p, shifted by the row's maximum.
// NonFiniteOutputError is an instance whose class probabilities are not
// finite (one NaN weight, or a saved model's standard
// deviation of 0, made every probability NaN, and the argmax of NaNs —
// class 0 — was scored as an accuracy of 0.3450 with exit status 0).
// Nothing is scored once one is found: evaluation and prediction stop with
// it.
type NonFiniteOutputError struct {
	Row   int // the instance's index in the rows given
	Probs []float64
}

func (e *NonFiniteOutputError) Error() string {
	return fmt.Sprintf("instance %d: the network's class probabilities %v are not finite (a NaN or infinite weight, or an input normalized by a zero or non-finite constant, makes the logits NaN); nothing was scored", e.Row, e.Probs)
}

// finiteRow returns a NonFiniteOutputError when a probability of row is
// NaN or infinite.
func finiteRow(row int, p []float64) error {
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteOutputError{Row: row, Probs: append([]float64(nil), p...)}
		}
	}
	return nil
}

// sigmoidRow writes σ(z_c) = 1/(1 + e^{−z_c}) into p, class by class.
func sigmoidRow(z []float32, p []float64) {
	for c, v := range z {
		p[c] = 1 / (1 + math.Exp(-float64(v)))
	}
}

func softmaxRow(z []float32, p []float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = math.Max(m, float64(v))
	}
	var s float64
	for c, v := range z {
		p[c] = math.Exp(float64(v) - m)
		s += p[c]
	}
	for c := range p {
		p[c] /= s
	}
}
