package opencl

import (
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"
)

// ProfileEnv names the variable that makes a back end time every step of
// its programs (waiting for each, so it runs slower) and print the time
// and the launches per operation kind to standard error when it is
// closed.
const ProfileEnv = "LLPFC_OPENCL_PROFILE"

// profiler sums step times per operation kind.
type profiler struct {
	mu       sync.Mutex
	total    map[string]time.Duration
	count    map[string]int
	launches map[string]int64
}

func newProfiler() *profiler {
	if os.Getenv(ProfileEnv) == "" {
		return nil
	}
	return &profiler{total: map[string]time.Duration{}, count: map[string]int{}, launches: map[string]int64{}}
}

func (p *profiler) add(kind string, d time.Duration, launches int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total[kind] += d
	p.count[kind]++
	p.launches[kind] += launches
}

// write prints the kinds by total time, largest first.
func (p *profiler) write(w io.Writer, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	kinds := make([]string, 0, len(p.total))
	var all time.Duration
	for k, d := range p.total {
		kinds = append(kinds, k)
		all += d
	}
	sort.Slice(kinds, func(i, j int) bool { return p.total[kinds[i]] > p.total[kinds[j]] })
	fmt.Fprintf(w, "%s: %v in %d operation kinds\n", name, all.Round(time.Millisecond), len(kinds))
	for _, k := range kinds {
		fmt.Fprintf(w, "  %10v %6d× %8d launches %s\n", p.total[k].Round(time.Microsecond), p.count[k], p.launches[k], k)
	}
}
