package grid_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/experiments/grid"
)

// Claims that know whose they are. A claim records, beside its host and
// PID, the kernel's boot, the PID namespace and the process's start time;
// one whose process cannot be checked from here (another PID namespace,
// another boot, or a claim written before these fields) is taken over
// only when it has gone unrefreshed for ClaimStaleAfter, and the waiting
// message says until when. Two runs in two PID namespaces of one host (a
// container named as its host, `unshare --pid`) took each other's live
// claims at once: the other's PID was gone from this namespace.

// takenOverAt reads the time a waiting message says the claim is taken
// over at.
var takenOverAt = regexp.MustCompile(`taken over at (\S+) unless`)

// checkUntil checks that holder (Claim's description of a live claim of
// the file p) says it is taken over ClaimStaleAfter after p's last
// refresh, to the second.
func checkUntil(t *testing.T, holder, p string) {
	t.Helper()
	m := takenOverAt.FindStringSubmatch(holder)
	require.NotNil(t, m, "the waiting message says not until when: %s", holder)
	at, err := time.Parse(time.RFC3339, m[1])
	require.NoError(t, err)
	st, err := os.Stat(p)
	require.NoError(t, err)
	want := st.ModTime().Add(grid.ClaimStaleAfter)
	assert.LessOrEqual(t, want.Sub(at).Abs(), time.Second, "taken over at %v, want %v", at, want)
}

// Simulated namespaces and boots: each unverifiable claim is waited for
// until its age, saying until when, and then taken over; a PID of this
// namespace that names a process started after the claim is taken at once.
func TestUnverifiableClaimsWaitTheirAge(t *testing.T) {
	defer func(beat, stale, poll time.Duration) {
		grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll = beat, stale, poll
	}(grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll)
	grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll = 50*time.Millisecond, 2*time.Second, 50*time.Millisecond
	dir := t.TempDir()
	spec := countedTiny(t)
	cells, _ := spec.Cells()
	dead := deadPID(t)
	_, _, mine := grid.SelfIdentity()
	otherNS := hereClaim(dead, 0)
	otherNS["pid_ns"] = "pid:[1]"
	otherBoot := hereClaim(dead, 0)
	otherBoot["boot_id"] = "00000000-0000-0000-0000-000000000000"
	host, _ := os.Hostname()
	cases := []struct {
		rec  map[string]any
		says string // why it cannot be checked; "" for a claim taken at once
	}{
		{otherNS, "in another PID namespace (pid:[1], this run pid:["},
		{otherBoot, "from another boot of the host"},
		{map[string]any{"host": host, "pid": dead}, "a claim of an older llpfc"},
		{hereClaim(os.Getpid(), mine+1), ""}, // this PID, started at another time: reused
	}
	for i, c := range cases {
		writeClaimAs(t, dir, cells[i].Key, c.rec, 0)
	}
	for i, c := range cases {
		p := filepath.Join(dir, "claims", cells[i].Key)
		ok, holder, err := grid.Hold(dir, cells[i].Key, "probe")
		require.NoError(t, err)
		if c.says == "" {
			assert.True(t, ok, "a reused PID's claim is not taken over at once: %s", holder)
			require.NoError(t, os.Remove(p))
			writeClaimAs(t, dir, cells[i].Key, c.rec, 0) // for the run below
			continue
		}
		assert.False(t, ok, "case %d taken over at once", i)
		assert.Contains(t, holder, c.says)
		assert.Contains(t, holder, "its process cannot be checked from here")
		checkUntil(t, holder, p)
	}
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	var log bytes.Buffer
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := (&grid.Runner{Store: st, Log: &log}).Run(ctx, spec)
	require.NoError(t, err, log.String())
	assert.Equal(t, len(cells), sum.Finished, "%+v\n%s", sum, log.String())
	assert.GreaterOrEqual(t, time.Since(t0), grid.ClaimStaleAfter-200*time.Millisecond, "an unverifiable claim was not waited for")
	assert.Contains(t, log.String(), "taken over at ")
	trainings.Lock()
	defer trainings.Unlock()
	for _, c := range cells {
		assert.Equal(t, 1, trainings.of[c.Key], "cell %s", c.Key)
	}
}

// claimHelperEnv makes the test binary a claiming run in another PID
// namespace (TestClaimHelperProcess): DIR|KEY|MODE.
const claimHelperEnv = "LLPFC_CLAIM_HELPER"

// TestClaimHelperProcess is not a test: run by TestClaimsAcrossPIDNamespaces
// under `unshare --pid --fork`, it holds a claim (mode hold: prints "held
// PID", refreshes it until its standard input closes, then releases it) or
// tries one (mode try: prints "got" or "waits HOLDER").
func TestClaimHelperProcess(t *testing.T) {
	v := os.Getenv(claimHelperEnv)
	if v == "" {
		t.Skip("the helper of TestClaimsAcrossPIDNamespaces")
	}
	parts := strings.SplitN(v, "|", 3)
	dir, key, mode := parts[0], parts[1], parts[2]
	grid.ClaimBeat = 100 * time.Millisecond
	ok, holder, err := grid.Hold(dir, key, "inner")
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	if mode == "try" {
		if ok {
			fmt.Println("got")
		} else {
			fmt.Println("waits", holder)
		}
		os.Exit(0)
	}
	fmt.Println("held", os.Getpid())
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	st := &grid.Store{Dir: dir}
	for {
		select {
		case <-done:
			st.Release(key, "inner")
			os.Exit(0)
		case <-time.After(grid.ClaimBeat):
			st.KeepClaim(key, "inner")
		}
	}
}

// unshareWorks reports whether this process may make a PID namespace.
func unshareWorks() bool {
	if os.Geteuid() != 0 {
		return false
	}
	_, err := exec.LookPath("unshare")
	return err == nil && exec.Command("unshare", "--pid", "--fork", "true").Run() == nil
}

// freePID is a PID no process of this namespace has, above the first few.
func freePID() int {
	for p := 20; ; p++ {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", p)); os.IsNotExist(err) {
			return p
		}
	}
}

// Two real PID namespaces (`unshare --pid --fork`, as root): a run in each.
// The inner run's PID is made one this namespace lacks, so that a claim
// judged by its PID alone reads as a killed run's. Each side sees the
// other's live claim as one it cannot check, waits, and says until when;
// the outer run trains the held cell only once the inner releases it, and
// every cell once.
func TestClaimsAcrossPIDNamespaces(t *testing.T) {
	if !unshareWorks() {
		t.Skip("unshare --pid --fork does not work here (needs root); TestUnverifiableClaimsWaitTheirAge simulates the namespace")
	}
	defer func(beat, stale, poll time.Duration) {
		grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll = beat, stale, poll
	}(grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll)
	grid.ClaimBeat, grid.ClaimStaleAfter, grid.ClaimPoll = 50*time.Millisecond, 1500*time.Millisecond, 50*time.Millisecond
	dir := t.TempDir()
	spec := countedTiny(t)
	cells, _ := spec.Cells()
	want := freePID()
	// sh is PID 1 of the new namespace; each "true &" takes the next PID,
	// so that the helper starts as PID want.
	script := fmt.Sprintf(`i=2; while [ $i -lt %d ]; do true & wait $!; i=$((i+1)); done; "$0" -test.run='^TestClaimHelperProcess$' -test.count=1`, want)
	helper := func(key, mode string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
		cmd := exec.Command("unshare", "--pid", "--fork", "sh", "-c", script, os.Args[0])
		cmd.Env = append(os.Environ(), claimHelperEnv+"="+dir+"|"+key+"|"+mode)
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		return cmd, in, bufio.NewReader(out)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "claims"), 0o755))

	// The inner run holds cells[0].
	cmd, in, out := helper(cells[0].Key, "hold")
	defer cmd.Process.Kill()
	line, err := out.ReadString('\n')
	require.NoError(t, err, "the helper said nothing")
	require.True(t, strings.HasPrefix(line, "held "), "helper: %q", line)
	pid, _ := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "held ")))
	if pid == want {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		assert.True(t, os.IsNotExist(err), "PID %d exists here too: the case tells nothing of a PID check", pid)
	} else {
		t.Logf("the helper is PID %d, not %d: this namespace may have a process of its PID", pid, want)
	}
	ok, holder, err := grid.Hold(dir, cells[0].Key, "outer")
	require.NoError(t, err)
	require.False(t, ok, "the live claim of a run in another PID namespace taken over at once")
	assert.Contains(t, holder, fmt.Sprintf("process %d on ", pid))
	assert.Contains(t, holder, "in another PID namespace")
	checkUntil(t, holder, filepath.Join(dir, "claims", cells[0].Key))

	// The outer run waits for cells[0] while the inner one refreshes it,
	// then trains it once released.
	go func() {
		time.Sleep(2 * grid.ClaimStaleAfter) // twice the age: refreshed all along, never taken over
		in.Close()
	}()
	st, err := grid.OpenStore(dir)
	require.NoError(t, err)
	var log bytes.Buffer
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sum, err := (&grid.Runner{Store: st, Log: &log}).Run(ctx, spec)
	require.NoError(t, err, log.String())
	require.NoError(t, cmd.Wait())
	assert.Equal(t, len(cells), sum.Finished, "%+v\n%s", sum, log.String())
	assert.GreaterOrEqual(t, time.Since(t0), 2*grid.ClaimStaleAfter-500*time.Millisecond, "the inner run's live claim was not waited for")
	assert.Contains(t, log.String(), "in another PID namespace")
	trainings.Lock()
	for _, c := range cells {
		assert.Equal(t, 1, trainings.of[c.Key], "cell %s", c.Key)
	}
	trainings.Unlock()

	// The other way: the inner run finds the outer's live claim one it
	// cannot check.
	ok, _, err = grid.Hold(dir, "outer-cell", "outer")
	require.NoError(t, err)
	require.True(t, ok)
	cmd, in, out = helper("outer-cell", "try")
	line, err = out.ReadString('\n')
	require.NoError(t, err)
	in.Close()
	cmd.Wait()
	assert.True(t, strings.HasPrefix(line, "waits "), "the inner run took the outer's live claim: %q", line)
	assert.Contains(t, line, fmt.Sprintf("process %d on ", os.Getpid()))
	assert.Contains(t, line, "in another PID namespace")
}
