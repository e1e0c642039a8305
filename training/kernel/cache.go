package kernel

import (
	"hash/fnv"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// distCache keeps, per training-row set, the standardized rows and their
// squared distance matrix, so that the 27 grid points of InvCal and
// alter-∝SVM (which differ only in γ, C, ε, C_p) compute the O(n²d)
// distances once per fold instead of once per grid point. Only sets of at
// most maxCachedRows rows are kept, at most maxCacheEntries of them.
type distCache struct {
	mu      sync.Mutex
	entries map[string]*distEntry
	order   []string
}

type distEntry struct {
	std *Standardizer
	Z   *mat.Dense
	D   *mat.Dense // D(i, j) = ‖z_i − z_j‖²
}

const (
	maxCachedRows   = 4096
	maxCacheEntries = 8
)

// WithCache returns d with a fresh distance cache shared by its subsets.
func (d Data) WithCache() Data {
	d.cache = &distCache{entries: map[string]*distEntry{}}
	return d
}

func cacheKey(X *mat.Dense, idx []int) string {
	h := fnv.New64a()
	var buf []byte
	for _, i := range idx {
		buf = strconv.AppendInt(buf[:0], int64(i), 10)
		buf = append(buf, ',')
		h.Write(buf)
	}
	return strconv.FormatUint(h.Sum64(), 16) + "/" + strconv.Itoa(len(idx))
}

// standardizedDistances returns the standardizer, standardized rows and the
// distance matrix of the rows idx of d.X, from the cache when possible.
func (d Data) standardizedDistances(idx []int) *distEntry {
	var key string
	if d.cache != nil && len(idx) <= maxCachedRows {
		key = cacheKey(d.X, idx)
		d.cache.mu.Lock()
		e := d.cache.entries[key]
		d.cache.mu.Unlock()
		if e != nil {
			return e
		}
	}
	Xtr := rows(d.X, idx)
	std := FitStandardizer(Xtr, d.Cont)
	Z := std.Apply(Xtr)
	D := SqDist(Z, Z) // squared distances
	e := &distEntry{std: std, Z: Z, D: D}
	if key != "" {
		d.cache.mu.Lock()
		if len(d.cache.order) >= maxCacheEntries {
			delete(d.cache.entries, d.cache.order[0])
			d.cache.order = d.cache.order[1:]
		}
		d.cache.entries[key] = e
		d.cache.order = append(d.cache.order, key)
		d.cache.mu.Unlock()
	}
	return e
}
