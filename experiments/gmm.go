package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// GMM are the parameters of the synthetic data set "gmm:…"
// (learn.GaussianMixture generates it): Classes equiprobable classes in
// R^Dim, Train and Test points, the class means at distance Sep from the
// origin.
type GMM struct {
	Classes, Dim, Train, Test int
	Sep                       float64
}

// ParseGMM reads the parameters of the data set named
// "gmm:classes=C,dim=D,train=N,test=M,sep=S" (every key optional: classes=3,
// dim=5, train=3000, test=1000, sep=3). Config.Validate calls it, so a spec
// with a bad one fails before any cell runs.
func ParseGMM(name string) (GMM, error) {
	p := map[string]float64{"classes": 3, "dim": 5, "train": 3000, "test": 1000, "sep": 3}
	body := strings.TrimPrefix(name, "gmm:")
	if body != "" {
		for _, kv := range strings.Split(body, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if _, known := p[k]; !ok || !known {
				return GMM{}, fmt.Errorf("dataset %q: %q is not key=value with key classes, dim, train, test or sep", name, kv)
			}
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return GMM{}, fmt.Errorf("dataset %q: %s=%q, want a finite number ≥ 0", name, k, v)
			}
			p[k] = x
		}
	}
	const most = 1 << 40 // far above any memory: CheckSize bounds what fits
	for _, k := range []string{"classes", "dim", "train", "test"} {
		if p[k] != math.Trunc(p[k]) || p[k] > most {
			return GMM{}, fmt.Errorf("dataset %q: %s=%v, want an integer", name, k, p[k])
		}
	}
	g := GMM{Classes: int(p["classes"]), Dim: int(p["dim"]), Train: int(p["train"]), Test: int(p["test"]), Sep: p["sep"]}
	if g.Classes < 2 || g.Dim < 1 || g.Train < 1 || g.Test < 1 {
		return GMM{}, fmt.Errorf("dataset %q: want integers classes ≥ 2, dim ≥ 1, train ≥ 1, test ≥ 1", name)
	}
	return g, nil
}
