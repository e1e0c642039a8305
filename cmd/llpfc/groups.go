package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
)

func init() {
	register(command{
		name:    "groups",
		summary: "partition a bags file into LLPFC groups and print Γ̂, α̂, σ̂, T̂, weights and diagnostics",
		run:     runGroups,
	})
}

const groupsUsage = `groups (--bags FILE | --data bags:PATH) --mode {ideal,uniform,approx,merge} [--weights {uniform,hm,chvol}] [--seed S] [--json] [--compat {paper,original}] [--trouble-rounds R]`

const groupsSynopsis = `Reads a bags file ({"num_classes": C, "bags": [{"id", "size", "proportions", "indices"}...]}),
or the bags of a bag-only data set (--data bags:PATH: instances, a bag id per instance and a
row of proportions per bag, no instance labels; see llpfc train -h), partitions the bags
uniformly at random into groups of C bags (Algorithm 1, line 2; the leftover bags are
reported), and for every group computes Γ̂_i, the noisy prior α̂_i by the chosen mode, σ̂_i =
Γ̂_iᵀα̂_i and the noise transition matrix T̂_i (Algorithms 1–3 of Zhang, Wang, Scott 2022), the
group weight, and diagnostics: rank and condition number of Γ̂ and T̂, ‖T̂⁻¹‖₁, the calibration
factor √2‖T̂⁻¹‖₁, |λ|₀, and whether Assumption 'grouping assumption: ch' holds. First it
predicts trouble: the distribution of ‖T̂⁻¹‖₁ over R random groupings (T̂ of the uniform noisy
prior whatever --mode is: the bags' conditioning, since approx's zero entries of α̂ make its T̂
singular by design), with a warning when the median is large (near-uniform bags, where LLPFC
breaks). Exit status 2 on invalid input (one line naming the bag and the rule), 1 when mode
ideal meets a group where the Assumption fails.`

// groupsOptions parses --mode, --weights and --compat; each error names its
// flag.
func groupsOptions(mode, weights, compat string) (estimators.Options, error) {
	if mode == "" {
		return estimators.Options{}, fmt.Errorf("--mode is required: one of ideal, uniform, approx, merge (Algorithms 1–3 of the paper and the merged groups)")
	}
	m, err := estimators.ParseMode(mode)
	if err != nil {
		return estimators.Options{}, fmt.Errorf("--mode: %w", err)
	}
	w, err := estimators.ParseWeights(weights)
	if err != nil {
		return estimators.Options{}, fmt.Errorf("--weights: %w", err)
	}
	c, err := estimators.ParseCompat(compat)
	if err != nil {
		return estimators.Options{}, fmt.Errorf("--compat: %w", err)
	}
	return estimators.Options{Mode: m, Weights: w, Compat: c}, nil
}

func runGroups(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet(groupsUsage, groupsSynopsis, stderr)
	bagsPath := fs.String("bags", "", "path of the bags file (JSON, see above); this or --data is required")
	dataName := fs.String("data", "", "a bag-only data set, bags:PATH (an .npz file or directory with X, bag and proportions arrays, or TRAIN,PROPORTIONS[,TEST] CSV or Parquet tables), whose bags are read instead of a bags file")
	mode := fs.String("mode", "", "how the noisy prior α̂ of a group is set: ideal (α = Γ̂⁻ᵀσ̂, Algorithm 1; fails if not in the open simplex), uniform (α̂(c) = |b|/n_i, Algorithm 2), approx (argmin over the simplex of ‖σ̂ − Γ̂ᵀα‖², Algorithm 3), merge (all bags merged into C mega-bags, the authors' code); required")
	weights := fs.String("weights", "uniform", "group weights: uniform (1/N), hm (∝ harmonic mean of the group's bag sizes, optimal for the generalization term of Theorem 'thm: geb'), chvol (∝ volume of the convex hull of the group's proportions)")
	seed := fs.Int64("seed", 1, "seed of the random partition (stream \"groups\"); the same seed gives the same groups")
	asJSON := fs.Bool("json", false, "print the partition as JSON ({sigma_hat, leftover, groups: [{bags, gamma, alpha, sigma, T, weight, diagnostics}]}) instead of a table")
	compat := fs.String("compat", "paper", "paper (the algorithms of the paper) or original (the authors' code at commit 1d0cbc5 where it differs: uniform α = 1/C, approx fits Γ̂α (untransposed), instance weights α(c)/|b_c| normalised per group, merge α = Γ^{-tr}σ̂; only uniform group weights; see PAPER_MAP.md)")
	rounds := fs.Int("trouble-rounds", 20, "number of random groupings (rounds 0…R−1 of --seed) over which ‖T̂⁻¹‖₁ is summarized before the table, to predict trouble before training (table output only, not with --json); 0 skips it")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	fail := func(status int, err error) int {
		fmt.Fprintf(stderr, "llpfc groups: %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return status
	}
	opts, err := groupsOptions(*mode, *weights, *compat)
	if err != nil {
		return fail(exitBadUsage, err)
	}
	if *rounds < 0 {
		return fail(exitBadUsage, fmt.Errorf("--trouble-rounds is %d, want ≥ 0", *rounds))
	}
	set, source, err := groupsSet(*bagsPath, *dataName)
	if err != nil {
		return fail(exitBadUsage, err)
	}
	*bagsPath = source
	if *rounds > 0 && !*asJSON { // --json prints one JSON document and nothing else
		if err := printTrouble(stdout, set, estimators.Options{Mode: estimators.ModeUniform, Weights: opts.Weights, Compat: opts.Compat}, *seed, *rounds); err != nil {
			return fail(exitBadUsage, fmt.Errorf("%s: %w", *bagsPath, err))
		}
	}
	red, err := estimators.BuildSeed(set, opts, *seed)
	if err != nil {
		var in *estimators.InputError
		if errors.As(err, &in) {
			return fail(exitBadUsage, fmt.Errorf("%s: %w", *bagsPath, err))
		}
		return fail(exitFailed, fmt.Errorf("%s: %w", *bagsPath, err))
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(red.JSON()); err != nil {
			return fail(exitFailed, err)
		}
		return exitOK
	}
	printGroupsTable(stdout, red)
	return exitOK
}

// groupsSet reads the bags of --bags FILE or --data bags:PATH (exactly one
// must be given) and returns them with their source for messages.
func groupsSet(bagsPath, dataName string) (*estimators.BagSet, string, error) {
	switch {
	case bagsPath == "" && dataName == "":
		return nil, "", errors.New("--bags FILE or --data bags:PATH is required")
	case bagsPath != "" && dataName != "":
		return nil, "", errors.New("--bags and --data both name bags: give one")
	case dataName != "":
		set, err := bagOnlySet(dataName)
		return set, dataName, err
	}
	set, err := estimators.ReadBagSetFile(bagsPath)
	return set, bagsPath, err
}

func fmtVec(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.4f", x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func printGroupsTable(w io.Writer, red *estimators.Reduction) {
	j := red.JSON()
	fmt.Fprintf(w, "mode %s, weights %s, compat %s; C = %d, %d bags, %d groups\n", j.Mode, j.Weights, j.Compat, red.NumClasses, len(red.Set.Bags), len(red.Groups))
	fmt.Fprintf(w, "σ̂ = %s\n", fmtVec(red.SigmaHat))
	fmt.Fprintf(w, "leftover bags: %v\n", j.Leftover)
	fmt.Fprintf(w, "generalization term √(Σ w_i² Σ_c α_i(c)²/n_ic) = %.4g\n\n", red.GeneralizationTerm)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tbags\tweight\tα̂\trank Γ̂\tcond Γ̂\tcond T̂\t‖T̂⁻¹‖₁\t√2‖T̂⁻¹‖₁\t|λ|₀\tassumption\tabsent classes\tzero rows\t")
	for i, g := range red.Groups {
		d := g.Diagnostics
		bags := fmt.Sprint(j.Groups[i].Bags)
		if red.Options.Mode == estimators.ModeMerge {
			bags = fmt.Sprint(j.Groups[i].Members)
		}
		fmt.Fprintf(tw, "%d\t%s\t%.4g\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%v\t%v\t%v\t\n", i, bags, g.Weight, fmtVec(g.Alpha),
			d.RankGamma, fmtNum(d.CondGamma), fmtNum(d.CondT), fmtNum(d.InvNorm1T), fmtNum(d.CalibrationFactor), fmtNum(d.Lambda0),
			d.AssumptionHolds, nonEmpty(d.AbsentClasses), nonEmpty(d.ZeroRows))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nabsent classes: σ̂_i(c) = 0, column c of T̂_i set to e_c; zero rows: α̂_i(c) = 0, those instances get weight 0")
}

func nonEmpty(s []int) string {
	if len(s) == 0 {
		return "-"
	}
	return fmt.Sprint(s)
}

// bagOnlySet returns the bags of the bag-only data set name (groups --data).
func bagOnlySet(name string) (*estimators.BagSet, error) {
	if !experiments.IsBagOnly(name) {
		return nil, fmt.Errorf("--data %s: groups reads a bag-only data set (bags:PATH); for a labelled set, draw a bags file with llpfc bags and pass --bags FILE", name)
	}
	d, err := data.Load(name, "", data.Train)
	if err != nil {
		return nil, err
	}
	return d.Bags, nil
}
