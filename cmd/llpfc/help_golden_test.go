package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateHelp = flag.Bool("update", false, "rewrite cmd/llpfc/testdata/help/*.golden from the current `llpfc <cmd> -h` output")

// helpTranscript runs `llpfc args…` and returns its exit status, stdout and
// stderr in one text, so that a golden file pins all three.
func helpTranscript(args ...string) string {
	var o, e bytes.Buffer
	code := dispatch(args, &o, &e)
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, o.String(), e.String())
}

// TestHelpGolden pins, byte for byte, `llpfc <cmd> -h` for every command,
// `llpfc reproduce --table binary -h` and `llpfc help` (issue 13: splitting the commands into small functions must not
// change what they say). Regenerate with `go test ./cmd/llpfc -run
// TestHelpGolden -update` and review the diff.
func TestHelpGolden(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	cases := map[string][]string{
		"help":             {"help"},
		"reproduce-binary": {"reproduce", "--table", "binary", "-h"}, // its own flag set
	}
	for _, n := range names {
		cases[n] = []string{n, "-h"}
	}
	dir := filepath.Join("testdata", "help")
	if *updateHelp {
		require.NoError(t, os.MkdirAll(dir, 0o755))
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			got := helpTranscript(args...)
			path := filepath.Join(dir, name+".golden")
			if *updateHelp {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "no golden file; run with -update")
			assert.Equal(t, string(want), got, "`llpfc %v` changed; if on purpose, rerun with -update and review", args)
		})
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	require.NoError(t, err)
	assert.Len(t, files, len(cases), "one golden file per command and no stale ones")
}
