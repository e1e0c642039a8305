package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/docs"
)

// docCommand is one llpfc invocation written in a code block of the
// documentation.
type docCommand struct {
	where string   // FILE:LINE of the line that holds it
	args  []string // what follows llpfc: the subcommand, then its arguments
	named bool     // in a code span of the prose, which may name a flag without its value
}

// shellSeparators end one command's arguments on a shell line.
var shellSeparators = map[string]bool{"&&": true, "||": true, ";": true, "|": true, "&": true, ">": true, ">>": true, "<": true, "2>": true, "2>&1": true}

// endsArgs reports whether token ends a command's arguments: a shell
// separator, a redirection or a comment.
func endsArgs(tok string) bool {
	return shellSeparators[tok] || strings.HasPrefix(tok, "#") || strings.HasPrefix(tok, ">") || strings.HasPrefix(tok, "2>")
}

// builtBinary matches the path of a built llpfc (./llpfc, dist/gpu-kit/llpfc,
// $HOME/bin/llpfc); ./cmd/llpfc is the package, an invocation only after
// `go run`.
var builtBinary = regexp.MustCompile(`^[\w.$/-]*/llpfc$`)

// isInvocation reports whether toks[i] runs llpfc.
func isInvocation(toks []string, i int) bool {
	prev := ""
	if i > 0 {
		prev = toks[i-1]
	}
	switch t := toks[i]; {
	case prev == "-o":
		return false // go build -o llpfc: the binary's name
	case t == "./cmd/llpfc" || t == "cmd/llpfc":
		return prev == "run"
	default:
		return t == "llpfc" || builtBinary.MatchString(t)
	}
}

// docCommands returns every llpfc invocation in the code blocks of a
// markdown text: every line of a sh, bash or unlabelled block (a line ending
// in \ continued on the next), and the "$ " lines of a text or console
// block (the others are what a command printed). Quotes are dropped, so
// that sbatch --wrap 'llpfc …' is read; a comment line is read too
// (# machine k runs llpfc …), a comment after a command is not.
func docCommands(file, text string) []docCommand {
	var out []docCommand
	for _, b := range docs.CodeBlocks(text) {
		prompt := false
		switch b.Lang {
		case "sh", "bash", "shell", "":
		case "text", "console":
			prompt = true
		default:
			continue
		}
		ls := strings.Split(strings.TrimSuffix(b.Body, "\n"), "\n")
		for i := 0; i < len(ls); i++ {
			line, first := ls[i], i
			for strings.HasSuffix(line, `\`) && i+1 < len(ls) {
				i++
				line = strings.TrimSuffix(line, `\`) + " " + ls[i]
			}
			if prompt {
				rest, ok := strings.CutPrefix(line, "$ ")
				if !ok {
					continue
				}
				line = rest
			}
			line = strings.NewReplacer(`'`, " ", `"`, " ").Replace(line)
			if c, ok := strings.CutPrefix(strings.TrimSpace(line), "#"); ok {
				line = c // a comment line: its command is read
			}
			toks := strings.Fields(line)
			for j := range toks {
				if !isInvocation(toks, j) || j+1 >= len(toks) || endsArgs(toks[j+1]) {
					continue
				}
				k := j + 1
				for k < len(toks) && !endsArgs(toks[k]) {
					k++
				}
				out = append(out, docCommand{where: fmt.Sprintf("%s:%d", file, b.Line+1+first), args: toks[j+1 : k]})
			}
		}
	}
	return out
}

// inlineCommand matches a code span of prose that runs llpfc: `llpfc CMD …`
// or `go run ./cmd/llpfc CMD …`.
var inlineCommand = regexp.MustCompile("`((?:go run \\./cmd/)?llpfc [a-z][^`]*)`")

// inlineCommands returns the llpfc commands of text's prose code spans
// (`llpfc run SPEC --results DIR --check [--shards N]`): brackets and
// alternatives' bars are read as spaces, and a span may run over lines.
func inlineCommands(file, text string) []docCommand {
	prose := docs.Prose(text)
	var out []docCommand
	for _, m := range inlineCommand.FindAllStringSubmatchIndex(prose, -1) {
		span := strings.NewReplacer("[", " ", "]", " ", `\|`, " ", "\n", " ").Replace(prose[m[2]:m[3]])
		line := 1 + strings.Count(prose[:m[0]], "\n")
		for _, c := range docCommands(file, "```sh\n"+span+"\n```\n") {
			c.where, c.named = fmt.Sprintf("%s:%d", file, line), true
			out = append(out, c)
		}
	}
	return out
}

// flagUsage matches a flag's first line in `llpfc CMD -h`'s list (flag's
// PrintDefaults): its name, then its value's name unless it is a boolean.
var flagUsage = regexp.MustCompile(`(?m)^  -([A-Za-z0-9][\w.-]*)( [^\t\n]+)?[\t\n]`)

// helpFlags returns the flags `llpfc args…` lists under "Flags:", each
// mapped to whether it takes a value; ok is false if the command does not
// print such a list.
func helpFlags(args ...string) (map[string]bool, bool) {
	var o, e bytes.Buffer
	if dispatch(append(args, "-h"), &o, &e) != exitOK {
		return nil, false
	}
	_, list, ok := strings.Cut(o.String()+e.String(), "\nFlags:\n")
	if !ok {
		return nil, false
	}
	flags := map[string]bool{}
	for _, m := range flagUsage.FindAllStringSubmatch(list, -1) {
		flags[m[1]] = m[2] != ""
	}
	return flags, len(flags) > 0
}

// flagSets caches helpFlags per subcommand ("reproduce-binary" for
// reproduce --table binary, whose flag set is its own).
type flagSets map[string]map[string]bool

func (fs flagSets) of(sub string, binary bool) (map[string]bool, bool) {
	key, args := sub, []string{sub}
	if binary {
		key, args = sub+"-binary", []string{sub, "--table", "binary"}
	}
	if f, ok := fs[key]; ok {
		return f, f != nil
	}
	f, ok := helpFlags(args...)
	fs[key] = f
	return f, ok
}

// checkDocCommand says what is wrong with one invocation: a subcommand llpfc
// does not have, a flag its subcommand does not take, a flag that takes a
// value written without one.
func checkDocCommand(c docCommand, sets flagSets) []string {
	sub := c.args[0]
	if sub == "help" || sub == "-h" || sub == "--help" {
		return nil
	}
	if _, ok := commands[sub]; !ok {
		return []string{fmt.Sprintf("%s: llpfc %s: no such command", c.where, sub)}
	}
	args := c.args[1:]
	flags, ok := sets.of(sub, sub == "reproduce" && isBinaryTable(args))
	if !ok {
		return []string{fmt.Sprintf("%s: llpfc %s -h lists no flags", c.where, sub)}
	}
	var bad []string
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || regexp.MustCompile(`^-[0-9.]`).MatchString(a) {
			continue // a positional argument, a value, or a negative number
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			continue
		}
		takesValue, known := flags[name]
		switch {
		case !known:
			bad = append(bad, fmt.Sprintf("%s: llpfc %s has no flag --%s", c.where, sub, name))
		case takesValue && !hasValue && !c.named && (i+1 >= len(args) || strings.HasPrefix(args[i+1], "--")):
			bad = append(bad, fmt.Sprintf("%s: llpfc %s --%s takes a value and has none", c.where, sub, name))
		}
	}
	return bad
}

// Every llpfc command written in a code block of README.md or docs/*.md
// names a real subcommand and only flags that subcommand accepts (as its -h
// lists them), each with a value where it takes one; so does every command
// in a code span of their prose, which may name a flag without its value.
// A renamed or removed flag fails here until the guide changes with it.
func TestDocsCommandsAreReal(t *testing.T) {
	files, err := docs.Files("../..")
	require.NoError(t, err)
	sets := flagSets{}
	var bad []string
	n, subs := 0, map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("../..", f))
		require.NoError(t, err)
		for _, c := range append(docCommands(f, string(b)), inlineCommands(f, string(b))...) {
			n++
			subs[c.args[0]] = true
			bad = append(bad, checkDocCommand(c, sets)...)
		}
	}
	assert.Empty(t, bad, "commands of the documentation that llpfc would refuse")
	var seen []string
	for s := range subs {
		seen = append(seen, s)
	}
	sort.Strings(seen)
	assert.GreaterOrEqual(t, n, 80, "the documentation's commands were found")
	assert.Subset(t, seen, []string{"reproduce", "train", "verify", "devices", "merge", "report", "bags", "predict"}, "the subcommands the guides show")
}

// The check finds each kind of rot, and reads only what runs llpfc.
func TestDocsCommandsCheckCanFail(t *testing.T) {
	text := "# x\n\n```sh\n" +
		"llpfc trian --data fixture\n" + // 4: no such command
		"go run ./cmd/llpfc reproduce --quick --no-such-flag   # a comment --not-a-flag\n" + // 5
		"llpfc train --data fixture \\\n  --epochs\n" + // 6-7: a value missing
		"./llpfc reproduce --table binary --offline --quick\n" + // 8: --quick is not binary's
		"go build -o llpfc ./cmd/llpfc && go test ./cmd/llpfc -run TestX\n" + // 9: no invocation
		"sbatch --wrap 'llpfc verify --cases 10 --bogus' && llpfc report --results r --out o\n" + // 10
		"# machine k runs  llpfc merge --ouut x\n" + // 11
		"llpfc predict --model m --data fixture --out p.csv > log 2>&1\n" + // 12: fine
		"```\n\n```text\n$ llpfc bags --seed=1 --out b.json --nope\nllpfc train: --nope is output, not a command\n```\n\n" + // 15
		"```python\nllpfc.run(spec, bogus=1)  # llpfc --x\n```\n\n" +
		"Prose: `llpfc run SPEC --results DIR --check\n[--shards N]` and `llpfc report --csv` are fine,\n" + // 24-25
		"`llpfc methods [--json \\| --yaml]` is not, nor `go run ./cmd/llpfc verify --fast`; `llpfc.report` is Python.\n" // 26
	var got []string
	sets := flagSets{}
	cmds := append(docCommands("g.md", text), inlineCommands("g.md", text)...)
	for _, c := range cmds {
		got = append(got, checkDocCommand(c, sets)...)
	}
	assert.Equal(t, []string{
		"g.md:4: llpfc trian: no such command",
		"g.md:5: llpfc reproduce has no flag --no-such-flag",
		"g.md:6: llpfc train --epochs takes a value and has none",
		"g.md:8: llpfc reproduce has no flag --quick",
		"g.md:10: llpfc verify has no flag --bogus",
		"g.md:11: llpfc merge has no flag --ouut",
		"g.md:16: llpfc bags has no flag --nope",
		"g.md:26: llpfc methods has no flag --yaml",
		"g.md:26: llpfc verify has no flag --fast",
	}, got)
	assert.Len(t, cmds, 13, "every invocation and no other line: %v", cmds)
}

// On generated invocations of every subcommand with its own flags (values
// given as the next word or after =) the check is silent; with one flag's
// name changed to one the subcommand lacks it names that flag.
func TestPropertyDocsCommandsCheck(t *testing.T) {
	sets := flagSets{}
	var subs []string
	for n := range commands {
		if f, ok := sets.of(n, false); ok && len(f) > 0 {
			subs = append(subs, n)
		}
	}
	sort.Strings(subs)
	require.NotEmpty(t, subs)
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	params.Rng.Seed(61)
	props := gopter.NewProperties(params)
	props.Property("real flags pass, a changed one is named", prop.ForAll(
		func(si int, picks []int, eq bool, broken int) bool {
			sub := subs[si%len(subs)]
			flags, _ := sets.of(sub, false)
			var names []string
			for n := range flags {
				names = append(names, n)
			}
			sort.Strings(names)
			line := "llpfc " + sub
			for _, p := range picks {
				n := names[p%len(names)]
				switch {
				case !flags[n]:
					line += " --" + n
				case eq:
					line += " --" + n + "=v"
				default:
					line += " --" + n + " v"
				}
			}
			check := func(l string) []string {
				var bad []string
				for _, c := range docCommands("p.md", "```sh\n"+l+"\n```\n") {
					bad = append(bad, checkDocCommand(c, sets)...)
				}
				return bad
			}
			if len(check(line)) != 0 {
				return false
			}
			wrong := names[broken%len(names)] + "-zz"
			bad := check(line + " --" + wrong)
			return len(bad) == 1 && strings.Contains(bad[0], "has no flag --"+wrong)
		},
		gen.IntRange(0, 1000), gen.SliceOfN(5, gen.IntRange(0, 1000)), gen.Bool(), gen.IntRange(0, 1000),
	))
	props.TestingRun(t)
}
