package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/experiments/grid"
	"github.com/llpfc/llpfc/internal/docs"
)

// Every message names the cause and the way out, by one rule (wayOut): a
// refusal says where ("llpfc CMD: " and the file, flag, field, option or
// folder, before its first ": ", or "FLAG is VALUE"), what is wrong there, and then what to do
// — a clause that starts with one of the verbs of wayOutVerbs ("drop the
// row, or fill it in", "name it once", "list it once", "save it
// comma-separated", "move the file out of the store", "want …"). The
// messages below are those once found misleading, with their siblings;
// each case runs the command, checks its exit status, the words the fix
// asked for, the rule, and — where the README tells the user the same
// thing — that the README and the program say it in the same words
// (readme: a phrase both must hold).

// wayOutVerbs start the clause that says what to do.
var wayOutVerbs = []string{"add", "choose", "declare", "divide", "drop", "fill", "fix", "give", "hold", "leave", "list",
	"make", "move", "name", "pass", "remove", "rename", "run", "save", "train", "use", "want", "write"}

// wayOutClause matches a clause of wayOutVerbs: after ": ", "; ", ", ",
// "(" or " or ".
var wayOutClause = regexp.MustCompile(`(?:: |; |, |\(| or )(?:` + strings.Join(wayOutVerbs, "|") + `)\b`)

// wayOut checks msg (a refusal's last line) by the rule: a prefix naming
// the command, a place, a cause after it, and a way out after the cause.
func wayOut(msg string) error {
	msg = strings.TrimSpace(msg)
	if i := strings.LastIndex(msg, "\nllpfc "); i >= 0 {
		msg = msg[i+1:]
	}
	m := regexp.MustCompile(`^llpfc [a-z]+: (.+?)(?:: | is )(.+)$`).FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("not \"llpfc CMD: WHERE: CAUSE…\" (or \"WHERE is VALUE, …\"): %s", msg)
	}
	rest := m[2]
	loc := wayOutClause.FindStringIndex(rest)
	if loc == nil {
		return fmt.Errorf("no way out (a clause starting with %s): %s", strings.Join(wayOutVerbs, ", "), msg)
	}
	if loc[0] == 0 {
		return fmt.Errorf("the way out comes before any cause: %s", msg)
	}
	return nil
}

func TestWayOutRuleCanFail(t *testing.T) {
	assert.NoError(t, wayOut(`llpfc train: t.csv: line 5, column 1: feature "NA" is a missing value: drop the row, or fill it in`))
	assert.Error(t, wayOut(`llpfc train: t.csv: line 5, column 1: feature "NA" is a missing value`))
	assert.Error(t, wayOut(`llpfc train: something went wrong`))
	assert.Error(t, wayOut(`llpfc train: x: drop it`))
}

// messageCase is one message once found misleading, or a sibling.
type messageCase struct {
	name   string
	setup  func(t *testing.T, dir string) []string // writes its inputs, returns the command line
	status int
	want   []string // words the message must hold
	not    []string // what it said before
	readme string   // a phrase the documentation (README.md, docs/) and the message share ("": none)
}

func TestMessagesNameCauseAndWayOut(t *testing.T) {
	readme, err := docs.Text("../..")
	require.NoError(t, err)
	tab := func(dir, name, body string) string { return writeFile(t, dir, name, body) }
	rows := func(header string, n int, row func(i int) string) string {
		var b strings.Builder
		b.WriteString(header + "\n")
		for i := 0; i < n; i++ {
			b.WriteString(row(i) + "\n")
		}
		return b.String()
	}
	labelled := func(i int) string { return fmt.Sprintf("%d,%d,%d", i%7+3*(i%2), (i*5)%7, i%2) }
	train := []string{"--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12"}
	store := func(t *testing.T, dir string) string {
		spec := writeFile(t, dir, "s.json", tinySpec)
		code, _, stderr := runCmd("run", spec, "--results", filepath.Join(dir, "st"))
		require.Equal(t, exitOK, code, stderr)
		return spec
	}
	specWith := func(t *testing.T, dir string, edit func(map[string]any)) string {
		var spec map[string]any
		require.NoError(t, json.Unmarshal([]byte(tinySpec), &spec))
		edit(spec)
		b, _ := json.Marshal(spec)
		return writeFile(t, dir, "e.json", string(b))
	}
	model := func(t *testing.T, dir string) string {
		p := tab(dir, "t.csv", rows("a,b,label", 60, labelled))
		m := filepath.Join(dir, "m")
		code, _, stderr := runCmd(append([]string{"train", "--data", "csv:" + p + "," + p, "--save-model", m}, train...)...)
		require.Equal(t, exitOK, code, stderr)
		return m
	}
	cases := []messageCase{
		{"a missing feature value", func(t *testing.T, dir string) []string {
			p := tab(dir, "t.csv", rows("a,b,label", 60, func(i int) string {
				if i == 7 {
					return "NA,1,0"
				}
				return labelled(i)
			}))
			return append([]string{"train", "--data", "csv:" + p + "," + p}, train...)
		}, exitBadUsage, []string{`line 9, column 1: feature "NA" is a missing value`}, []string{"declare it categorical"}, data.MissingWayOut},
		{"classes spelled as missing values", func(t *testing.T, dir string) []string {
			p := tab(dir, "t.csv", rows("a,b,label", 60, func(i int) string {
				return fmt.Sprintf("%d,%d,%s", i%7+3*(i%2), (i*5)%7, []string{"none", "Na"}[i%2])
			}))
			return append([]string{"train", "--data", "csv:" + p + "," + p}, train...)
		}, exitBadUsage, []string{`label "none" is a missing value`, `if "none" is a class as written`}, nil, "@na=SPELLING[+SPELLING…]"},
		{"two @label= options", func(t *testing.T, dir string) []string {
			p := tab(dir, "t.csv", rows("a,b,label", 60, labelled))
			return append([]string{"train", "--data", "csv:" + p + "," + p + "@label=a@label=label"}, train...)
		}, exitBadUsage, []string{"the label column is named twice (@label=a and @label=label)"}, nil, "name it once"},
		{"two @bag= options", func(t *testing.T, dir string) []string {
			writeBagOnlyInputs(t, dir)
			return []string{"train", "--data", "bags:" + filepath.Join(dir, "bo") + "@bag=bag@bag=0", "--epochs", "1", "--quiet"}
		}, exitBadUsage, []string{"the bag id column is named twice (@bag=bag and @bag=0)"}, nil, "name it once"},
		{"@label=4 beside a column named 4", func(t *testing.T, dir string) []string {
			p := tab(dir, "t.csv", rows("x,4,b,c,d,label", 60, func(i int) string {
				return fmt.Sprintf("%d,%d,%d,%d,%d,%d", i%7, i%2, i%5, i%3, i%4, i%2)
			}))
			return append([]string{"train", "--data", "csv:" + p + "," + p + "@label=4"}, train...)
		}, exitBadUsage, []string{"@label=4 is ambiguous: it is the header name of column 2 and the 0-based index of column 5", "csv:…@label=1 for column 2"}, nil, "is ambiguous"},
		{"run --results around stores", func(t *testing.T, dir string) []string {
			spec := store(t, dir)
			return []string{"run", spec, "--results", dir}
		}, exitBadUsage, []string{"holds the results store", "name a folder of its own"}, nil, "a store is not kept around another"},
		{"STORE/claims a file", func(t *testing.T, dir string) []string {
			spec := store(t, dir)
			os.RemoveAll(filepath.Join(dir, "st", "claims"))
			os.RemoveAll(filepath.Join(dir, "st", "cells"))
			tab(dir, "st/claims", "x")
			return []string{"run", spec, "--results", filepath.Join(dir, "st")}
		}, exitBadUsage, []string{"claims is a file, not a folder", "move the file out of the store"}, nil, "is a file, not a folder"},
		{"STORE/failed a file", func(t *testing.T, dir string) []string {
			spec := store(t, dir)
			os.RemoveAll(filepath.Join(dir, "st", "cells"))
			tab(dir, "st/failed", "x")
			return []string{"run", spec, "--results", filepath.Join(dir, "st")}
		}, exitBadUsage, []string{"failed is a file, not a folder"}, nil, "move the file out of the store"},
		{"a rate listed twice in a search", func(t *testing.T, dir string) []string {
			return []string{"run", specWith(t, dir, func(s map[string]any) {
				h := s["hyper"].(map[string]any)
				h["lr"], h["val_bags"], h["search"] = 0, 0.25, map[string]any{"lr": []any{0.001, 0.01, 1e-3}}
				s["learner"], s["model"] = "gorgonia", "mlp"
			}), "--list", "--results", filepath.Join(dir, "r")}
		}, exitBadUsage, []string{"hyper.search.lr[2]: is 0.001, as hyper.search.lr[0] is"}, nil, "list it once"},
		{"a minibatch listed twice in a search", func(t *testing.T, dir string) []string {
			return []string{"run", specWith(t, dir, func(s map[string]any) {
				h := s["hyper"].(map[string]any)
				h["lr"], h["batch_size"], h["val_bags"], h["search"] = 0, 0, 0.25, map[string]any{"lr": []any{0.001}, "batch_size": []any{8, 16, 8}}
				s["learner"], s["model"] = "gorgonia", "mlp"
			}), "--list", "--results", filepath.Join(dir, "r")}
		}, exitBadUsage, []string{"hyper.search.batch_size[2]: is 8, as hyper.search.batch_size[0] is"}, nil, "list it once"},
		{"an override's rate under tune", func(t *testing.T, dir string) []string {
			return []string{"run", specWith(t, dir, func(s map[string]any) {
				s["tune"], s["learner"], s["model"] = true, "gorgonia", "mlp"
				s["hyper"].(map[string]any)["val_bags"] = 0.25
				s["overrides"] = []any{map[string]any{"when": map[string]any{"methods": []any{"llpfc-uniform"}}, "set": map[string]any{"hyper": map[string]any{"lr": 0.3}}}}
			}), "--list", "--results", filepath.Join(dir, "r")}
		}, exitBadUsage, []string{`overrides[0].set: hyper.lr under "tune"`}, nil, `leave "tune" out`},
		{"a spec edited since its cells ran", func(t *testing.T, dir string) []string {
			store(t, dir)
			return []string{"run", specWith(t, dir, func(s map[string]any) { s["hyper"].(map[string]any)["epochs"] = 2 }), "--results", filepath.Join(dir, "st")}
		}, exitBadUsage, []string{"differ in hyper.epochs", "nothing was run"}, nil, "run the edited spec into another --results"},
		{"--val-bags leaving too few bags", func(t *testing.T, dir string) []string {
			return []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--val-bags", "7"}
		}, exitBadUsage, []string{"that --val-bags 7 holds out", "--num-points 64 in bags of --bag-size 8", "hold out at most 5 bags"}, []string{"hyper.val_bags", "num_points", "bag_size"}, "hold out"},
		{"--val-bags not a count", func(t *testing.T, dir string) []string {
			return []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--val-bags", "2.5"}
		}, exitBadUsage, []string{"--val-bags is 2.5, want a fraction in (0, 1), a whole number of bags"}, []string{"config: val bags"}, ""},
		{"--select best-val without held-out bags", func(t *testing.T, dir string) []string {
			return []string{"train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--select", "best-val"}
		}, exitBadUsage, []string{"--select best-val", "add --val-bags"}, []string{"config: select"}, ""},
		{"a ;-separated table to predict", func(t *testing.T, dir string) []string {
			m := model(t, dir)
			p := tab(dir, "semi.csv", strings.ReplaceAll(rows("a,b,label", 10, labelled), ",", ";"))
			return []string{"predict", "--model", m, "--data", "csv:" + p}
		}, exitBadUsage, []string{`whose fields are separated by ";", not by commas`}, []string{"not among the model's"}, "save it comma-separated"},
		{"a tab-separated table to predict", func(t *testing.T, dir string) []string {
			m := model(t, dir)
			p := tab(dir, "tab.csv", strings.ReplaceAll(rows("a,b", 10, func(i int) string { return fmt.Sprintf("%d,%d", i, i%3) }), ",", "\t"))
			return []string{"predict", "--model", m, "--data", "csv:" + p}
		}, exitBadUsage, []string{`separated by "\t"`}, []string{"not among the model's"}, "save it comma-separated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := c.setup(t, dir)
			code, stdout, stderr := runCmd(args...)
			require.NoError(t, noCrash(args, stderr))
			require.Equal(t, c.status, code, "llpfc %q: %s%s", args, stdout, stderr)
			for _, w := range c.want {
				assert.Contains(t, stderr, w)
			}
			for _, w := range c.not {
				assert.NotContains(t, stderr, w)
			}
			assert.NoError(t, wayOut(stderr))
			assert.Empty(t, repeatedPrefix(stderr), "a prefix said twice: %s", stderr)
			if c.readme != "" {
				assert.Contains(t, stderr, c.readme, "the program does not say what the documentation says")
				assert.Contains(t, strings.Join(strings.Fields(readme), " "), c.readme, "the documentation does not say what the program says")
			}
		})
	}
}

// The way through: a class spelled "none" trains once @na= names the
// file's missing values, and a declared category keeps "NA".
func TestMissingValuesHaveAWayThrough(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,color,label\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "%d,%d,%s,%s\n", i%7+3*(i%2), (i*5)%7, []string{"red", "NA", "blue"}[i%3], []string{"none", "Na"}[i%2])
	}
	p := writeFile(t, dir, "t.csv", b.String())
	code, _, stderr := runCmd("train", "--data", "csv:"+p+","+p+"@na=@categorical=color", "--bag-size", "6", "--epochs", "1", "--quiet", "--batch-size", "12")
	assert.Equal(t, exitOK, code, stderr)
}

// The claim of a run in another PID namespace is waited for, the message
// saying why it cannot be checked and when it is taken over, in the
// words of the documentation (docs/exit-status.md).
func TestWaitingMessageSaysUntilWhen(t *testing.T) {
	defer func(stale, poll time.Duration) { grid.ClaimStaleAfter, grid.ClaimPoll = stale, poll }(grid.ClaimStaleAfter, grid.ClaimPoll)
	grid.ClaimStaleAfter, grid.ClaimPoll = 500*time.Millisecond, 50*time.Millisecond
	dir := t.TempDir()
	spec := writeFile(t, dir, "s.json", tinySpec)
	code, stdout, stderr := runCmd("run", spec, "--list", "--results", filepath.Join(dir, "st"))
	require.Equal(t, exitOK, code, stderr)
	key := regexp.MustCompile(`[0-9a-f]{32}`).FindString(stdout)
	require.NotEmpty(t, key, stdout)
	host, _ := os.Hostname()
	writeFile(t, dir, "st/claims/"+key, fmt.Sprintf(`{"host": %q, "pid": 1, "token": "other", "start": %q, "boot_id": "b", "pid_ns": "pid:[1]"}`,
		host, time.Now().Format(time.RFC3339)))
	code, _, stderr = runCmd("run", spec, "--results", filepath.Join(dir, "st"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "its process cannot be checked from here; taken over at ")
	text, err := docs.Text("../..")
	require.NoError(t, err)
	assert.Contains(t, strings.Join(strings.Fields(text), " "), "its process cannot be checked from here")
}
