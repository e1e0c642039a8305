package learn

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/models"
)

// ModelFormat names the format of a saved model's manifest: /2 records the
// weights' SHA-256; a /1 manifest, without it, is still read.
const (
	ModelFormat   = "llpfc-model/2"
	modelFormatV1 = "llpfc-model/1"
)

// Manifest describes a saved model: what `llpfc predict` needs
// besides the weights to score new data — the architecture, the input
// shape, the classes and the input normalization of training — and where
// the model came from. It is FILE.json beside the weights FILE.npz.
type Manifest struct {
	Format string `json:"format"`
	// Architecture is the registered model name (mlp, cnn, cnn-bn,
	// wrn-16-4, resnet18, vgg16); Torch says which PyTorch module the
	// weights load into (models.StateDict).
	Architecture string `json:"architecture"`
	Torch        string `json:"torch_module"`
	NumClasses   int    `json:"num_classes"`
	// The input: Channels×Height×Width images, or Features values.
	Channels int `json:"channels,omitempty"`
	Height   int `json:"height,omitempty"`
	Width    int `json:"width,omitempty"`
	Features int `json:"features,omitempty"`
	// Normalization is the training split's input normalization, applied
	// to every input before the network (as in training); ClassNames the
	// original labels of classes 0…C−1, when the data named them.
	Normalization data.Standardization `json:"normalization"`
	ClassNames    []string             `json:"class_names,omitempty"`
	// Columns are the training table's feature columns (CSV and Parquet
	// data: names, categorical columns' categories, their places in a row),
	// so that predict lays a new table out as the model read it
	// (data.Dataset.AlignColumns). Nil for arrays and images.
	Columns []data.Column `json:"columns,omitempty"`
	// Key and Config are the training cell's; CodeVersion the code that
	// trained it; Weights the name of the .npz file and WeightsSHA256 the
	// SHA-256 of its bytes, which LoadModel checks: the two files are one
	// model (a crash between their two writes, or a copy of one
	// of them, would pair weights with another run's manifest).
	Key           string             `json:"cell_key"`
	Config        experiments.Config `json:"config"`
	CodeVersion   string             `json:"code_version"`
	Weights       string             `json:"weights"`
	WeightsSHA256 string             `json:"weights_sha256,omitempty"`
}

// torchModules says, per architecture, which PyTorch module the weights
// load into (models.StateDict's doc comment).
var torchModules = map[string]string{
	training.ModelWRN164:   "the authors' models/WideRes.py wide_resnet_d_w(16, 4, dropout_rate, num_classes, in_channel, image_size) at 1d0cbc5",
	training.ModelResNet18: "the authors' models/ResNet.py resnet18(num_classes, in_channel) at 1d0cbc5",
	training.ModelVGG16:    "the authors' models/vgg.py vgg16_bn(num_classes, in_channel) at 1d0cbc5",
	training.ModelMLP:      "Sequential(Flatten(), Linear(D, 512), ReLU(), Linear(512, 256), ReLU(), Linear(256, C))",
	training.ModelCNN:      "Sequential(Conv2d(Ch, 32, 3, padding=1), ReLU(), MaxPool2d(2), Conv2d(32, 64, 3, padding=1), ReLU(), MaxPool2d(2), Flatten(), Linear(64·⌊H/4⌋·⌊W/4⌋, 128), ReLU(), Linear(128, C))",
	training.ModelCNNBN:    "the cnn's Sequential with BatchNorm2d(32) and BatchNorm2d(64) before the two convolutions' ReLUs: indices 0 conv, 1 bn, 4 conv, 5 bn, 9 and 11 linear",
}

// ModelFiles returns the weights and manifest paths of a model file given
// as FILE.npz, FILE.json or FILE (what --save-model writes and predict
// --model reads).
func ModelFiles(path string) (npz, manifest string) {
	stem := strings.TrimSuffix(strings.TrimSuffix(path, ".npz"), ".json")
	return stem + ".npz", stem + ".json"
}

// SaveModel writes sm's weights to path (FILE.npz; the extension is added
// when missing) and its manifest, m completed from sm and the weights'
// SHA-256, beside it (FILE.json), each atomically. The manifest is
// written after the weights: a crash between the two writes leaves new
// weights beside an old manifest whose checksum refuses them (LoadModel),
// never a pair that loads.
func SaveModel(path string, sm *training.SavedModel, m Manifest) error {
	if sm == nil {
		return errors.New("save model: no model (training.Config.KeepModel was not set)")
	}
	npzPath, manPath := ModelFiles(path)
	m.Format, m.Architecture, m.NumClasses = ModelFormat, sm.Spec.Name, sm.Spec.NumClasses
	m.Channels, m.Height, m.Width, m.Features = sm.Spec.Channels, sm.Spec.Height, sm.Spec.Width, sm.Spec.Features
	if sm.Spec.IsImage() {
		m.Features = 0
	}
	m.Torch = torchModules[m.Architecture]
	m.Weights = filepath.Base(npzPath)
	var w bytes.Buffer
	if err := models.WriteNPZ(&w, sm.State); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	sum := sha256.Sum256(w.Bytes())
	m.WeightsSHA256 = hex.EncodeToString(sum[:])
	if err := atomicfile.WriteFile(npzPath, w.Bytes()); err != nil {
		return fmt.Errorf("save model: %w", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(manPath, append(b, '\n'))
}

// SavedModel is a model file read back: its manifest and its network.
type SavedModel struct {
	Manifest Manifest
	Model    *training.SavedModel
}

// LoadModel reads a model written by SaveModel (path FILE.npz, FILE.json or
// FILE). A missing or truncated file, a manifest of another format or whose
// fields do not hold (LoadModel names the field), weights whose SHA-256 is
// not the manifest's, or weights that are not the manifest's architecture
// and class count are errors naming the file.
func LoadModel(path string) (*SavedModel, error) {
	npzPath, manPath := ModelFiles(path)
	b, err := os.ReadFile(manPath)
	if err != nil {
		return nil, fmt.Errorf("model %s: the manifest: %w", path, err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("model %s: %w", manPath, experiments.JSONError(err))
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("model %s: %w", manPath, err)
	}
	w, err := os.ReadFile(npzPath)
	if err != nil {
		return nil, fmt.Errorf("model %s: the weights: %w", path, err)
	}
	if sum := sha256.Sum256(w); m.Format == ModelFormat && hex.EncodeToString(sum[:]) != m.WeightsSHA256 {
		return nil, fmt.Errorf("model %s: the weights %s are not the ones its manifest %s describes (their SHA-256 is %x…, the manifest records %.12s…): the two files come from different saves, or one was edited; save the model again",
			path, npzPath, manPath, sum[:6], m.WeightsSHA256)
	}
	state, err := models.ReadNPZBytes(w)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", npzPath, err)
	}
	spec := training.ModelSpec{Name: m.Architecture, Channels: m.Channels, Height: m.Height, Width: m.Width, Features: m.Features, NumClasses: m.NumClasses}
	sm := &SavedModel{Manifest: m, Model: &training.SavedModel{Spec: spec, State: state}}
	// Check the weights against the manifest's network now, not at the
	// first prediction.
	p, err := training.NewPredictor(sm.Model, "", 1)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", npzPath, err)
	}
	p.Close()
	return sm, nil
}

// check validates a manifest's fields, each error naming its field: the
// format, the architecture, the class count, the checksum of a /2
// manifest, and the normalization's constants — a standard deviation of 0
// or a non-finite constant would make every input, and every probability,
// NaN, and predict would print it without a word.
func (m *Manifest) check() error {
	switch {
	case m.Format != ModelFormat && m.Format != modelFormatV1:
		return fmt.Errorf("format: is %q, want %q", m.Format, ModelFormat)
	case m.NumClasses < 2:
		return fmt.Errorf("num_classes: is %d, want at least 2", m.NumClasses)
	case m.Format == ModelFormat && len(m.WeightsSHA256) != 64:
		return fmt.Errorf("weights_sha256: is %q, want the 64 hex digits of the weights' SHA-256", m.WeightsSHA256)
	}
	if err := models.CanExport(m.Architecture); err != nil {
		return fmt.Errorf("architecture: %w", err)
	}
	n := m.Normalization
	if n.Mode == data.Standardize && len(n.Mean) != len(n.Std) {
		return fmt.Errorf("normalization: %d means and %d standard deviations, want one of each per channel or feature", len(n.Mean), len(n.Std))
	}
	for i, v := range n.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("normalization.mean[%d]: is %v, want a finite number", i, v)
		}
	}
	for i, v := range n.Std {
		if !(v >= 1/math.MaxFloat32) || math.IsInf(v, 0) { // 1/std must be a float32: inputs are divided by it
			return fmt.Errorf("normalization.std[%d]: is %v, want a finite number ≥ %.3g (inputs are divided by it)", i, v, 1/math.MaxFloat32)
		}
	}
	return nil
}

// Predictions are a model's class probabilities for the rows of a data
// set, their argmax, and, when the rows have labels, how well they agree.
type Predictions struct {
	// Probs is N×C row-major; Class the argmax of each row.
	Probs []float64
	Class []int
	N, C  int
	// Scores are set when the data set has labels.
	Scores *experiments.Scores
}

// Predict scores the rows of ds (read as training read them: images as
// pixels in [0,1], tabular values as in the file) with the model on device
// ("" means cpu): ds is normalized with the manifest's constants — the
// training split's, never refitted — and must have the network's input
// shape.
func (s *SavedModel) Predict(ctx context.Context, ds *data.Dataset, device string) (*Predictions, error) {
	m := s.Manifest
	if len(m.Columns) > 0 && len(ds.Columns) > 0 { // a table: its columns as the model read them
		var err error
		if ds, err = ds.AlignColumns(m.Columns); err != nil {
			return nil, &experiments.InputError{Err: err}
		}
	}
	D := m.Features
	if m.Channels > 0 {
		H, W := InputSide(m.Architecture, ds.Height, ds.Width)
		D = m.Channels * ds.Height * ds.Width
		if ds.Channels == 0 {
			return nil, &experiments.InputError{Err: fmt.Errorf("data %s: feature vectors of %d values, the model takes %d×%d×%d images", ds.Name, ds.D, m.Channels, m.Height, m.Width)}
		}
		if ds.Channels != m.Channels || H != m.Height || W != m.Width {
			return nil, &experiments.InputError{Err: fmt.Errorf("data %s: images %d×%d×%d, the model takes %d×%d×%d", ds.Name, ds.Channels, ds.Height, ds.Width, m.Channels, m.Height, m.Width)}
		}
	}
	if ds.D != D {
		return nil, &experiments.InputError{Err: fmt.Errorf("data %s: %d values per row, the model takes %d", ds.Name, ds.D, D)}
	}
	y, err := s.labels(ds)
	if err != nil {
		return nil, &experiments.InputError{Err: err}
	}
	norm, err := m.Normalization.Apply(ds)
	if err != nil {
		return nil, &experiments.InputError{Err: fmt.Errorf("data %s: %w", ds.Name, err)}
	}
	if H, W := InputSide(m.Architecture, ds.Height, ds.Width); m.Channels > 0 && (H != ds.Height || W != ds.Width) {
		norm = &data.Dataset{Name: norm.Name, N: norm.N, D: m.Channels * H * W, Channels: m.Channels, Height: H, Width: W,
			X: ResizeBilinear(norm.X, m.Channels, ds.Height, ds.Width, H, W)} // vgg16 on 28×28 images, as in training
	}
	p, err := training.NewPredictor(s.Model, device, 0)
	if err != nil {
		if errors.As(err, new(*training.InputError)) {
			return nil, &experiments.InputError{Err: err} // --device names no back end this machine has: exit 2, as train
		}
		return nil, err
	}
	defer p.Close()
	probs, err := p.Probabilities(ctx, norm.X)
	if err != nil {
		return nil, fmt.Errorf("data %s: %w", ds.Name, err)
	}
	out := &Predictions{Probs: probs, N: ds.N, C: m.NumClasses, Class: make([]int, ds.N)}
	for i := range out.Class {
		out.Class[i] = argmax(probs[i*out.C : (i+1)*out.C])
	}
	if len(y) == ds.N && ds.N > 0 {
		sc := experiments.Score(y, out.Class, probs, out.C)
		out.Scores = &sc
	}
	return out, nil
}

// labels returns ds's labels as the model's class indices: a data set
// whose labels came with names (CSV, LIBSVM) is mapped by name onto the
// classes of the model's training data, which may be numbered otherwise;
// a label the model never saw is an error naming it.
func (s *SavedModel) labels(ds *data.Dataset) ([]int, error) {
	names := s.Manifest.ClassNames
	if len(ds.Y) == 0 || len(names) == 0 || len(ds.ClassNames) == 0 {
		for _, y := range ds.Y {
			if y < 0 || y >= s.Manifest.NumClasses {
				return nil, fmt.Errorf("data %s: label %d outside the model's %d classes", ds.Name, y, s.Manifest.NumClasses)
			}
		}
		return ds.Y, nil
	}
	index := map[string]int{}
	for c, n := range names {
		index[n] = c
	}
	y := make([]int, len(ds.Y))
	for i, v := range ds.Y {
		c, ok := index[ds.ClassNames[v]]
		if !ok {
			return nil, fmt.Errorf("data %s: row %d (counted from 1) has label %q, not a class of the model (classes %s)%s",
				ds.Name, i+1, ds.ClassNames[v], strings.Join(names, ", "), data.SameNumberHint(ds.ClassNames[v], names))
		}
		y[i] = c
	}
	return y, nil
}

func argmax(p []float64) int {
	best := 0
	for c, v := range p {
		if v > p[best] {
			best = c
		}
	}
	return best
}
