package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var crashFileRE = regexp.MustCompile(`/\S*llpfc-crash-\d+\.txt`)

// Exit codes: a panic is a failure of llpfc (exit 1, its stack
// in a file), never "bad input" (2, Go's status for an unrecovered panic).
func TestPanicIsAFailureNotBadInput(t *testing.T) {
	commands["test-panic"] = command{name: "test-panic", run: func([]string, io.Writer, io.Writer) int {
		var m map[string]int
		m["x"] = 1 // a realistic bug: assignment to a nil map
		return exitOK
	}}
	defer delete(commands, "test-panic")
	var out, errb bytes.Buffer
	code := dispatch([]string{"test-panic"}, &out, &errb)
	assert.Equal(t, exitFailed, code, "stderr: %s", errb.String())
	assert.Contains(t, errb.String(), "internal error")
	assert.Contains(t, errb.String(), "nil map")
	path := crashFileRE.FindString(errb.String())
	require.NotEmpty(t, path, "no stack file named: %s", errb.String())
	defer os.Remove(path)
	stack, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(stack), "crash_test.go", "the file holds the panic's stack")
}

// Exit codes: running out of memory once killed llpfc with Go's
// fatal-error status 2, the status of bad input. Under an address-space
// limit that the model's allocation exceeds, the supervised command now
// exits 1 and names the runtime's report.
func TestOutOfMemoryIsAFailureNotBadInput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervising parent is Linux-only (supervise_other.go)")
	}
	bin := buildLLPFC(t)
	// The runtime reserves about 1.8 GB of address space at start; the
	// mlp's 360000×512 first layer with its gradient and Adam's state needs
	// about 3 GB more.
	cmd := exec.Command("bash", "-c", `ulimit -v 3000000 && exec "$0" "$@"`, bin,
		"bench", "--model", "mlp", "--height", "600", "--width", "600", "--batch-size", "8", "--steps", "1", "--warmup", "0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
	assert.Equal(t, exitFailed, ee.ExitCode(), "stderr tail: %s", tail(stderr.String(), 600))
	assert.Contains(t, stderr.String(), "fatal error: out of memory", "the runtime's own message still shows")
	assert.Contains(t, stderr.String(), "llpfc: the command failed: it stopped with a fatal runtime error")
	if path := crashFileRE.FindString(tail(stderr.String(), 600)); assert.NotEmpty(t, path, "no report file named") {
		b, _ := os.ReadFile(path)
		assert.Contains(t, string(b), "goroutine 1", "the report holds the goroutines' stacks")
		os.Remove(path)
	}
}

// The command runs in a child process (supervise): killing the parent
// kills the child, so a killed run leaves nothing running behind it, and a
// signal sent to the parent reaches the child once.
func TestSupervisedChildDiesWithItsParent(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the supervising parent is Linux-only")
	}
	bin := buildLLPFC(t)
	cmd := exec.Command(bin, "verify", "--cases", "1000000")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	var child int
	deadline := time.Now().Add(20 * time.Second)
	for child == 0 && time.Now().Before(deadline) {
		child = childOf(cmd.Process.Pid)
		time.Sleep(20 * time.Millisecond)
	}
	require.NotZero(t, child, "no child process appeared")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	cmd.Wait()
	for time.Now().Before(deadline) {
		if syscall.Kill(child, 0) != nil {
			return // gone
		}
		if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(child), "stat")); err == nil && strings.Contains(string(b), ") Z ") {
			return // a zombie: dead, waiting for init to reap it
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("child %d still runs after its parent was killed", child)
}

// childOf returns the pid of a child of pid (0 when none).
func childOf(pid int) int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		if fs := strings.Fields(string(b)); len(fs) > 0 {
			n, _ := strconv.Atoi(fs[0])
			return n
		}
	}
	return 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
