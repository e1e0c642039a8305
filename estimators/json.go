package estimators

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// ReductionJSON is the JSON form of a Reduction printed by
// `llpfc groups --json` (the contract of the command):
//
//	{"sigma_hat": [...], "leftover": [bag ids], "generalization_term": g,
//	 "groups": [{"bags": [ids in row order], "members": [[ids] per row],
//	             "sizes": [...], "gamma": [[C×C, row c = proportions of the c-th bag]],
//	             "alpha": [...], "sigma": [...],
//	             "T": [[C×C, T[i][j] = P(noisy=i | clean=j)]],
//	             "weight": w, "diagnostics": {...}}]}
//
// Bags are named by their ids (not positions). For ModeMerge "bags" lists
// every bag id of the group row by row and "members" splits them by row.
// JSON has no infinity: a non-finite diagnostic (a singular matrix) is null.
type ReductionJSON struct {
	Mode               Mode         `json:"mode"`
	Weights            WeightScheme `json:"weights"`
	Compat             Compat       `json:"compat"`
	NumClasses         int          `json:"num_classes"`
	SigmaHat           []float64    `json:"sigma_hat"`
	Leftover           []int        `json:"leftover"`
	GeneralizationTerm float64      `json:"generalization_term"`
	Groups             []GroupJSON  `json:"groups"`
}

// GroupJSON is one group of ReductionJSON.
type GroupJSON struct {
	Bags        []int           `json:"bags"`
	Members     [][]int         `json:"members"`
	Sizes       []int           `json:"sizes"`
	Gamma       [][]float64     `json:"gamma"`
	Alpha       []float64       `json:"alpha"`
	Sigma       []float64       `json:"sigma"`
	T           [][]float64     `json:"T"`
	Weight      float64         `json:"weight"`
	Diagnostics DiagnosticsJSON `json:"diagnostics"`
}

// DiagnosticsJSON is the JSON form of Diagnostics; null means +Inf.
type DiagnosticsJSON struct {
	RankGamma         int      `json:"rank_gamma"`
	CondGamma         *float64 `json:"cond_gamma"`
	RankT             int      `json:"rank_T"`
	CondT             *float64 `json:"cond_T"`
	InvNorm1T         *float64 `json:"inv_norm1_T"`
	CalibrationFactor *float64 `json:"calibration_factor"`
	Lambda0           *float64 `json:"lambda0"`
	AssumptionHolds   bool     `json:"assumption_holds"`
	Residual          float64  `json:"residual"`
	AbsentClasses     []int    `json:"absent_classes"`
	ZeroRows          []int    `json:"zero_rows"`
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func rows(M mat.Matrix) [][]float64 {
	r, _ := M.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = mat.Row(nil, i, M)
	}
	return out
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// JSON returns the JSON form of red.
func (red *Reduction) JSON() ReductionJSON {
	out := ReductionJSON{
		Mode: red.Options.Mode, Weights: red.Options.Weights, Compat: red.Options.Compat,
		NumClasses: red.NumClasses, SigmaHat: red.SigmaHat, Leftover: []int{},
		GeneralizationTerm: red.GeneralizationTerm,
	}
	for _, k := range red.Leftover {
		out.Leftover = append(out.Leftover, red.Set.Bags[k].ID)
	}
	for _, g := range red.Groups {
		gj := GroupJSON{Sizes: g.Sizes, Gamma: rows(g.Gamma), Alpha: g.Alpha, Sigma: g.Sigma, T: rows(g.T), Weight: g.Weight}
		for _, m := range g.Members {
			ids := make([]int, len(m))
			for j, k := range m {
				ids[j] = red.Set.Bags[k].ID
			}
			gj.Members = append(gj.Members, ids)
			gj.Bags = append(gj.Bags, ids...)
		}
		d := g.Diagnostics
		gj.Diagnostics = DiagnosticsJSON{
			RankGamma: d.RankGamma, CondGamma: finite(d.CondGamma), RankT: d.RankT, CondT: finite(d.CondT),
			InvNorm1T: finite(d.InvNorm1T), CalibrationFactor: finite(d.CalibrationFactor), Lambda0: finite(d.Lambda0),
			AssumptionHolds: d.AssumptionHolds, Residual: d.Residual,
			AbsentClasses: nonNil(d.AbsentClasses), ZeroRows: nonNil(d.ZeroRows),
		}
		out.Groups = append(out.Groups, gj)
	}
	return out
}
