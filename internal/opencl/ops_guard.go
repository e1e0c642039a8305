package opencl

import (
	"errors"
	"fmt"
	"math"
)

// StepFlag is a training run's checks for NaN and ±Inf and the sum of its
// minibatch losses, kept on the device (kernels/guard.cl): a step enqueues
// its checks (CheckFinite, TallyLoss) and the optimizer's kernels skip
// their update once a step is flagged, so the host reads the outcome of
// many steps with one blocking read (Read) instead of waiting in every
// step. Flat indices: the gradients are checked in one layout, parameter
// after parameter (a group's offsets, or consecutive), given as each
// launch's base.
type StepFlag struct {
	buf  *Buffer // 8 int32: flag, –, index, value bits, the loss sum (2 slots)
	fp64 bool
}

// flagLen is a step flag's int32 slots.
const flagLen = 8

// NewStepFlag allocates a clear step flag with a zero loss sum.
func (l *Lib) NewStepFlag() (*StepFlag, error) {
	b, err := l.ctx.Alloc(flagLen)
	if err != nil {
		return nil, err
	}
	b.SetRole(RoleStepFlag)
	f := &StepFlag{buf: b, fp64: l.fp64}
	if err := b.WriteInt32(clearFlag[:]); err != nil {
		b.Release()
		return nil, err
	}
	return f, nil
}

var clearFlag = [flagLen]int32{0, 0, math.MaxInt32, 0, 0, 0, 0, 0}

// Release frees the flag's buffer.
func (f *StepFlag) Release() error { return f.buf.Release() }

// Clear clears the flag and zeroes the loss sum (enqueued).
func (f *StepFlag) Clear() error { return f.buf.WriteInt32(clearFlag[:]) }

// FlagState is what a step flag holds.
type FlagState struct {
	// Flagged: some step was; Tag is the first flagged step's tag, Loss
	// whether its loss (else a gradient) was not finite, Index the
	// smallest flagged gradient index (flat layout) and Value the flagged
	// value (a gradient's is recorded by the optimizer's kernel of that
	// step; NaN if no optimizer step ran).
	Flagged bool
	Tag     int
	Loss    bool
	Index   int
	Value   float64
	// LossSum is the sum of the losses tallied since the last Clear, up
	// to the first flagged step.
	LossSum float64
}

// Read waits for the device and returns the flag's state (one blocking
// read).
func (f *StepFlag) Read() (FlagState, error) {
	var d [flagLen]int32
	if err := f.buf.ReadInt32(d[:]); err != nil {
		return FlagState{}, err
	}
	var s FlagState
	if f.fp64 {
		s.LossSum = math.Float64frombits(uint64(uint32(d[4])) | uint64(uint32(d[5]))<<32)
	} else {
		s.LossSum = float64(math.Float32frombits(uint32(d[4])))
	}
	if d[0] == 0 {
		return s, nil
	}
	s.Flagged, s.Tag, s.Loss, s.Index = true, int(d[0]/2-1), d[0]%2 == 0, int(d[2])
	s.Value = float64(math.Float32frombits(uint32(d[3])))
	if !s.Loss && d[3] == 0 {
		s.Value = math.NaN() // not recorded (a finite gradient is never flagged, so 0 bits mean none)
	}
	return s, nil
}

// CheckFinite enqueues the check of x[0:n], flat indices base…base+n−1,
// for the step tagged tag ≥ 0.
func (l *Lib) CheckFinite(x *Buffer, n, base int, f *StepFlag, tag int) error {
	const op = "finite check"
	if err := need(op, n, nb("x", x)); err != nil {
		return err
	}
	if f == nil || tag < 0 || base < 0 {
		return fmt.Errorf("opencl: %s: flag %v, tag %d, base %d", op, f != nil, tag, base)
	}
	return l.elem("guard_check", n, x, n, base, f.buf, tag)
}

// TallyLoss enqueues the addition of the scalar loss[0] to the flag's
// loss sum, or the flagging of step tag when it is not finite.
func (l *Lib) TallyLoss(loss *Buffer, f *StepFlag, tag int) error {
	const op = "loss tally"
	if err := need(op, 1, nb("loss", loss)); err != nil {
		return err
	}
	if f == nil || tag < 0 {
		return errors.New("opencl: loss tally: no flag or a negative tag")
	}
	return l.elem("loss_tally", 1, loss, f.buf, tag)
}

// Guard ties an optimizer update to a step flag: nothing is updated once
// a step is flagged; Tag is the step's tag and Base the flat index of the
// update's first parameter value.
type Guard struct {
	Flag      *StepFlag
	Tag, Base int
}

// guardArgs returns the optimizer kernels' guard arguments (the library's
// never-set flag when g is nil).
func (l *Lib) guardArgs(g *Guard) ([]any, error) {
	if g == nil {
		return []any{l.noFlag.buf, 0, 0}, nil
	}
	if g.Flag == nil || g.Tag < 0 || g.Base < 0 {
		return nil, fmt.Errorf("opencl: optimizer guard: flag %v, tag %d, base %d", g.Flag != nil, g.Tag, g.Base)
	}
	return []any{g.Flag.buf, g.Tag, g.Base}, nil
}

// BNRunningSplit enqueues BNRunning with the statistics of a BNStatsSplit
// buffer (its float mean and variance).
func (l *Lib) BNRunningSplit(runMean, runVar, split *Buffer, c int, momentum float64, count int) error {
	const op = "batch-norm running averages (split statistics)"
	if err := positive(op, ni("C", c)); err != nil {
		return err
	}
	if err := need(op, c, nb("running mean", runMean), nb("running variance", runVar)); err != nil {
		return err
	}
	if err := need(op, 4*c, nb("split", split)); err != nil {
		return err
	}
	return l.elem("bn_running_split", c, runMean, runVar, split, c, l.acc(momentum), l.acc(unbiasFactor(count)))
}
