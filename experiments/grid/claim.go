package grid

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Claims: a cell is claimed before it trains, so that two
// runs on one store (two terminals, two job-array tasks sharing
// --results) share the grid's cells instead of both training every one. A
// claim is a file STORE/claims/KEY holding the claiming run's host, process
// and token, and what tells that process from any other (identity: the
// kernel's boot, the PID namespace, the process's start time), made
// atomically (a hard link of a whole temporary file: it exists with its
// contents or not at all) and kept fresh by the run while the cell trains
// (ClaimBeat). A claim is stale — left by a killed run — when its process
// can be checked from here (this host, boot and PID namespace) and is gone
// (or its PID now names a process started later), or when it has not been
// refreshed for ClaimStaleAfter, whoever made it. A claim whose process
// cannot be checked from here (another host, boot or PID namespace: a
// container named as its host, `unshare --pid`; a claim written before
// claims recorded their namespace) is taken over only by that age: two
// runs in two PID namespaces took each other's live claims at once, and
// trained every cell twice. A cell whose claim another live run holds is
// waited for, the message saying until when: it ends finished (skipped
// here) or released unfinished (trained here).

// ClaimBeat is how often a run refreshes the claim of the cell it trains,
// ClaimStaleAfter how long a claim may go unrefreshed before another run
// takes it over, and ClaimPoll how often a run looks again at the cells
// another run holds. Tests shorten them.
var (
	ClaimBeat       = 30 * time.Second
	ClaimStaleAfter = 5 * time.Minute
	ClaimPoll       = time.Second
)

// identity is what tells a claim's process from every other beyond its
// host and PID (selfIdentity): empty fields are unknown (a claim of
// before, a system without /proc).
type identity struct {
	BootID     string `json:"boot_id,omitempty"`
	PIDNS      string `json:"pid_ns,omitempty"`
	StartTicks uint64 `json:"start_ticks,omitempty"`
}

// self is this process's identity, read once.
var self = sync.OnceValue(selfIdentity)

// ClaimIdentity is what this process's claims record of it beyond its host
// and PID: the kernel's boot id and its PID namespace ("" where this system
// does not say).
func ClaimIdentity() (bootID, pidNS string) {
	id := self()
	return id.BootID, id.PIDNS
}

// claimRecord is a claim file's contents. Claims written before identity
// (host, pid, token, start) read with it empty: unverifiable.
type claimRecord struct {
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Token string    `json:"token"`
	Start time.Time `json:"start"`
	identity
}

func (c claimRecord) String() string {
	return fmt.Sprintf("process %d on %s since %s", c.PID, c.Host, c.Start.Format(time.RFC3339))
}

// verdict is what this run can tell of a claim another holds.
type verdict struct {
	stale bool
	// why says why the claim cannot be checked from here ("" when it can).
	why string
	// until is when the claim, not refreshed meanwhile, is taken over.
	until time.Time
}

// judge tells whether the claim held, last refreshed at mod, is stale at
// now for a run on host with identity me.
func judge(held claimRecord, mod time.Time, host string, me identity, now time.Time) verdict {
	v := verdict{until: mod.Add(ClaimStaleAfter)}
	switch {
	case held.Host != host:
		v.why = "on another host"
	case held.BootID == "" || held.PIDNS == "":
		v.why = "its claim names no boot nor PID namespace (a claim of an older llpfc)"
	case me.BootID == "" || me.PIDNS == "":
		v.why = "this system does not say which boot or PID namespace a process is in"
	case held.BootID != me.BootID:
		v.why = "from another boot of the host, or another machine of that name"
	case held.PIDNS != me.PIDNS:
		v.why = "in another PID namespace (" + held.PIDNS + ", this run " + me.PIDNS + ")"
	case held.PID <= 0 || !processAlive(held.PID):
		v.stale = true // its process is gone
		return v
	case held.StartTicks != 0:
		if now := processStart(held.PID); now != 0 && now != held.StartTicks {
			v.stale = true // its PID names a process started since
			return v
		}
	}
	v.stale = !now.Before(v.until)
	return v
}

// waitingFor says, for a run that waits on the claim held, whose it is and
// until when.
func (v verdict) waitingFor(held claimRecord) string {
	s := held.String()
	if v.why != "" {
		s += ", " + v.why + ": its process cannot be checked from here"
	}
	return fmt.Sprintf("%s; taken over at %s unless its run refreshes the claim (every %s while it trains)",
		s, v.until.Format(time.RFC3339), ClaimBeat)
}

// newClaimToken returns a token naming one run's claims.
func newClaimToken() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func (s *Store) claimPath(key string) string { return filepath.Join(s.Dir, "claims", key) }

// Claim claims the cell key for the run of token. It returns true when the
// run holds the claim (made now, taken over from a stale one, or its own
// already), else false and the live claim that holds it.
func (s *Store) Claim(key, token string) (bool, string, error) {
	if err := os.MkdirAll(filepath.Join(s.Dir, "claims"), 0o755); err != nil {
		return false, "", fmt.Errorf("results directory %s: %w", s.Dir, err)
	}
	host, _ := os.Hostname()
	rec := claimRecord{Host: host, PID: os.Getpid(), Token: token, Start: time.Now(), identity: self()}
	p := s.claimPath(key)
	for attempt := 0; attempt < 3; attempt++ {
		err := linkNew(p, rec)
		if err == nil {
			return true, "", nil
		}
		if !errors.Is(err, os.ErrExist) {
			return false, "", fmt.Errorf("claiming cell %s: %w", key, err)
		}
		held, mod, err := readClaim(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // released meanwhile: try again
		}
		v := judge(held, mod, host, rec.identity, time.Now())
		switch {
		case err == nil && held.Token == token:
			return true, "", nil
		case err == nil && !v.stale:
			return false, v.waitingFor(held), nil
		case err != nil && time.Since(mod) < ClaimStaleAfter:
			return false, fmt.Sprintf("a run whose claim %s cannot be read (%v); taken over at %s", p, err, mod.Add(ClaimStaleAfter).Format(time.RFC3339)), nil
		}
		s.takeOver(p, held)
	}
	return false, "another run (its claim changed hands while this one looked)", nil
}

// takeOver removes the stale claim at p, only if it is still the one found
// stale (held): it is moved aside first, and put back when another run
// claimed the cell meanwhile.
func (s *Store) takeOver(p string, held claimRecord) {
	aside := p + ".stale-" + newClaimToken()
	if os.Rename(p, aside) != nil {
		return
	}
	if now, _, err := readClaim(aside); err == nil && now.Token != held.Token {
		os.Link(aside, p) // a fresh claim, not the stale one: restore it (fails harmlessly if p exists)
	}
	os.Remove(aside)
}

// linkNew creates p holding rec atomically, failing with os.ErrExist when p
// exists: the record is written to a temporary file, linked to p, and the
// temporary name removed.
func linkNew(p string, rec claimRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".claim-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Link(tmp.Name(), p)
}

// readClaim reads the claim at p and its modification time.
func readClaim(p string) (claimRecord, time.Time, error) {
	var rec claimRecord
	st, err := os.Stat(p)
	if err != nil {
		return rec, time.Time{}, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return rec, st.ModTime(), err
	}
	return rec, st.ModTime(), json.Unmarshal(b, &rec)
}

// KeepClaim refreshes the claim of key held by token (its modification
// time: see ClaimStaleAfter).
func (s *Store) KeepClaim(key, token string) {
	if held, _, err := readClaim(s.claimPath(key)); err == nil && held.Token == token {
		now := time.Now()
		os.Chtimes(s.claimPath(key), now, now)
	}
}

// Release removes the claim of key when token holds it.
func (s *Store) Release(key, token string) {
	if held, _, err := readClaim(s.claimPath(key)); err == nil && held.Token == token {
		os.Remove(s.claimPath(key))
	}
}

// keepFresh refreshes the claim of key every ClaimBeat until the returned
// function is called.
func (s *Store) keepFresh(key, token string) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(ClaimBeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				s.KeepClaim(key, token)
			}
		}
	}()
	return func() { close(done) }
}
