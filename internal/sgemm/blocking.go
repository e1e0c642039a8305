package sgemm

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Caches are the sizes in bytes of one core's level-1 data and level-2
// caches and of the level-3 cache it shares, as the operating system
// reports them; 0 where unknown.
type Caches struct{ L1d, L2, L3 int }

// Blocking is the packed product's panel sizes (the Goto/BLIS kc, mc, nc).
type Blocking struct {
	// KC is the longest k-block. It is not derived from the caches: where k
	// is cut into blocks decides the order in which a product's terms are
	// summed, so a KC that followed the cache would make a run's numbers
	// depend on the machine (bench/NOTES.md: kc 256 against 384
	// moved the quick table's cells by up to 0.015). 384 keeps the A strip
	// (MR×KC) within half of any L1d of 32 KiB or more (KCFromL1 is the
	// cache's own bound).
	KC int
	// KCFromL1 is the longest k-block whose A strip, MR×KC floats, fills at
	// most half of L1d (in the packed products the strip stays in L1 while
	// B's strips stream past it); 0 with L1d unknown. Reported, not used
	// (see KC).
	KCFromL1 int
	// MC is the most rows of A one worker packs at a time: its block,
	// MC×KC floats, fills at most half of L2 (192 with L2 unknown). Rows are
	// also cut finer, into about four blocks per worker, to share them out.
	MC int
	// NC is the most columns of B packed at a time: the KC×NC panel every
	// A strip reads fills at most half of L3, and at most 4096 columns
	// (6 MiB), which bounds the packing buffer whatever the cache (4096
	// with L3 unknown).
	NC int
	// NCA is NC for the products whose A and B strips do not fit L1d
	// together (rowBlock keeps their A strips outer, and each strip sweeps
	// the whole KC×NCA panel, so it must stay in L2, not L3): the panel
	// fills at most three quarters of L2 (NC with L2 unknown; 0 means NC).
	// On an Intel Xeon (L2 2 MiB) the AVX-512 kernel's 2048³ went from 216
	// to 295 GFLOP/s on two cores (bench/NOTES.md, "on an Intel Xeon").
	NCA int
	// Caches are the sizes the blocking was derived from.
	Caches Caches
}

const (
	mcDefault = 192
	ncMax     = 4096
	ncMin     = 256
)

// DeriveBlocking returns the panel sizes for caches c and kernel kern: the
// largest MC (a multiple of every kernel's MR, 24, and at least 24) whose
// A block MC×KC fills at most half of L2, the largest NC (a multiple of
// 32, between 256 and 4096) whose B panel KC×NC fills at most half of L3,
// and the largest NCA (the same bounds) whose panel fills at most three
// quarters of L2; KC is 384 (see Blocking.KC).
func DeriveBlocking(c Caches, kern Kernel) Blocking {
	b := Blocking{KC: kc, MC: mcDefault, NC: ncMax, Caches: c}
	if c.L1d > 0 {
		b.KCFromL1 = c.L1d / 2 / (4 * kern.MR)
	}
	if c.L2 > 0 {
		b.MC = max(c.L2/2/(4*b.KC)/24*24, 24)
	}
	if c.L3 > 0 {
		b.NC = min(max(c.L3/2/(4*b.KC)/32*32, ncMin), ncMax)
	}
	b.NCA = b.NC
	if c.L2 > 0 {
		b.NCA = min(max(c.L2*3/4/(4*b.KC)/32*32, ncMin), ncMax)
	}
	return b
}

// String describes the blocking and the caches it came from.
func (b Blocking) String() string {
	kib := func(n int) string {
		switch {
		case n == 0:
			return "?"
		case n%(1<<20) == 0:
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("kc %d (L1 bound %d), mc ≤ %d, nc %d (%d with A strips outer); caches L1d %s, L2 %s, L3 %s", b.KC, b.KCFromL1, b.MC, b.NC,
		b.ncA(), kib(b.Caches.L1d), kib(b.Caches.L2), kib(b.Caches.L3))
}

// ncA is NCA, or NC where NCA is not set.
func (b Blocking) ncA() int {
	if b.NCA > 0 {
		return b.NCA
	}
	return b.NC
}

// cacheDir is where Linux describes cpu0's caches.
const cacheDir = "/sys/devices/system/cpu/cpu0/cache"

// ReadCaches reads the cache sizes from dir (Linux's
// /sys/devices/system/cpu/cpu0/cache: one indexN folder per cache, with
// its level, type and size); a cache it cannot read is 0, and an error
// says why when dir itself cannot be read.
func ReadCaches(dir string) (Caches, error) {
	var c Caches
	entries, err := os.ReadDir(dir)
	if err != nil {
		return c, err
	}
	read := func(idx, name string) string {
		b, err := os.ReadFile(filepath.Join(dir, idx, name))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		typ, level := read(e.Name(), "type"), read(e.Name(), "level")
		size, ok := parseSize(read(e.Name(), "size"))
		if !ok || typ == "Instruction" {
			continue
		}
		switch level {
		case "1":
			c.L1d = size
		case "2":
			c.L2 = size
		case "3":
			c.L3 = size
		}
	}
	return c, nil
}

// parseSize reads a cache size as sysfs writes it ("32K", "512K", "32768K",
// "1M", or bytes).
func parseSize(s string) (int, bool) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// blocking is the panel sizes Sgemm uses: derived at start-up from this
// machine's caches for the active kernel; SetBlocking changes it.
var blocking = startBlocking()

func startBlocking() Blocking {
	c, _ := ReadCaches(cacheDir) // unknown caches: the defaults
	return DeriveBlocking(c, active)
}

// ActiveBlocking returns the panel sizes Sgemm uses.
func ActiveBlocking() Blocking { return blocking }

// SetBlocking makes Sgemm use b's MC and NC (KC stays 384: it decides the
// results) and returns the blocking it used before; for tests and
// benchmarks. It panics on a size below one tile, and is not safe to call
// while products run.
func SetBlocking(b Blocking) Blocking {
	if b.MC < 8 || b.NC < 32 || b.NCA != 0 && b.NCA < 32 || b.KC != kc {
		panic(fmt.Sprintf("sgemm: blocking mc %d, nc %d, nca %d, kc %d: want mc ≥ 8, nc ≥ 32, nca 0 or ≥ 32, kc %d", b.MC, b.NC, b.NCA, b.KC, kc))
	}
	old := blocking
	blocking = b
	return old
}
