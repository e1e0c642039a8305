package training

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/optim"
)

// checkpointVersion is bumped when the format changes (2: the run's settings
// as named fields, with hashes of the bags and the inputs).
const checkpointVersion = 2

type Checkpoint struct {
	Version int
	// Fields are the run's settings that must not change on resume, by
	// name (runFields): the training settings, the caller's RunFields (data
	// set, bag size, protocol, augmentation, …) and hashes of the bags and
	// of the inputs.
	Fields    map[string]string
	NextEpoch int
	Params    [][]float32
	// Buffers are non-trainable model state: the running batch-norm
	// statistics of a BatchNormModel (RunningStats order).
	Buffers     [][]float32
	Optimizer   optim.State
	MethodState []byte
	History     []EpochStats
	// Best is the network of the epoch best-val selection holds so far
	// (nil for other runs and in checkpoints written before selection existed).
	Best *Snapshot
}

// Snapshot is a network's parameters and running statistics after an
// epoch, with that epoch's validation KL (Config.Select best-val).
type Snapshot struct {
	Epoch   int
	ValKL   float64
	Params  [][]float32
	Buffers [][]float32
}

// runFields names every setting of a run that a resume must keep: the
// training settings of cfg, the caller's cfg.RunFields (prefixed "run."),
// and SHA-256 hashes of the bags (ids, sizes, proportions, indices) and of
// the training inputs, so a resume with other data, bags or normalization
// is refused even when no setting names the change. Epochs is not among
// them: a longer run may continue a shorter one.
func runFields(cfg Config, data *TrainData) map[string]string {
	return RunSettings(cfg, data)
}

// RunSettings returns a run's settings as its checkpoint keys them: every
// Config field that changes the result (method, model and dropout,
// optimizer, schedule, minibatch, regrouping, group weights, compat, seed,
// chunk size, KL scale, batch-norm statistics, VAT schedule, LLP-PVC's
// exact likelihood), the caller's
// RunFields and hashes of the bags and the inputs. llpfc train prints them
// with its result, so that two results can be compared field by field.
func RunSettings(cfg Config, data *TrainData) map[string]string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	f := map[string]string{
		"method": cfg.Method, "model": cfg.Model.Name, "dropout": g(cfg.Model.Dropout),
		"optimizer": cfg.Optimizer.Name, "lr": g(cfg.Optimizer.LR), "momentum": g(cfg.Optimizer.Momentum),
		"weight_decay": g(cfg.Optimizer.WeightDecay), "beta1": g(cfg.Optimizer.Beta1), "beta2": g(cfg.Optimizer.Beta2),
		"batch_size": strconv.Itoa(cfg.BatchSize), "regroup_every": strconv.Itoa(cfg.RegroupEvery),
		"seed": strconv.FormatInt(cfg.Seed, 10), "chunk_size": strconv.Itoa(cfg.ChunkSize),
		"schedule": fmt.Sprint(cfg.Schedule), "kl_scale": cfg.KLScale.String(), "vat_rampup": cfg.VATRampup.String(),
		"bn_stats":      cfg.BNStats.String(),
		"group_weights": cfg.GroupWeights.String(), "compat": cfg.Compat.String(),
		"bags": hashBags(data.Bags), "inputs": hashFloats(data.X),
	}
	// The test split is part of what a result reports (a finished run was
	// once served after its test split changed).
	if len(data.TestY) > 0 {
		f["test"] = hashTest(data.TestX, data.TestY)
	}
	// Settings added after checkpoints existed enter only when set, so
	// that older checkpoints (which lack them) still match runs without.
	if cfg.ValBags != 0 {
		f["val_bags"] = g(cfg.ValBags)
	}
	if cfg.Select != 0 && cfg.Select != SelectLast {
		f["select"] = cfg.Select.String()
	}
	// llppvc's checkpoints from before the exact likelihood ran the FFT: the exact
	// likelihood, the new default, is named, so that it never resumes one.
	if cfg.Method == MethodLLPPVC && cfg.PVCLikelihood != PVCFFT {
		f["pvc_likelihood"] = PVCExact.String()
	}
	// A method's own settings declared without a field (Config.Settings),
	// each when stated.
	for name, v := range cfg.Settings {
		f["setting."+name] = v.String()
	}
	// The device is not a setting: a checkpoint moves between back ends
	// (TestOpenCLCheckpointResume), and the result records the one that
	// finished the run.
	for k, v := range cfg.RunFields {
		f["run."+k] = v
	}
	return f
}

func hashBags(set *estimators.BagSet) string {
	h := sha256.New()
	fmt.Fprintf(h, "C=%d\n", set.NumClasses)
	for _, b := range set.Bags {
		fmt.Fprintf(h, "%d %d %v %v\n", b.ID, b.Size, b.Proportions, b.Indices)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func hashFloats(x []float32) string {
	h := sha256.New()
	buf := make([]byte, 4*4096)
	for len(x) > 0 {
		n := min(len(x), 4096)
		for i, v := range x[:n] {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
		}
		h.Write(buf[:4*n])
		x = x[n:]
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// hashTest hashes the test split's inputs and labels.
func hashTest(x []float32, y []int) string {
	h := sha256.New()
	h.Write([]byte(hashFloats(x)))
	fmt.Fprint(h, y)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// hashedFields say, for the settings that are hashes of data, what they
// hash: a difference is named in these words (a resume after the data
// changed once named only two hashes).
var hashedFields = map[string]string{
	"bags":   "the bags (their ids, sizes, proportions and members)",
	"inputs": "the training split's inputs (as normalized)",
	"test":   "the test split's inputs and labels",
}

// DataFields are the settings that hash the run's data (RunSettings).
func DataFields() []string { return []string{"bags", "inputs", "test"} }

// SettingsDiff lists the settings in which a (a checkpoint's, or a finished
// result's) and b (this run's) differ, sorted, as "name: checkpoint A,
// this run B", a hash of the data in words.
func SettingsDiff(a, b map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if k == "test" && a[k] == "" {
				seen[k] = true // written before the test split was keyed: it cannot tell, and old checkpoints stay readable
				continue
			}
			if !seen[k] && a[k] != b[k] {
				if what, ok := hashedFields[k]; ok {
					out = append(out, fmt.Sprintf("%s: %s differ (hash %s when written, %s now)", k, what, orNone(a[k]), orNone(b[k])))
				} else {
					out = append(out, fmt.Sprintf("%s: checkpoint %q, this run %q", k, a[k], b[k]))
				}
			}
			seen[k] = true
		}
	}
	sort.Strings(out)
	return out
}

// SettingsError is a checkpoint written by a run with other settings or
// data than the one that resumes it (an InputError: the resume's input is
// at fault); Diff is SettingsDiff's list.
type SettingsError struct{ Diff []string }

func (e *SettingsError) Error() string {
	return "written by a run with other settings or data; they differ in " + strings.Join(e.Diff, "; ")
}

// Data reports whether only the data differ (hashed fields): the same
// settings on data that changed since the checkpoint was written.
func (e *SettingsError) Data() bool {
	for _, d := range e.Diff {
		if k, _, _ := strings.Cut(d, ":"); hashedFields[k] == "" {
			return false
		}
	}
	return len(e.Diff) > 0
}

func orNone(h string) string {
	if h == "" {
		return "none"
	}
	return h
}

func newCheckpoint(fields map[string]string, next int, params, buffers [][]float32, opt device.Optimizer, hist []EpochStats) (*Checkpoint, error) {
	st, err := opt.State()
	if err != nil {
		return nil, err
	}
	return &Checkpoint{Version: checkpointVersion, Fields: fields, NextEpoch: next, Params: params, Buffers: buffers, Optimizer: st, History: hist}, nil
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
func (c *Checkpoint) restore(cfg Config, fields map[string]string, params, buffers [][]float32, opt device.Optimizer, m Method) error {
	if d := SettingsDiff(c.Fields, fields); len(d) > 0 {
		return &InputError{&SettingsError{Diff: d}}
	}
	if c.NextEpoch < 0 || (cfg.Steps == 0 && c.NextEpoch > cfg.Epochs) {
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
