package experiments

import (
	"fmt"
	"strings"

	"github.com/llpfc/llpfc/experiments/bagproto"
	"github.com/llpfc/llpfc/experiments/data"
)

// Cells whose bags are not B-sized draws (issue 28): a bag-only data set
// (bags:…, data.ReadBagOnly) gives its own bags, recorded as the protocol
// "given"; the feature and kmeans protocols make bags of varying sizes from
// a labelled set's features. Such a cell has bag size 0 (a report's column
// "varying"); its NumPoints is the instances the protocol takes (0: all of
// the training split; always 0 for given bags).

// GivenProtocol is the protocol of a bag-only data set's cells: the bags the
// data set gives.
const GivenProtocol = "given"

// IsBagOnly reports whether the data set name is a bag-only set (bags:…).
func IsBagOnly(name string) bool { return strings.HasPrefix(name, "bags:") }

// VariableBags reports whether protocol makes bags of varying sizes: given
// bags, feature:… and kmeans:K.
func VariableBags(protocol string) bool {
	if protocol == GivenProtocol {
		return true
	}
	p, err := bagproto.ParseProtocol(protocol)
	return err == nil && p.VariableSize()
}

// featureBags makes the bags of the feature and kmeans protocols from the
// labelled split d.
func featureBags(d *data.Dataset, c Config, proto bagproto.Protocol) (*bagproto.Result, error) {
	cfg := bagproto.Config{Protocol: proto, NumPoints: c.NumPoints, Seed: c.Seed}
	if proto.Kind == bagproto.KMeansKind {
		return bagproto.MakeKMeans(d.Y, d.NumClasses, d.X, d.D, cfg)
	}
	keys, err := d.FeatureKeys(proto.Columns)
	if err != nil {
		return nil, err
	}
	return bagproto.MakeFeature(d.Y, d.NumClasses, keys, cfg)
}

// givenBags returns the bags of a bag-only training split.
func givenBags(d *data.Dataset, c Config) (*bagproto.Result, error) {
	if d.Bags == nil {
		return nil, fmt.Errorf("dataset %s: protocol %s, but the data set has no bags of its own", c.Dataset, GivenProtocol)
	}
	set := *d.Bags
	return &bagproto.Result{Bags: &set, Redraws: make([]int, len(set.Bags))}, nil
}

// cellExtra is a cell's Metrics.Extra: the bags redrawn, the parameter
// count, and the instances the feature protocol's size bounds dropped (only
// when some were).
func cellExtra(prob *Problem, params int) map[string]float64 {
	extra := map[string]float64{"bag_redraws": float64(prob.BagRedraws), "param_count": float64(params)}
	if prob.BagsDropped > 0 {
		extra["bag_dropped_instances"] = float64(prob.BagsDropped)
	}
	return extra
}
