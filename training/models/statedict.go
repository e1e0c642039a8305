package models

import (
	"fmt"
	"strconv"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// StateTensor is one entry of a PyTorch state_dict: its key, its shape
// and its values in PyTorch's row-major layout. Float entries (weights,
// biases, running statistics) hold Data; a batch-norm layer's
// num_batches_tracked holds Count (an int64 scalar in PyTorch).
type StateTensor struct {
	Name  string
	Shape []int
	Data  []float32
	// Count is set for num_batches_tracked entries (Data is nil).
	Count *int64
}

// torchModule is one module with parameters of the equivalent PyTorch
// network, by its state_dict prefix; exactly one of conv, dense, bn is set.
type torchModule struct {
	name  string
	conv  *nn.Conv
	dense *nn.Dense
	bn    *nn.BatchNorm
}

// torchNamed is implemented by the architectures that export their weights.
type torchNamed interface {
	torchModules() []torchModule
}

// StateDict returns m's parameters and batch-norm buffers named, ordered and
// laid out as the state_dict of the equivalent PyTorch module, so
// that
//
//	model.load_state_dict({k: torch.from_numpy(v) for k, v in np.load(F).items()})
//
// loads them. For wrn-16-4, resnet18 and vgg16 the module is the authors'
// class at 1d0cbc5 (models/WideRes.py wide_resnet_d_w(16, 4, …),
// models/ResNet.py resnet18, models/vgg.py vgg16_bn); for the networks the
// authors do not have it is this torch.nn.Sequential (D inputs, C classes,
// images of H×W with Ch channels):
//
//	mlp:    Sequential(Flatten(), Linear(D, 512), ReLU(), Linear(512, 256), ReLU(), Linear(256, C))
//	cnn:    Sequential(Conv2d(Ch, 32, 3, padding=1), ReLU(), MaxPool2d(2),
//	                   Conv2d(32, 64, 3, padding=1), ReLU(), MaxPool2d(2),
//	                   Flatten(), Linear(64·⌊H/4⌋·⌊W/4⌋, 128), ReLU(), Linear(128, C))
//	cnn-bn: the cnn with BatchNorm2d(32) and BatchNorm2d(64) before the two convolutions' ReLUs
//
// fixtures/authors/state_dicts.py builds all six in PyTorch and records
// their keys and shapes (TestStateDictMatchesPyTorch). Layouts: a
// convolution's weight is out×in×k×k here as there; a linear layer's weight
// is stored in×out here and transposed to PyTorch's out×in; biases and
// batch-norm vectors become 1-D. num_batches_tracked is the number of
// batches the layer's running averages folded in this process (PyTorch
// reads it only when momentum is None, which none of these modules uses).
func StateDict(m nn.Model) ([]StateTensor, error) {
	tn, ok := m.(torchNamed)
	if !ok {
		return nil, fmt.Errorf("model %s: no PyTorch equivalent to export its weights to", m.Name())
	}
	var out []StateTensor
	for _, mod := range tn.torchModules() {
		ts, err := mod.tensors()
		if err != nil {
			return nil, fmt.Errorf("model %s, module %s: %w", m.Name(), mod.name, err)
		}
		out = append(out, ts...)
	}
	return out, nil
}

// CanExport reports, without building it, whether the architecture name
// has a PyTorch equivalent StateDict writes (every registered one but
// LLP-GAN's networks).
func CanExport(name string) error {
	switch name {
	case ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16:
		return nil
	}
	return fmt.Errorf("model %s: no PyTorch equivalent to export its weights to (exportable: %s, %s, %s, %s, %s, %s)", name,
		ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16)
}

// LoadStateDict sets m's parameters and batch-norm buffers from a
// state_dict laid out as StateDict writes it: every key must be present
// with its shape, and no other key (a file of another architecture or
// class count is an error naming the first difference).
func LoadStateDict(m nn.Model, ts []StateTensor) error {
	want, err := StateDict(m)
	if err != nil {
		return err
	}
	byName := map[string]StateTensor{}
	for _, t := range ts {
		if _, dup := byName[t.Name]; dup {
			return fmt.Errorf("state dict: key %s twice", t.Name)
		}
		byName[t.Name] = t
	}
	for _, w := range want {
		if _, ok := byName[w.Name]; !ok {
			return fmt.Errorf("state dict: no %s (model %s wants %d keys; is the file another architecture?)", w.Name, m.Name(), len(want))
		}
	}
	if len(byName) != len(want) {
		for n := range byName {
			if !containsName(want, n) {
				return fmt.Errorf("state dict: key %s is not a tensor of model %s", n, m.Name())
			}
		}
	}
	for _, w := range want {
		t := byName[w.Name]
		if !sameShape(t.Shape, w.Shape) {
			return fmt.Errorf("state dict: %s has shape %v, model %s wants %v (another number of classes or input size?)", w.Name, t.Shape, m.Name(), w.Shape)
		}
		if (t.Count == nil) != (w.Count == nil) || (w.Count == nil && len(t.Data) != len(w.Data)) {
			return fmt.Errorf("state dict: %s has the wrong element type or size", w.Name)
		}
	}
	for _, mod := range m.(torchNamed).torchModules() {
		if err := mod.load(byName); err != nil {
			return fmt.Errorf("model %s, module %s: %w", m.Name(), mod.name, err)
		}
	}
	return nil
}

func containsName(ts []StateTensor, n string) bool {
	for _, t := range ts {
		if t.Name == n {
			return true
		}
	}
	return false
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// f32 returns the float32 values of a parameter or buffer node.
func f32(n *gorgonia.Node) ([]float32, error) {
	d, ok := n.Value().Data().([]float32)
	if !ok {
		return nil, fmt.Errorf("%s is not float32", n.Name())
	}
	return d, nil
}

// tensors returns the module's state_dict entries in PyTorch's order:
// weight, bias, then a batch norm's running_mean, running_var and
// num_batches_tracked.
func (mod torchModule) tensors() ([]StateTensor, error) {
	var out []StateTensor
	add := func(suffix string, n *gorgonia.Node, shape []int) error {
		d, err := f32(n)
		if err != nil {
			return err
		}
		out = append(out, StateTensor{Name: mod.name + "." + suffix, Shape: shape, Data: append([]float32(nil), d...)})
		return nil
	}
	var err error
	switch {
	case mod.conv != nil:
		s := mod.conv.W.Shape()
		if err = add("weight", mod.conv.W, []int{s[0], s[1], s[2], s[3]}); err == nil && mod.conv.B != nil {
			err = add("bias", mod.conv.B, []int{s[0]})
		}
	case mod.dense != nil:
		s := mod.dense.W.Shape() // in×out here, out×in in PyTorch
		var w []float32
		if w, err = f32(mod.dense.W); err == nil {
			out = append(out, StateTensor{Name: mod.name + ".weight", Shape: []int{s[1], s[0]}, Data: transpose(w, s[0], s[1])})
			err = add("bias", mod.dense.B, []int{s[1]})
		}
	case mod.bn != nil:
		c := []int{mod.bn.C}
		if mod.bn.Gamma != nil {
			err = add("weight", mod.bn.Gamma, c)
		}
		for _, e := range []struct {
			suffix string
			n      *gorgonia.Node
		}{{"bias", mod.bn.Beta}, {"running_mean", mod.bn.RunMean}, {"running_var", mod.bn.RunVar}} {
			if err == nil {
				err = add(e.suffix, e.n, c)
			}
		}
		count := mod.bn.Tracked
		out = append(out, StateTensor{Name: mod.name + ".num_batches_tracked", Shape: []int{}, Count: &count})
	}
	return out, err
}

// load copies the module's entries of byName into its nodes.
func (mod torchModule) load(byName map[string]StateTensor) error {
	set := func(suffix string, n *gorgonia.Node) error {
		d, err := f32(n)
		if err != nil {
			return err
		}
		copy(d, byName[mod.name+"."+suffix].Data)
		return nil
	}
	switch {
	case mod.conv != nil:
		if err := set("weight", mod.conv.W); err != nil || mod.conv.B == nil {
			return err
		}
		return set("bias", mod.conv.B)
	case mod.dense != nil:
		s := mod.dense.W.Shape()
		d, err := f32(mod.dense.W)
		if err != nil {
			return err
		}
		copy(d, transpose(byName[mod.name+".weight"].Data, s[1], s[0]))
		return set("bias", mod.dense.B)
	case mod.bn != nil:
		if mod.bn.Gamma != nil {
			if err := set("weight", mod.bn.Gamma); err != nil {
				return err
			}
		}
		for suffix, n := range map[string]*gorgonia.Node{"bias": mod.bn.Beta, "running_mean": mod.bn.RunMean, "running_var": mod.bn.RunVar} {
			if err := set(suffix, n); err != nil {
				return err
			}
		}
		mod.bn.Tracked = *byName[mod.name+".num_batches_tracked"].Count
	}
	return nil
}

// transpose returns the cols×rows transpose of the rows×cols matrix a.
func transpose(a []float32, rows, cols int) []float32 {
	t := make([]float32, len(a))
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			t[j*rows+i] = a[i*cols+j]
		}
	}
	return t
}

func (m *mlp) torchModules() []torchModule {
	return []torchModule{{name: "1", dense: m.layers[0]}, {name: "3", dense: m.layers[1]}, {name: "5", dense: m.layers[2]}}
}

func (m *cnn) torchModules() []torchModule {
	return []torchModule{{name: "0", conv: m.conv1}, {name: "3", conv: m.conv2}, {name: "7", dense: m.fc1}, {name: "9", dense: m.fc2}}
}

func (m *cnnBN) torchModules() []torchModule {
	return []torchModule{
		{name: "0", conv: m.conv1}, {name: "1", bn: m.norms[0]},
		{name: "4", conv: m.conv2}, {name: "5", bn: m.norms[1]},
		{name: "9", dense: m.fc1}, {name: "11", dense: m.fc2},
	}
}

func (m *WideResNet) torchModules() []torchModule {
	mods := []torchModule{{name: "conv1", conv: m.conv1}}
	n := (m.depth - 4) / 6
	for i, b := range m.blocks {
		p := "layer" + strconv.Itoa(i/n+1) + "." + strconv.Itoa(i%n)
		mods = append(mods, torchModule{name: p + ".bn1", bn: b.bn1}, torchModule{name: p + ".conv1", conv: b.conv1},
			torchModule{name: p + ".bn2", bn: b.bn2}, torchModule{name: p + ".conv2", conv: b.conv2})
		if b.shortcut != nil {
			mods = append(mods, torchModule{name: p + ".shortcut.0", conv: b.shortcut})
		}
	}
	return append(mods, torchModule{name: "bn1", bn: m.bnOut}, torchModule{name: "linear", dense: m.fc})
}

func (m *ResNet18) torchModules() []torchModule {
	mods := []torchModule{{name: "conv1", conv: m.stem}, {name: "bn1", bn: m.stemBN}}
	for i, b := range m.blocks {
		p := "layer" + strconv.Itoa(i/2+1) + "." + strconv.Itoa(i%2)
		mods = append(mods, torchModule{name: p + ".conv1", conv: b.conv1}, torchModule{name: p + ".bn1", bn: b.bn1},
			torchModule{name: p + ".conv2", conv: b.conv2}, torchModule{name: p + ".bn2", bn: b.bn2})
		if b.down != nil {
			mods = append(mods, torchModule{name: p + ".downsample.0", conv: b.down}, torchModule{name: p + ".downsample.1", bn: b.downBN})
		}
	}
	return append(mods, torchModule{name: "fc", dense: m.fc})
}

// torchModules follows make_layers (models/vgg.py@1d0cbc5): each number of
// the configuration adds Conv2d, BatchNorm2d and ReLU to features, each
// pool one MaxPool2d; the classifier is Linear, ReLU, Dropout, Linear,
// ReLU, Dropout, Linear.
func (m *VGG16) torchModules() []torchModule {
	var mods []torchModule
	idx, k := 0, 0
	for _, v := range vgg16Config {
		if v == 0 {
			idx++
			continue
		}
		mods = append(mods, torchModule{name: "features." + strconv.Itoa(idx), conv: m.convs[k]},
			torchModule{name: "features." + strconv.Itoa(idx+1), bn: m.convBNs[k]})
		idx += 3
		k++
	}
	return append(mods, torchModule{name: "classifier.0", dense: m.fc[0]}, torchModule{name: "classifier.3", dense: m.fc[1]},
		torchModule{name: "classifier.6", dense: m.fc[2]})
}

// prod returns the number of values of an array of the given shape (1 for
// a scalar).
func prod(s []int) int {
	p := 1
	for _, v := range s {
		p *= v
	}
	return p
}
