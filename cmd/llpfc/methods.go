package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training/methods"
)

func init() {
	register(command{name: "methods", summary: "list the training methods, their minibatches, settings, presets and search spaces", run: runMethods})
}

const methodsSynopsis = `Lists the training methods --method, a spec's "methods" and the report's rows know,
each from its descriptor (training/methods): its name and label, family, what its
minibatch counts and its default, the settings it reads, what it implements, its authors'
preset where it has one, the learning rates the comparison tunes it over, and the back
ends it runs on. --json writes the same as a JSON array (the Python client reads it);
--markdown the table of docs/methods.md ("The methods").`

func runMethods(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("methods [--json | --markdown]", methodsSynopsis, stderr)
	asJSON := fs.Bool("json", false, "write the descriptors as a JSON array")
	asMarkdown := fs.Bool("markdown", false, "write the table of methods of docs/methods.md")
	if ok, status := parseFlags(fs, args); !ok {
		return status
	}
	switch {
	case *asJSON && *asMarkdown:
		return exitWith(stderr, "llpfc methods", usagef("--json and --markdown: choose one"))
	case *asJSON:
		return writeMethodsJSON(stdout, stderr)
	case *asMarkdown:
		writeMethodsMarkdown(stdout)
	default:
		writeMethodsText(stdout)
	}
	return exitOK
}

// methodJSON is one method of `llpfc methods --json`.
type methodJSON struct {
	Name         string          `json:"name"`
	Label        string          `json:"label"`
	Family       methods.Family  `json:"family"`
	Batch        methods.Unit    `json:"batch_unit"`
	DefaultBatch int             `json:"default_batch"`
	Settings     []settingJSON   `json:"settings"`
	Help         string          `json:"help"`
	Paper        string          `json:"paper"`
	Code         string          `json:"code,omitempty"`
	Authors      *methods.Preset `json:"authors_preset,omitempty"`
	SearchLR     []float64       `json:"search_lr"`
	SearchBatch  []int           `json:"search_batch,omitempty"`
	Backends     []string        `json:"backends"`
	UsesLabels   bool            `json:"uses_labels"`
}

// settingJSON is one setting of a method of `llpfc methods --json`: its
// declaration (methods.Setting).
type settingJSON struct {
	Name    string       `json:"name"`
	Kind    methods.Kind `json:"kind"`
	Choices []string     `json:"choices,omitempty"`
	Default string       `json:"default"`
	// Want says what a valid value is ("a number ≥ 0", "exact or fft").
	Want string `json:"want"`
	Help string `json:"help"`
	// Flag is its llpfc train flag (--NAME), empty for a shared setting
	// (Shared: train defines its flag itself, as --regroup-every).
	Flag   string `json:"flag,omitempty"`
	Shared bool   `json:"shared,omitempty"`
	// Path is its place in a spec's and a cell's JSON (hyper.NAME or
	// hyper.settings.NAME).
	Path string `json:"path"`
}

func settingsJSON(ss []*methods.Setting) []settingJSON {
	out := []settingJSON{}
	for _, s := range ss {
		j := settingJSON{Name: s.Name, Kind: s.Kind, Choices: s.Choices, Default: s.Default, Want: s.Want(), Help: s.Help,
			Shared: s.Shared, Path: experiments.SettingPath(s)}
		if !s.Shared {
			j.Flag = "--" + s.FlagName()
		}
		out = append(out, j)
	}
	return out
}

func writeMethodsJSON(stdout, stderr io.Writer) int {
	var out []methodJSON
	for _, d := range methods.All() {
		out = append(out, methodJSON{Name: d.Name, Label: d.Label, Family: d.Family, Batch: d.Batch,
			DefaultBatch: d.DefaultBatch, Settings: settingsJSON(d.Settings), Help: d.Help,
			Paper: d.Paper, Code: d.Code, Authors: d.Authors, SearchLR: d.Search.LR, SearchBatch: d.Search.BatchSize,
			Backends: d.Backends(), UsesLabels: d.UsesLabels()})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return exitWith(stderr, "llpfc methods", err)
	}
	return exitOK
}

func writeMethodsText(w io.Writer) {
	for _, d := range methods.All() {
		fmt.Fprintf(w, "%s (%s): %s\n", d.Name, d.Label, d.Help)
		fmt.Fprintf(w, "  family %s; minibatch of %s, default %d; runs on %s\n", d.Family, d.Batch, d.DefaultBatch, strings.Join(d.Backends(), ", "))
		for i, s := range d.Settings {
			if i == 0 {
				fmt.Fprintln(w, "  settings:")
			}
			fmt.Fprintf(w, "    %s (%s; default %s): %s\n", s.Name, s.Want(), s.Default, s.Help)
		}
		fmt.Fprintf(w, "  implements: %s\n", d.Paper)
		if d.Code != "" {
			fmt.Fprintf(w, "  code: %s\n", d.Code)
		}
		if a := d.Authors; a != nil {
			fmt.Fprintf(w, "  authors' preset: %s\n", presetText(a, d.Batch))
		}
		fmt.Fprintf(w, "  tuned over: %s\n", searchText(d.Search))
	}
}

// writeMethodsMarkdown writes the table of methods of docs/methods.md
// (TestReadmeMethodsTable holds the guide to it).
func writeMethodsMarkdown(w io.Writer) {
	fmt.Fprintln(w, "| `--method` | row | family | minibatch (default) | own settings | implements | authors' preset |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, d := range methods.All() {
		preset := "—"
		if d.Authors != nil {
			preset = presetText(d.Authors, d.Batch)
		}
		settings := "—"
		if len(d.Settings) > 0 {
			settings = settingsText(d.Settings)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", d.Name, d.Label, d.Family, count(d.DefaultBatch, d.Batch),
			settings, strings.ReplaceAll(d.Paper, "|", "\\|"), preset)
	}
}

// count is n of unit, singular for one ("1 bag").
func count(n int, unit methods.Unit) string {
	if n == 1 {
		return "1 " + strings.TrimSuffix(unit.String(), "s")
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func settingsText(ss []*methods.Setting) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

func presetText(a *methods.Preset, unit methods.Unit) string {
	s := fmt.Sprintf("%s, lr %g", a.Optimizer, a.LR)
	if a.Momentum != 0 {
		s += fmt.Sprintf(", momentum %g", a.Momentum)
	}
	if a.WeightDecay != 0 {
		s += fmt.Sprintf(", weight decay %g", a.WeightDecay)
	}
	s += ", " + count(a.BatchSize, unit)
	if a.Flood != 0 {
		s += fmt.Sprintf(", flooding %g", a.Flood)
	}
	return s
}

func searchText(s methods.Search) string {
	var lrs []string
	for _, lr := range s.LR {
		lrs = append(lrs, fmt.Sprint(lr))
	}
	out := "lr " + strings.Join(lrs, ", ")
	if len(s.BatchSize) > 0 {
		out += fmt.Sprintf("; minibatch %v", s.BatchSize)
	}
	return out + fmt.Sprintf(" (%d trials)", s.Trials())
}
