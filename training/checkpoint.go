package training

import (
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llpfc/llpfc/internal/atomicfile"
)

// checkpointVersion is bumped when the format changes.
const checkpointVersion = 1

// Checkpoint is the complete state of a run at an epoch boundary: with it
// Train continues exactly as the uninterrupted run would (bit-equal
// parameters). The random streams need no saved position: every stream is
// keyed by (seed, name, epoch) (MethodEnv.Stream), so the epochs after the
// checkpoint draw the same numbers; the initialisation stream is consumed
// before the parameters are overwritten from the checkpoint.
type Checkpoint struct {
	Version int
	// Key identifies the run's settings that must not change on resume.
	Key       string
	NextEpoch int
	Params    [][]float32
	// Buffers are non-trainable model state: the running batch-norm
	// statistics of a BatchNormModel (RunningStats order).
	Buffers     [][]float32
	Optimizer   OptimizerState
	MethodState []byte
	History     []EpochStats
}

func runKey(cfg Config) string {
	return fmt.Sprintf("method=%s model=%s dropout=%g optimizer=%s lr=%g momentum=%g wd=%g batch=%d regroup=%d seed=%d chunk=%d schedule=%s klscale=%s vatrampup=%s",
		cfg.Method, cfg.Model.Name, cfg.Model.Dropout, cfg.Optimizer.Name, cfg.Optimizer.LR, cfg.Optimizer.Momentum,
		cfg.Optimizer.WeightDecay, cfg.BatchSize, cfg.RegroupEvery, cfg.Seed, cfg.ChunkSize, cfg.Schedule, cfg.KLScale, cfg.VATRampup)
}

func newCheckpoint(cfg Config, next int, params, buffers [][]float32, opt *Optimizer, hist []EpochStats) *Checkpoint {
	return &Checkpoint{Version: checkpointVersion, Key: runKey(cfg), NextEpoch: next, Params: params, Buffers: buffers, Optimizer: *opt.State(), History: hist}
}

// Write saves the checkpoint atomically (internal/atomicfile).
func (c *Checkpoint) Write(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return gob.NewEncoder(w).Encode(c) })
}

// ReadCheckpoint loads a checkpoint written by Write.
func ReadCheckpoint(path string) (*Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c Checkpoint
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if c.Version != checkpointVersion {
		return nil, fmt.Errorf("checkpoint %s: format version %d, want %d", path, c.Version, checkpointVersion)
	}
	return &c, nil
}

// restore copies the checkpoint into the run's parameters, optimizer and
// method after checking it belongs to the same settings.
func (c *Checkpoint) restore(cfg Config, params, buffers [][]float32, opt *Optimizer, m Method) error {
	if k := runKey(cfg); c.Key != k {
		return fmt.Errorf("written by a run with other settings:\n  checkpoint: %s\n  this run:   %s", c.Key, k)
	}
	if c.NextEpoch < 0 || c.NextEpoch > cfg.Epochs {
		return fmt.Errorf("next epoch %d outside 0..%d", c.NextEpoch, cfg.Epochs)
	}
	if len(c.Params) != len(params) {
		return fmt.Errorf("%d parameter tensors, the model has %d", len(c.Params), len(params))
	}
	for i := range params {
		if len(c.Params[i]) != len(params[i]) {
			return fmt.Errorf("parameter %d has %d entries, the model %d", i, len(c.Params[i]), len(params[i]))
		}
	}
	if len(c.Buffers) != len(buffers) {
		return fmt.Errorf("%d buffer tensors, the model has %d", len(c.Buffers), len(buffers))
	}
	for i := range buffers {
		if len(c.Buffers[i]) != len(buffers[i]) {
			return fmt.Errorf("buffer %d has %d entries, the model %d", i, len(c.Buffers[i]), len(buffers[i]))
		}
	}
	if err := opt.SetState(c.Optimizer); err != nil {
		return err
	}
	for i := range params {
		copy(params[i], c.Params[i])
	}
	for i := range buffers {
		copy(buffers[i], c.Buffers[i])
	}
	if sm, ok := m.(StatefulMethod); ok {
		if len(c.MethodState) == 0 {
			return errors.New("no method state for a stateful method")
		}
		return sm.LoadState(c.MethodState)
	}
	return nil
}
