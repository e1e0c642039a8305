package grid

// Stale cells: a finished cell whose data's files
// changed since it ran (Result.DataDigest against data.Digest now) holds the
// result of data that no longer exist. Runner.Run refuses such a store
// before any cell trains; report, run --check and run --list show them,
// with the files and what to do (StaleNote), rather than as finished.

// Stale returns the results among rs whose data set's digest now differs
// from the one they recorded. A data set whose files cannot be read now
// (moved, deleted, another working directory) is not judged: its cells are
// returned in unchecked; results that recorded no digest (the embedded and
// generated sets, and results written before it) are neither.
func Stale(rs []*Result, dataDir string) (stale, unchecked []*Result) {
	digests := dataDigests{dir: dataDir, of: map[string]string{}}
	for _, r := range rs {
		if r.DataDigest == "" {
			continue
		}
		now, err := digests.get(r.Config.Dataset)
		switch {
		case err != nil:
			unchecked = append(unchecked, r)
		case now != r.DataDigest:
			stale = append(stale, r)
		}
	}
	return stale, unchecked
}

// StaleNote says which of rs (stale results) ran on which data set's other
// contents, its files, and what to do.
func StaleNote(rs []*Result, dataDir string) string { return staleCells(rs, dataDir) }

// StaleKeys returns the keys of rs as a set.
func StaleKeys(rs []*Result) map[string]bool {
	out := make(map[string]bool, len(rs))
	for _, r := range rs {
		out[r.Key] = true
	}
	return out
}
