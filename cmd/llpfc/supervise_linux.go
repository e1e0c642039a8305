//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"

	"golang.org/x/term"
)

// supervisedEnv is set in the environment of the child process that runs
// the command; its value is irrelevant.
const supervisedEnv = "LLPFC_SUPERVISED"

// The child's extra files: its exit status (one byte, written just before a
// normal exit) and the file the runtime writes a fatal error's report to.
const (
	statusFD = 3
	crashFD  = 4
)

// supervise runs this command line in a child process and returns its exit
// status with supervised=true; in the child itself (or where no child can
// be started) it returns supervised=false and the caller runs the command.
//
// A Go program that runs out of memory, or panics in a goroutine other than
// the command's, dies with exit status 2 — the status that means bad input
// here — and no recover can stop it. The child writes its status
// to a pipe just before a normal exit, so a child that ends without writing
// it crashed: the parent then says so, keeps the runtime's report in a file
// (debug.SetCrashOutput) and exits 1. The child runs in its own process
// group, so a signal sent to the parent's group reaches it once, through
// the parent; it is killed if the parent dies.
//
// On a terminal (any standard stream one) the command runs in this process:
// the exit status matters to the programs that run llpfc — scripts, CI, job
// arrays — while a person reads the runtime's own message, and job control
// (Ctrl-Z, a terminal's stops) stays the shell's.
func supervise() (status int, supervised bool) {
	if os.Getenv(supervisedEnv) != "" {
		if f := os.NewFile(crashFD, "crash report"); f != nil {
			debug.SetCrashOutput(f, debug.CrashOptions{})
			f.Close() // SetCrashOutput keeps its own duplicate
		}
		return 0, false
	}
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		if term.IsTerminal(int(f.Fd())) {
			return 0, false
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	// The crash report's file is unlinked at once, so that a parent killed
	// with the child leaves no file behind; reportCrash copies a report out.
	crash, err := os.CreateTemp("", crashFilePattern)
	if err != nil {
		return 0, false
	}
	os.Remove(crash.Name())
	defer crash.Close()
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	defer statusR.Close()
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), supervisedEnv+"=1")
	cmd.ExtraFiles = []*os.File{statusW, crash}
	// Pdeathsig is tied to the thread that starts the child: keep it.
	runtime.LockOSThread()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, forwarded...)
	if err := cmd.Start(); err != nil {
		signal.Stop(sig)
		statusW.Close()
		return 0, false
	}
	statusW.Close()
	done := make(chan struct{})
	go forward(sig, cmd.Process, done)
	waitErr := cmd.Wait()
	close(done)
	signal.Stop(sig)
	if b, _ := io.ReadAll(statusR); len(b) == 1 {
		return int(b[0]), true
	}
	return reportCrash(cmd.ProcessState, waitErr, crash), true
}

// forwarded are the signals the parent passes on to the child.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT,
	syscall.SIGTSTP, syscall.SIGCONT, syscall.SIGWINCH, syscall.SIGUSR1, syscall.SIGUSR2}

// forward passes each signal on to the child until done. A stop (SIGTSTP)
// stops the child and then the parent, so that whoever stopped the parent
// sees it stopped; the SIGCONT that resumes the parent resumes the child.
func forward(sig <-chan os.Signal, child *os.Process, done <-chan struct{}) {
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGTSTP {
				child.Signal(syscall.SIGSTOP)
				syscall.Kill(os.Getpid(), syscall.SIGSTOP)
				continue
			}
			child.Signal(s)
		case <-done:
			return
		}
	}
}

// reportCrash prints why the child ended without an exit status and returns
// exitFailed; the runtime's report, if it wrote one to crash, is copied to
// a file named in the message.
func reportCrash(ps *os.ProcessState, waitErr error, crash *os.File) int {
	why := "it ended without an exit status"
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		why = "it was killed by signal " + ws.Signal().String()
		if ws.Signal() == syscall.SIGKILL {
			why += " (perhaps by the system's out-of-memory killer)"
		}
	} else if ee := new(exec.ExitError); errors.As(waitErr, &ee) {
		why = fmt.Sprintf("it stopped with a fatal runtime error (exit status %d): out of memory, or a panic outside the command (a bug in llpfc, not in your input)", ee.ExitCode())
	}
	if _, err := crash.Seek(0, io.SeekStart); err == nil {
		if report, _ := io.ReadAll(crash); len(report) > 0 {
			if f, err := os.CreateTemp("", crashFilePattern); err == nil {
				_, werr := f.Write(report)
				if f.Close() == nil && werr == nil {
					why += "; the runtime's report is in " + f.Name()
				}
			}
		}
	}
	fmt.Fprintf(os.Stderr, "llpfc: the command failed: %s\n", why)
	return exitFailed
}

// finished tells a supervising parent the command's exit status (supervise).
func finished(status int) {
	if os.Getenv(supervisedEnv) == "" {
		return
	}
	if f := os.NewFile(statusFD, "exit status"); f != nil {
		f.Write([]byte{byte(status)})
		f.Close()
	}
}
