package grid

// SelfIdentity is this process's claim identity (boot id, PID namespace,
// start time in clock ticks), for the claim tests of package grid_test.
func SelfIdentity() (bootID, pidNS string, startTicks uint64) {
	id := self()
	return id.BootID, id.PIDNS, id.StartTicks
}

// Hold claims key of the store at dir for token, as a run would (the
// namespace test's helper process).
func Hold(dir, key, token string) (bool, string, error) {
	return (&Store{Dir: dir}).Claim(key, token)
}

// SetCodeVersion makes the runner see rev as the binary's code version
// until the returned function restores it.
func SetCodeVersion(rev string) (restore func()) {
	saved := codeVersion
	codeVersion = func() (string, bool) { return rev, false }
	return func() { codeVersion = saved }
}
