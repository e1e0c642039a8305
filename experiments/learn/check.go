package learn

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// Checks that find, before any cell runs, what would fail every cell of a
// grid (such specs once passed validation and `run --list`, then every
// cell failed with exit status 1). Config.Validate makes the checks that
// need no data (the learner's own, CellChecker; the model against the kind
// of data); Spec.CheckData those that need the data set's shape (its size,
// classes and inputs) and sizes (CheckSize).

// imageModel reports whether model needs image inputs (C×H×W): every
// registered classifier but the mlp (and logreg's linear model).
func imageModel(model string) bool {
	return model != training.ModelMLP && model != "linear"
}

// ClassifierModels lists the networks `llpfc train`, `llpfc bench` and the
// gorgonia learner take: the registered architectures but LLPGAN's
// generator (which makes images, it does not classify them) and the
// architectures registered by tests.
func ClassifierModels() []string {
	var out []string
	for _, n := range training.ModelNames() {
		if n != training.ModelLLPGANG && !strings.HasPrefix(n, "test-") {
			out = append(out, n)
		}
	}
	return out
}

// CheckModelData checks that model can take the inputs of the data set
// named dataset: a convolutional network needs images (cnn on a CSV file
// once failed in every cell, printing a Go struct).
func CheckModelData(model, dataset string) error {
	if experiments.IsTabular(dataset) && imageModel(model) {
		return fmt.Errorf("model %q needs images (channels × height × width), but data set %q holds feature vectors: use mlp (or the logreg learner's linear model)", model, dataset)
	}
	return nil
}

// CheckCell implements CellChecker: the gorgonia learner trains the
// classifiers of training (not LLPGAN's generator) with sgd, nesterov, adam
// or adamw; LLPGAN needs its discriminator llpgan-d and images; image
// networks and augmentation need images.
func (Gorgonia) CheckCell(c experiments.Config) error {
	d, ok := experiments.Method(c.Method)
	if !ok {
		return methods.UnknownError(c.Method)
	}
	switch {
	case !slices.Contains(ClassifierModels(), c.Model):
		return fmt.Errorf("model: %q is not a classifier the gorgonia learner trains, want one of %s", c.Model, strings.Join(ClassifierModels(), ", "))
	case d.Model != "" && c.Model != d.Model:
		return fmt.Errorf("model: is %q, but method %s trains its %s %s (%s)", c.Model, c.Method, d.ModelRole, d.Model, d.Paper)
	case d.Images != "" && experiments.IsTabular(c.Dataset):
		return fmt.Errorf("method: %s, but data set %q holds feature vectors", d.Images, c.Dataset)
	case c.Hyper.Augment && experiments.IsTabular(c.Dataset):
		return fmt.Errorf("hyper.augment: crops and flips images, but data set %q holds feature vectors", c.Dataset)
	}
	if err := CheckModelData(c.Model, c.Dataset); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if _, err := TrainingConfig(c); err != nil {
		return err
	}
	if d.Reads(methods.SettingVATEps) {
		if err := VATConfig(c).Validate(); err != nil {
			return fmt.Errorf("hyper: %w", err)
		}
	}
	return nil
}

// CheckCell implements CellChecker: the logreg learner trains model
// "linear" with llpfc-ideal, llpfc-uniform, llpfc-approx or kl.
func (LogReg) CheckCell(c experiments.Config) error {
	switch {
	case c.Model != "linear":
		return fmt.Errorf("model: is %q, but the logreg learner trains only model \"linear\" (the gorgonia learner trains %s)", c.Model, strings.Join(ClassifierModels(), ", "))
	case c.Method != training.MethodKL && !experiments.IsLLPFC(c.Method):
		return fmt.Errorf("method: is %q, but the logreg learner implements llpfc-ideal, llpfc-uniform, llpfc-approx and kl", c.Method)
	case c.Hyper.Augment:
		return errors.New("hyper.augment: the logreg learner does not augment")
	case c.Hyper.ValBags != 0 || c.Hyper.Select != 0:
		return errors.New("hyper.val_bags, hyper.select: the logreg learner holds no bags out (the gorgonia learner does)")
	}
	return nil
}

// DataShape is what the checks of Spec.CheckData need to know of a data
// set: the sizes of its splits, its classes and its inputs (Channels,
// Height, Width for images, else Features).
type DataShape struct {
	Train, Test, Classes              int
	Channels, Height, Width, Features int
	// Bags is the number of bags a bag-only data set gives (0 for a
	// labelled set).
	Bags int
	// Columns are a table's feature columns (the feature protocol names
	// them); nil for arrays and images.
	Columns []data.Column
}

// Dim is the number of input values per instance.
func (s DataShape) Dim() int {
	if s.Channels > 0 {
		return s.Channels * s.Height * s.Width
	}
	return s.Features
}

// fixtureShape is the shape of the embedded Fashion-MNIST fixture
// (TestNamedShapes reads it).
var fixtureShape = DataShape{Train: 60000, Test: 4000, Classes: 10, Channels: 1, Height: 28, Width: 28}

// namedShapes are the shapes of the standard files of the named data sets,
// which are too large to read for a check.
var namedShapes = map[string]DataShape{
	"fashion-mnist":  {Train: 60000, Test: 10000, Classes: 10, Channels: 1, Height: 28, Width: 28},
	"mnist":          {Train: 60000, Test: 10000, Classes: 10, Channels: 1, Height: 28, Width: 28},
	"emnist-letters": {Train: 124800, Test: 20800, Classes: 26, Channels: 1, Height: 28, Width: 28},
	"cifar10":        {Train: 50000, Test: 10000, Classes: 10, Channels: 3, Height: 32, Width: 32},
	"svhn":           {Train: 73257, Test: 26032, Classes: 10, Channels: 3, Height: 32, Width: 32},
}

// MissingDataError is a named data set whose files are not found: listing a
// grid needs no data, running it does.
type MissingDataError struct{ Err error }

func (e *MissingDataError) Error() string { return e.Err.Error() }
func (e *MissingDataError) Unwrap() error { return e.Err }

// ShapeOf returns the shape of the data set name: for csv:… and libsvm:…
// by reading both splits (which also checks the files), for gmm:… from its
// name (without generating it), for the embedded fixture its known shape,
// for the other named sets the shape of their standard files once
// data.Resolve finds them (else a *MissingDataError).
func ShapeOf(name, dataDir string) (DataShape, error) {
	if strings.HasPrefix(name, "gmm:") {
		p, err := experiments.ParseGMM(name)
		if err != nil {
			return DataShape{}, err
		}
		return DataShape{Train: p.Train, Test: p.Test, Classes: p.Classes, Features: p.Dim}, nil
	}
	if name == "fixture" || name == experiments.FashionFixture {
		return fixtureShape, nil
	}
	if s, ok := namedShapes[name]; ok {
		if _, err := data.Resolve(name, dataDir); err != nil {
			return DataShape{}, &MissingDataError{err}
		}
		return s, nil
	}
	train, test, err := loadNamed(name, dataDir)
	if err != nil {
		return DataShape{}, err
	}
	s := DataShape{Train: train.N, Test: test.N, Classes: train.NumClasses, Channels: train.Channels,
		Height: train.Height, Width: train.Width, Features: train.D, Columns: train.Columns}
	if train.Bags != nil {
		s.Bags = len(train.Bags.Bags)
	}
	return s, nil
}

// minImageSide is the smallest image side an architecture takes (cnn and
// cnn-bn: two 2×2 max-pools); vgg16's smaller images are resized
// (InputSide).
var minImageSide = map[string]int{training.ModelCNN: 4, training.ModelCNNBN: 4}

// checkModelInput checks that the cell's network takes its data's inputs:
// images for every network but the mlp (and logreg's linear model), of at
// least the architecture's smallest side. RunCell calls it once the data
// are read (a bag-only .npz of feature vectors under cnn, or of 1×1
// images, once failed inside training with exit status 1 and a Go struct).
func checkModelInput(c experiments.Config, s DataShape) error {
	switch {
	case s.Channels == 0 && imageModel(c.Model):
		return fmt.Errorf("model: %q needs images (channels × height × width), but data set %q holds feature vectors (%d features): use mlp (or the logreg learner's linear model)", c.Model, c.Dataset, s.Features)
	case s.Channels > 0 && (s.Height < minImageSide[c.Model] || s.Width < minImageSide[c.Model]):
		return fmt.Errorf("model: %q takes images of at least %d×%d, but data set %q holds %d×%d images", c.Model, minImageSide[c.Model], minImageSide[c.Model], c.Dataset, s.Height, s.Width)
	}
	return nil
}

// CheckCellData checks one cell against its data set's shape (see
// Spec.CheckData).
func CheckCellData(c experiments.Config, s DataShape) error {
	bags := protocolBags(c, s)
	if err := checkModelInput(c, s); err != nil {
		return err
	}
	switch {
	case c.NumPoints > s.Train:
		return fmt.Errorf("num_points: is %d, but data set %s has %d training points", c.NumPoints, c.Dataset, s.Train)
	case s.Classes < 2:
		return fmt.Errorf("dataset: %s has %d class, want at least 2", c.Dataset, s.Classes)
	}
	if err := checkProtocolData(c, s); err != nil {
		return err
	}
	if err := CheckBags(c, s.Classes, bags); err != nil {
		return err
	}
	return CheckSize(c, s)
}

// checkProtocolData checks the parameters of the feature and kmeans
// protocols against the data (kmeans:5000 on 800 points and feature:nosuch
// once passed --list, then failed every cell): k-means
// clusters no more than the points it clusters, and every column the
// feature protocol names exists.
func checkProtocolData(c experiments.Config, s DataShape) error {
	if !experiments.VariableBags(c.Protocol) || c.Protocol == experiments.GivenProtocol {
		return nil
	}
	p, err := bagproto.ParseProtocol(c.Protocol)
	if err != nil {
		return fmt.Errorf("protocol: %w", err)
	}
	points := s.Train
	if c.NumPoints > 0 {
		points = c.NumPoints
	}
	if p.Kind == bagproto.KMeansKind && p.K > points {
		return fmt.Errorf("protocol: %s asks for %d clusters of %d points of data set %s: want K ≤ the points", c.Protocol, p.K, points, c.Dataset)
	}
	for _, col := range p.Columns {
		if err := data.NoFeatureColumn(s.Columns, s.Dim(), col); err != nil {
			return fmt.Errorf("protocol: %s: data set %s has %w", c.Protocol, c.Dataset, err)
		}
	}
	return nil
}

// protocolBags is the number of bags the cell's protocol makes from a data
// set of shape s (0 when only making them tells: the feature protocol).
func protocolBags(c experiments.Config, s DataShape) int {
	switch {
	case c.Protocol == experiments.GivenProtocol:
		return s.Bags
	case experiments.VariableBags(c.Protocol):
		if p, err := bagproto.ParseProtocol(c.Protocol); err == nil && p.Kind == bagproto.KMeansKind {
			return p.K
		}
		return 0
	}
	return c.NumBags()
}

// CheckBags checks that a cell's bags (bags of them, 0 when unknown) leave
// what its method needs once hyper.val_bags holds some out: at least one
// bag held out and one trained on, C bags for LLPFC's groups (Section 5),
// a minibatch of bags for the bag-level methods (the newer methods take all
// the bags as one minibatch when there are fewer: IsNewer). The error names the
// setting that decides ("partition: 2 bags, want at least C=3" once named
// neither --val-bags, nor --protocol, nor the data set). RunCell
// calls it with the bags actually made; CheckCellData with the bags the
// protocol makes.
func CheckBags(c experiments.Config, classes, bags int) error {
	if bags <= 0 {
		return nil
	}
	trained, held := bags, 0
	if c.Hyper.ValBags > 0 {
		k, err := training.HeldOutCount(c.Hyper.ValBags, bags)
		if err != nil {
			way := "make more bags"
			if bags >= 2 {
				way = fmt.Sprintf("hold out between 1 and %d of them (a count, or a fraction between %.3g and %.3g)", bags-1, 0.5/float64(bags), (float64(bags)-1.5)/float64(bags))
			}
			return fmt.Errorf("hyper.val_bags: %v of the %d bags %s: want at least one bag held out and one left to train on; %s", c.Hyper.ValBags, bags, bagsSource(c), way)
		}
		trained, held = bags-k, k
	}
	why := bagsSource(c)
	if held > 0 {
		why = fmt.Sprintf("%s, less the %d that hyper.val_bags %v holds out", why, held, c.Hyper.ValBags)
	}
	switch {
	case experiments.IsLLPFC(c.Method) && trained < classes && bagsField(c, held) == "bag_size":
		return fmt.Errorf("bag_size: %d leaves %d bags of %d points, fewer than the %d classes of %s: LLPFC groups C bags (Section 5); use smaller bags or more points",
			c.BagSize, trained, c.NumPoints, classes, c.Dataset)
	case experiments.IsLLPFC(c.Method) && trained < classes && held > 0 && bags-classes >= 1:
		return fmt.Errorf("%s: %d bags to train on (%s), fewer than the %d classes: LLPFC groups C bags (Section 5); hold out at most %d bags, or make more bags", bagsField(c, held), trained, why, classes, bags-classes)
	case experiments.IsLLPFC(c.Method) && trained < classes:
		return fmt.Errorf("%s: %d bags to train on (%s), fewer than the %d classes: LLPFC groups C bags (Section 5); make at least %d bags (more points, smaller bags), or train another method", bagsField(c, held), trained, why, classes, classes+held)
	case !experiments.CountsInstances(c.Method) && !experiments.IsNewer(c.Method) && c.Hyper.BatchSize > trained:
		return fmt.Errorf("hyper.batch_size: %d bags, but there are %d bags to train on (%s): a minibatch of bags holds at most them all; give a batch size of at most %d",
			c.Hyper.BatchSize, trained, why, trained)
	}
	return nil
}

// bagsSource says where a cell's bags come from, for messages.
func bagsSource(c experiments.Config) string {
	switch {
	case c.Protocol == experiments.GivenProtocol:
		return "data set " + c.Dataset + " gives"
	case c.Protocol == "bags-file":
		return "from the bags file"
	case experiments.VariableBags(c.Protocol):
		return "protocol " + c.Protocol + " makes of data set " + c.Dataset
	}
	return fmt.Sprintf("that num_points %d in bags of bag_size %d make", c.NumPoints, c.BagSize)
}

// bagsField is the setting a shortage of bags is named by.
func bagsField(c experiments.Config, held int) string {
	switch {
	case held > 0:
		return "hyper.val_bags"
	case c.Protocol == "bags-file":
		return "bags file"
	case c.Protocol == experiments.GivenProtocol:
		return "dataset"
	case experiments.VariableBags(c.Protocol):
		return "protocol"
	}
	return "bag_size"
}
