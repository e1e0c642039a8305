package sgemm

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeCaches writes a sysfs cache folder: one indexN per {level, type, size}.
func fakeCaches(t *testing.T, caches [][3]string) string {
	dir := t.TempDir()
	for i, c := range caches {
		idx := filepath.Join(dir, "index"+string(rune('0'+i)))
		require.NoError(t, os.MkdirAll(idx, 0o755))
		for j, name := range []string{"level", "type", "size"} {
			require.NoError(t, os.WriteFile(filepath.Join(idx, name), []byte(c[j]+"\n"), 0o644))
		}
	}
	return dir
}

// TestReadCaches reads Linux's cache descriptions: the level-1 data cache
// (not the instruction cache), L2 and L3, in sysfs's K and M forms and in
// bytes; an unreadable size is 0, a missing folder an error.
func TestReadCaches(t *testing.T) {
	dir := fakeCaches(t, [][3]string{{"1", "Data", "32K"}, {"1", "Instruction", "64K"}, {"2", "Unified", "512K"}, {"3", "Unified", "32768K"}})
	c, err := ReadCaches(dir)
	require.NoError(t, err)
	assert.Equal(t, Caches{L1d: 32 << 10, L2: 512 << 10, L3: 32 << 20}, c)

	dir = fakeCaches(t, [][3]string{{"1", "Data", "49152"}, {"2", "Unified", "1M"}, {"3", "Unified", "lots"}})
	c, err = ReadCaches(dir)
	require.NoError(t, err)
	assert.Equal(t, Caches{L1d: 48 << 10, L2: 1 << 20}, c)

	_, err = ReadCaches(filepath.Join(t.TempDir(), "absent"))
	assert.Error(t, err)
}

// TestDeriveBlocking: MC is the largest multiple of 24 whose MC×384 A block
// fills at most half of L2, NC the largest multiple of 32 in [256, 4096]
// whose 384×NC B panel fills at most half of L3, NCA the same within three
// quarters of L2, and KC stays 384 with the L1 bound reported (half of L1d
// over MR floats); unknown caches give the former fixed sizes. The
// expectations are the arithmetic done by hand.
func TestDeriveBlocking(t *testing.T) {
	cases := []struct {
		c                 Caches
		kern              Kernel
		kcL1, mc, nc, nca int
	}{
		// Zen 3: 16384/24 = 682; 262144/1536 = 170 → 168; 16 MiB/1536 = 10922 → 4096; 393216/1536 = 256
		{Caches{32 << 10, 512 << 10, 32 << 20}, KernelAVX2, 682, 168, 4096, 256},
		// Zen 4-like with an 8 MiB L3: 24576/32 = 768; 524288/1536 = 341 → 336; 4 MiB/1536 = 2730 → 2720; 786432/1536 = 512
		{Caches{48 << 10, 1 << 20, 8 << 20}, KernelAVX512, 768, 336, 2720, 512},
		// an Intel Xeon: 1 MiB/1536 = 682 → 672; 240 MiB/1536 → 4096; 1572864/1536 = 1024
		{Caches{48 << 10, 2 << 20, 480 << 20}, KernelAVX512, 768, 672, 4096, 1024},
		// small caches: 8192/24 = 341; 32768/1536 = 21 → 0 → 24; 131072/1536 = 85 → 64 → 256; 49152/1536 = 32 → 256
		{Caches{16 << 10, 64 << 10, 256 << 10}, KernelGo, 341, 24, 256, 256},
		{Caches{}, KernelAVX2, 0, 192, 4096, 4096},
	}
	for _, tc := range cases {
		b := DeriveBlocking(tc.c, tc.kern)
		assert.Equal(t, Blocking{KC: 384, KCFromL1: tc.kcL1, MC: tc.mc, NC: tc.nc, NCA: tc.nca, Caches: tc.c}, b, "%+v, %s", tc.c, tc.kern.Name)
	}
}

// TestStartUpBlockingIsDerived: the blocking Sgemm uses is the one derived
// from this machine's caches (or the defaults where it has none to read).
func TestStartUpBlockingIsDerived(t *testing.T) {
	c, err := ReadCaches(cacheDir)
	if err != nil {
		t.Logf("no %s (%v): the defaults", cacheDir, err)
	}
	assert.Equal(t, DeriveBlocking(c, Active()), ActiveBlocking())
	t.Logf("%s: %v", Active().Name, ActiveBlocking())
}

// TestSgemmFollowsTheBlocking: with other row blocks and column panels
// (SetBlocking), every panel Sgemm packs is at most NC columns wide (NCA
// where its A strips are outer: the strips do not fit L1d together) and its
// row blocks at most MC high, both sizes reached; and since neither changes
// the order in which any entry's terms are summed, the products are bit for
// bit those of the machine's blocking, and within rounding of the float64
// reference.
func TestSgemmFollowsTheBlocking(t *testing.T) {
	defer SetBlocking(ActiveBlocking())
	defer func() { panelHook = nil }()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	shapes := [][3]int{{300, 200, 500}, {60, 700, 90}, {2000, 64, 288}}
	for _, s := range shapes {
		m, n, k := s[0], s[1], s[2]
		r := rand.New(rand.NewPCG(uint64(m), uint64(n)))
		a, b := randSlice(r, m*k), randSlice(r, k*n)
		want := reference(false, false, m, n, k, 1, a, k, b, n, 0, make([]float32, m*n), n)
		base := make([]float32, m*n)
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, base, n)
		for _, bl := range []Blocking{{KC: 384, MC: 24, NC: 64}, {KC: 384, MC: 48, NC: 96}, {KC: 384, MC: 384, NC: 256},
			// NCA where A strips are outer (no L1d: nothing fits), NC where B strips are (an L1d everything fits)
			{KC: 384, MC: 48, NC: 256, NCA: 64}, {KC: 384, MC: 48, NC: 64, NCA: 256, Caches: Caches{L1d: 1 << 20}}} {
			SetBlocking(bl)
			maxCols, maxMC := 0, 0
			panelHook = func(cols, mc int) { maxCols, maxMC = max(maxCols, cols), max(maxMC, mc) }
			got := make([]float32, m*n)
			Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, got, n)
			panelHook = nil
			nc := bl.NC
			if bl.NCA > 0 && !stripsFit(Active(), kBlock(k), bl.Caches.L1d) {
				nc = bl.NCA
			}
			assert.LessOrEqual(t, maxCols, nc, "%v, %+v: a panel wider than NC (NCA with A strips outer)", s, bl)
			assert.LessOrEqual(t, maxMC, bl.MC, "%v, %+v: a row block higher than MC", s, bl)
			if n/min(n, runtime.GOMAXPROCS(0)) >= nc {
				assert.Equal(t, nc, maxCols, "%v, %+v: NC (NCA with A strips outer) never reached", s, bl)
			}
			if m >= 4*2*bl.MC {
				assert.Equal(t, bl.MC/Active().MR*Active().MR, maxMC, "%v, %+v: MC never reached", s, bl)
			}
			for i := range got {
				require.Equal(t, base[i], got[i], "%v, %+v: entry %d differs from the machine's blocking", s, bl, i)
				require.InDelta(t, want[i], got[i], 1e-5*float64(k+2), "%v, %+v: entry %d", s, bl, i)
			}
		}
	}
}

// Sgemm's row blocks take B strips outer only where a B strip and an A
// strip fit in L1d together (bStripsOuter), and never with L1d unknown.
func TestBStripsOuter(t *testing.T) {
	defer SetBlocking(ActiveBlocking())
	for _, tc := range []struct {
		l1d, kb int
		kern    Kernel
		want    bool
	}{
		{32 << 10, 344, KernelAVX2, true},  // 2048³: (6+16)·344·4 = 30 KiB
		{32 << 10, 384, KernelAVX2, false}, // 33 KiB
		{48 << 10, 384, KernelAVX512, false},
		{64 << 10, 384, KernelAVX512, true},
		{0, 8, KernelAVX2, false},
	} {
		b := ActiveBlocking()
		b.Caches.L1d = tc.l1d
		SetBlocking(b)
		assert.Equal(t, tc.want, bStripsOuter(tc.kern, tc.kb), "%s, kb %d, L1d %d", tc.kern.Name, tc.kb, tc.l1d)
	}
}
