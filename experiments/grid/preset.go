package grid

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/experiments"
)

// presetAliases are the appendix's per-data-set names of Table 1's settings
// (App. "Wide ResNet-16-4": the CIFAR10 schedule differs from SVHN's and
// EMNIST's): each is the built-in spec wrn16-4 restricted to one data set.
var presetAliases = map[string]struct{ spec, dataset string }{
	"wrn16-4-cifar":  {"wrn16-4", experiments.CIFAR10},
	"wrn16-4-svhn":   {"wrn16-4", experiments.SVHN},
	"wrn16-4-emnist": {"wrn16-4", experiments.EMNISTLetters},
}

// PresetNames lists the names PresetCell takes: every built-in spec and the
// per-data-set aliases of Table 1, sorted.
func PresetNames() []string {
	names := BuiltinNames()
	for a := range presetAliases {
		names = append(names, a)
	}
	sort.Strings(names)
	return names
}

// PresetCell returns the configuration of one cell of the built-in spec
// called name (a table of the paper, `fashion-mnist`, `quick`, …): the cell
// of data set dataset, method and bag size bagSize, with the given seed. It
// is the one definition of a table's settings that `llpfc train --preset`
// applies, so a preset run is the table cell. dataset ""
// means the spec's only data set (or the alias's); "fixture" names the
// embedded Fashion-MNIST subset.
func PresetCell(name, dataset, method string, bagSize int, seed int64) (experiments.Config, error) {
	specName := name
	if a, ok := presetAliases[name]; ok {
		specName = a.spec
		if dataset != "" && dataset != a.dataset {
			return experiments.Config{}, fmt.Errorf("preset %s is the %s setting; the data set is %s", name, a.dataset, dataset)
		}
		dataset = a.dataset
	}
	s, ok := BuiltinSpec(specName)
	if !ok {
		return experiments.Config{}, fmt.Errorf("preset %q: unknown (want one of %s)", name, strings.Join(PresetNames(), ", "))
	}
	if dataset == "fixture" {
		dataset = experiments.FashionFixture
	}
	if dataset == "" {
		if len(s.Datasets) != 1 {
			return experiments.Config{}, fmt.Errorf("preset %s covers the data sets %s: name one", name, strings.Join(s.Datasets, ", "))
		}
		dataset = s.Datasets[0]
	}
	cells, err := s.Cells()
	if err != nil {
		return experiments.Config{}, err
	}
	var sizes []string
	for _, c := range cells {
		cc := c.Config
		if cc.Dataset != dataset || cc.Method != method {
			continue
		}
		if cc.BagSize == bagSize {
			cc.Seed = seed
			return cc, nil
		}
		if !slices.Contains(sizes, fmt.Sprint(cc.BagSize)) {
			sizes = append(sizes, fmt.Sprint(cc.BagSize))
		}
	}
	switch {
	case !slices.Contains(s.Datasets, dataset):
		return experiments.Config{}, fmt.Errorf("preset %s has no data set %s (it has %s)", name, dataset, strings.Join(s.Datasets, ", "))
	case !slices.Contains(s.Methods, method):
		return experiments.Config{}, fmt.Errorf("preset %s has no method %s (it has %s)", name, method, strings.Join(s.Methods, ", "))
	}
	return experiments.Config{}, fmt.Errorf("preset %s has no bag size %d (it has %s)", name, bagSize, strings.Join(sizes, ", "))
}
