package binary

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/llpfc/llpfc/fixtures/paper"
)

// Stat is the mean and population standard deviation (numpy's default,
// ddof = 0) of the AUC over a cell's trials.
type Stat struct {
	Mean, Std float64
	N         int
}

func stat(v []float64) Stat {
	s := Stat{N: len(v)}
	for _, x := range v {
		s.Mean += x / float64(len(v))
	}
	for _, x := range v {
		s.Std += (x - s.Mean) * (x - s.Mean) / float64(len(v))
	}
	s.Std = math.Sqrt(s.Std)
	return s
}

// Report renders the results of s found in st as markdown: per data set and
// interval a table with one row per method and one column per bag size,
// "ours mean ± std (trials) / paper mean ± std" (the paper's Table
// `tab:binary exp` for adult and magic only), then the hyperparameters
// cross-validation selected. It also returns the number of cells missing.
func Report(s *Spec, st Store) (string, int, error) {
	type key struct {
		ds     string
		iv     Interval
		method string
		bag    int
	}
	aucs := map[key][]float64{}
	sel := map[key][]string{}
	missing := 0
	wall := 0.0
	for _, c := range s.Cells() {
		r, err := st.Load(c)
		if err != nil {
			return "", 0, err
		}
		if r == nil {
			missing++
			continue
		}
		k := key{c.Dataset, c.Interval, c.Method, c.BagSize}
		aucs[k] = append(aucs[k], r.AUC)
		sel[k] = append(sel[k], r.Selected.String())
		wall += r.WallSeconds
	}
	pe, err := paper.BinaryEntries()
	if err != nil {
		return "", 0, err
	}
	pv := map[key]paper.BinaryEntry{}
	for _, e := range pe {
		pv[key{e.Dataset, Interval{e.LPLow, e.LPHigh}, e.Method, e.BagSize}] = e
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Binary experiment (Table `tab:binary exp`): test AUC\n\n")
	fmt.Fprintf(&b, "Each cell: ours, mean ± std (ddof 0) over the trials finished (n), and where the paper has the cell, its value after the slash. ")
	fmt.Fprintf(&b, "Hyperparameters by %d-fold bag-level cross-validation; %d cells missing; Σ wall time of the cells %.0f s.\n\n", max(s.Folds, 1), missing, wall)
	for _, ds := range s.Datasets {
		for _, iv := range s.Intervals {
			fmt.Fprintf(&b, "## %s, label proportions in %v\n\n| method |", ds, iv)
			for _, bs := range s.BagSizes {
				fmt.Fprintf(&b, " %d |", bs)
			}
			b.WriteString("\n|---|")
			for range s.BagSizes {
				b.WriteString("---|")
			}
			b.WriteString("\n")
			for _, m := range s.Methods {
				fmt.Fprintf(&b, "| %s |", m)
				for _, bs := range s.BagSizes {
					k := key{ds, iv, m, bs}
					cell := "—"
					if v := aucs[k]; len(v) > 0 {
						st := stat(v)
						cell = fmt.Sprintf("%.4f ± %.4f (%d)", st.Mean, st.Std, st.N)
					}
					if e, ok := pv[k]; ok {
						cell += fmt.Sprintf(" / %.4f ± %.4f", e.Mean, e.Std)
					}
					fmt.Fprintf(&b, " %s |", cell)
				}
				b.WriteString("\n")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("## Selected hyperparameters (one per trial)\n\n")
	var keys []key
	for k := range sel {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := keys[i], keys[j]
		if a.ds != c.ds {
			return a.ds < c.ds
		}
		if a.iv != c.iv {
			return a.iv.Lo < c.iv.Lo
		}
		if a.method != c.method {
			return a.method < c.method
		}
		return a.bag < c.bag
	})
	for _, k := range keys {
		fmt.Fprintf(&b, "- %s %v bag %d %s: %s\n", k.ds, k.iv, k.bag, k.method, strings.Join(sel[k], "; "))
	}
	return b.String(), missing, nil
}
