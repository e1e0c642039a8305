package main

import (
	"bytes"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// A long LLPGAN step (one bag of 1024 images) used to keep
// the process alive for many seconds after SIGTERM. The first signal now says
// that training stops after the current step and how to stop at once; a
// second signal stops the process at once.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("trains LLPGAN in a subprocess")
	}
	bin := buildLLPFC(t)
	cmd := exec.Command(bin, "train", "--data", "fixture", "--method", "llpgan", "--model", "llpgan-d",
		"--bag-size", "1024", "--num-points", "10240", "--epochs", "50")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "llpfc train: llpgan on fixture") {
		require.True(t, time.Now().Before(deadline), "training did not start: %s", stderr.String())
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // inside a step
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	for !strings.Contains(stderr.String(), "interrupt again to stop at once") {
		require.True(t, time.Now().Before(deadline), "no word after the first signal: %s", stderr.String())
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-exited:
		return // the step ended first: the graceful path, already checked by the message
	default:
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-exited:
	case <-time.After(3 * time.Second):
		require.FailNow(t, "the second signal did not stop the process within 3 s")
	}
	assert.False(t, cmd.ProcessState.Success())
}
