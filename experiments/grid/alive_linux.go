//go:build linux

package grid

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processAlive reports whether process pid exists in this process's PID
// namespace (a signal 0 reaches it, or it belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// selfIdentity is what tells this process from every other that could
// write a claim: the kernel's boot (/proc/sys/kernel/random/boot_id), the
// PID namespace (/proc/self/ns/pid), and the process's start time in clock
// ticks since boot (/proc/self/stat, field 22), which a PID reused after
// this process ends does not share. The start time is read only when
// /proc is this namespace's (/proc/self is our PID): after `unshare --pid`
// without a new /proc, /proc/PID names the parent namespace's processes.
func selfIdentity() identity {
	var id identity
	if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
		id.BootID = strings.TrimSpace(string(b))
	}
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		id.PIDNS = ns
	}
	if procIsOurs() {
		id.StartTicks = startTicks("self")
	}
	return id
}

// procIsOurs reports whether /proc shows this PID namespace's processes.
func procIsOurs() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// processStart returns the start time (clock ticks since boot) of process
// pid as /proc shows it, or 0 when it cannot be read here.
func processStart(pid int) uint64 {
	if !procIsOurs() {
		return 0
	}
	return startTicks(strconv.Itoa(pid))
}

// startTicks reads field 22 of /proc/P/stat (0 when it cannot).
func startTicks(p string) uint64 {
	b, err := os.ReadFile("/proc/" + p + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces and parentheses
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // f[0] is field 3 (the state)
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}
