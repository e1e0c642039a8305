package experiments

import (
	"fmt"
	"sort"
	"strings"
)

// presetAliases are the appendix's per-data-set names of Table 1's settings
// (App. "Wide ResNet-16-4": the CIFAR10 schedule differs from SVHN's and
// EMNIST's): each is the built-in spec wrn16-4 restricted to one data set.
var presetAliases = map[string]struct{ spec, dataset string }{
	"wrn16-4-cifar":  {"wrn16-4", CIFAR10},
	"wrn16-4-svhn":   {"wrn16-4", SVHN},
	"wrn16-4-emnist": {"wrn16-4", EMNISTLetters},
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
// applies (issues 19 and 20), so a preset run is the table cell. dataset ""
// means the spec's only data set (or the alias's); "fixture" names the
// embedded Fashion-MNIST subset.
func PresetCell(name, dataset, method string, bagSize int, seed int64) (Config, error) {
	specName := name
	if a, ok := presetAliases[name]; ok {
		specName = a.spec
		if dataset != "" && dataset != a.dataset {
			return Config{}, fmt.Errorf("preset %s is the %s setting; the data set is %s", name, a.dataset, dataset)
		}
		dataset = a.dataset
	}
	s, ok := BuiltinSpec(specName)
	if !ok {
		return Config{}, fmt.Errorf("preset %q: unknown (want one of %s)", name, strings.Join(PresetNames(), ", "))
	}
	if dataset == "fixture" {
		dataset = FashionFixture
	}
	if dataset == "" {
		if len(s.Datasets) != 1 {
			return Config{}, fmt.Errorf("preset %s covers the data sets %s: name one", name, strings.Join(s.Datasets, ", "))
		}
		dataset = s.Datasets[0]
	}
	cells, err := s.Cells()
	if err != nil {
		return Config{}, err
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
		if !containsStr(sizes, fmt.Sprint(cc.BagSize)) {
			sizes = append(sizes, fmt.Sprint(cc.BagSize))
		}
	}
	switch {
	case !containsStr(s.Datasets, dataset):
		return Config{}, fmt.Errorf("preset %s has no data set %s (it has %s)", name, dataset, strings.Join(s.Datasets, ", "))
	case !containsStr(s.Methods, method):
		return Config{}, fmt.Errorf("preset %s has no method %s (it has %s)", name, method, strings.Join(s.Methods, ", "))
	}
	return Config{}, fmt.Errorf("preset %s has no bag size %d (it has %s)", name, bagSize, strings.Join(sizes, ", "))
}
