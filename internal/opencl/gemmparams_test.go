package opencl_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
)

// gpuLimits is a device with an NVIDIA GPU's limits: 1024 threads a
// work-group, 48 KiB of local memory.
var gpuLimits = opencl.DeviceInfo{Name: "a GPU", MaxWorkGroupSize: 1024, LocalMemBytes: 48 << 10}

// TestCLBlastsEntriesAreValid: the tuner's first candidates are entries of
// CLBlast's own database, which its tuner found running on GPUs; every one
// passes Validate on a GPU's limits.
func TestCLBlastsEntriesAreValid(t *testing.T) {
	for _, v := range opencl.KnownXgemm {
		p := opencl.GEMMParams{opencl.KernelXgemm: opencl.ParamsOf(opencl.KernelXgemm, v...)}
		if err := p.Validate(gpuLimits); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	for _, v := range opencl.KnownXgemmDirect {
		p := opencl.GEMMParams{opencl.KernelXgemmDirect: opencl.ParamsOf(opencl.KernelXgemmDirect, v...)}
		if err := p.Validate(gpuLimits); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
}

// a100 is CLBlast's database entry for the A100 (Xgemm, single precision).
func a100() map[string]int {
	return opencl.ParamsOf(opencl.KernelXgemm, 0, 1, 32, 2, 8, 8, 32, 16, 16, 64, 1, 1, 0, 0, 4, 4)
}

// TestGEMMParamsValidateRefuses: parameters that break one of CLBlast's
// rules or the device's limits are refused with the rule, each broken
// alone in a valid set.
func TestGEMMParamsValidateRefuses(t *testing.T) {
	set := func(v int, kv ...string) opencl.GEMMParams {
		x := a100()
		for i := 0; i < len(kv); i++ {
			x[kv[i]] = v
		}
		return opencl.GEMMParams{opencl.KernelXgemm: x}
	}
	missing := a100()
	delete(missing, "VWN")
	extra := a100()
	extra["TILE"] = 4
	for _, c := range []struct {
		name string
		p    opencl.GEMMParams
		want string
	}{
		{"a parameter missing", opencl.GEMMParams{opencl.KernelXgemm: missing}, "lacks VWN"},
		{"a parameter unknown", opencl.GEMMParams{opencl.KernelXgemm: extra}, `no parameter "TILE"`},
		{"a kernel unknown", opencl.GEMMParams{"Xgemv": a100()}, `unknown kernel "Xgemv"`},
		{"KWI not dividing KWG", set(3, "KWI"), "KWI divides KWG"},
		{"a vector width of 3", set(3, "VWM"), "vector widths"},
		{"MDIMC·VWM not dividing MWG", set(48, "MWG"), "divides MWG"},
		{"MDIMA·VWM not dividing MWG", opencl.GEMMParams{opencl.KernelXgemm: func() map[string]int { x := a100(); x["MDIMA"] = 16; return x }()}, "MDIMA·VWM divides MWG"},
		{"KWG not a multiple of the loads", set(8, "KWG"), "divide KWG"},
		{"SA of 2", set(2, "SA"), "0 or 1"},
		{"a negative size", set(-2, "NWG"), "≥ 0"},
		{"too many threads", opencl.GEMMParams{opencl.KernelXgemm: opencl.ParamsOf(opencl.KernelXgemm, 0, 1, 64, 2, 32, 64, 64, 32, 32, 64, 0, 0, 0, 0, 1, 1)}, "more than the device's work-groups"},
		{"32 KiB of local memory (fits)", opencl.GEMMParams{opencl.KernelXgemm: opencl.ParamsOf(opencl.KernelXgemm, 0, 1, 32, 2, 16, 16, 128, 16, 16, 128, 1, 1, 0, 0, 8, 8)}, ""},
		{"64 KiB of local memory", opencl.GEMMParams{opencl.KernelXgemm: opencl.ParamsOf(opencl.KernelXgemm, 0, 1, 32, 2, 16, 16, 256, 16, 16, 256, 1, 1, 0, 0, 8, 8)}, "local memory"},
		{"direct: PADA of 2", opencl.GEMMParams{opencl.KernelXgemmDirect: opencl.ParamsOf(opencl.KernelXgemmDirect, 8, 8, 16, 32, 16, 2, 1, 2, 1, 32)}, "PADA and PADB"},
		{"direct: WGD not a multiple of KWID", opencl.GEMMParams{opencl.KernelXgemmDirect: opencl.ParamsOf(opencl.KernelXgemmDirect, 5, 8, 16, 32, 16, 1, 1, 2, 1, 32)}, "KWID divides WGD"},
		{"direct: too much local memory", opencl.GEMMParams{opencl.KernelXgemmDirect: opencl.ParamsOf(opencl.KernelXgemmDirect, 2, 8, 8, 8, 8, 1, 1, 1, 1, 128)}, "local memory"},
		{"GEMMK 1 with KWG 2", opencl.GEMMParams{opencl.KernelXgemm: opencl.ParamsOf(opencl.KernelXgemm, 1, 2, 2, 1, 8, 8, 32, 8, 8, 32, 0, 0, 0, 0, 2, 2)}, "with GEMMK 1"},
	} {
		err := c.p.Validate(gpuLimits)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: Validate = %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := (opencl.GEMMParams{opencl.KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 0}}).Validate(gpuLimits); err != nil {
		t.Errorf("the routine's split alone: %v", err)
	}
}

// exact is a/b when b divides a into a whole quotient ≥ 1, ok false else.
func exact(a, b int) (int, bool) {
	if b < 1 || a%b != 0 || a/b < 1 {
		return 0, false
	}
	return a / b, true
}

// TestPropertyValidateIsTheKernelsArithmetic: for generated Xgemm
// parameters (GEMMK 0) and XgemmDirect ones, on a device without limits,
// Validate accepts exactly those for which the quantities CLBlast's
// kernels define from them (xgemm_part1.opencl's MWI, NWI, KDIMA, KDIMB,
// MWA, KWA, KWB, NWB; xgemm_direct_part1.opencl's …D twins) are whole
// numbers ≥ 1, the per-thread and per-load counts divide by the vector
// widths, and the k-loop unrolls whole.
func TestPropertyValidateIsTheKernelsArithmetic(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 2000
	p := gopter.NewProperties(params)
	tile := gen.OneConstOf(8, 12, 16, 24, 32, 48, 64, 96, 128)
	dim := gen.OneConstOf(2, 4, 6, 8, 16, 32)
	width := gen.OneConstOf(1, 2, 4, 8)
	noLimits := opencl.DeviceInfo{Name: "no limits"}
	p.Property("Xgemm", prop.ForAll(func(mwg, nwg, kwg, mdimc, ndimc, mdima, ndimb, vwm, vwn, kwi int) bool {
		v := opencl.ParamsOf(opencl.KernelXgemm, 0, 1, kwg, kwi, mdima, mdimc, mwg, ndimb, ndimc, nwg, 1, 1, 0, 0, vwm, vwn)
		got := opencl.GEMMParams{opencl.KernelXgemm: v}.Validate(noLimits) == nil
		return got == xgemmTiles(mwg, nwg, kwg, mdimc, ndimc, mdima, ndimb, vwm, vwn, kwi)
	}, tile, tile, gen.OneConstOf(8, 16, 24, 32), dim, dim, dim, dim, width, width, gen.OneConstOf(1, 2, 3, 4)))
	p.Property("XgemmDirect", prop.ForAll(func(wgd, mdimcd, ndimcd, mdimad, ndimbd, vwmd, vwnd, kwid int) bool {
		v := opencl.ParamsOf(opencl.KernelXgemmDirect, kwid, mdimad, mdimcd, ndimbd, ndimcd, 1, 1, vwmd, vwnd, wgd)
		got := opencl.GEMMParams{opencl.KernelXgemmDirect: v}.Validate(noLimits) == nil
		// The direct kernel's tile is WGD square in m, n and k.
		return got == xgemmTiles(wgd, wgd, wgd, mdimcd, ndimcd, mdimad, ndimbd, vwmd, vwnd, kwid)
	}, tile, dim, dim, dim, dim, width, width, gen.OneConstOf(1, 2, 3, 8)))
	p.TestingRun(t)
}

// xgemmTiles is CLBlast's rule for a valid tiling (its Xgemm kernel's
// requirements, written out from the kernel's source): the work-group's
// threads divide the tile in m and n, reload A's and B's tiles in whole
// rows, and the vector widths divide each thread's share.
func xgemmTiles(mwg, nwg, kwg, mdimc, ndimc, mdima, ndimb, vwm, vwn, kwi int) bool {
	mwi, ok1 := exact(mwg, mdimc)
	nwi, ok2 := exact(nwg, ndimc)
	kdima, ok3 := exact(mdimc*ndimc, mdima)
	kdimb, ok4 := exact(mdimc*ndimc, ndimb)
	mwa, ok5 := exact(mwg, mdima)
	_, ok6 := exact(kwg, kdima)
	_, ok7 := exact(kwg, kdimb)
	nwb, ok8 := exact(nwg, ndimb)
	return ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && mwi%vwm == 0 && nwi%vwn == 0 && mwa%vwm == 0 && nwb%vwn == 0 && kwg%kwi == 0
}

// TestTuneCandidates: the tuner begins with CLBlast's database entries,
// then draws its spaces; every candidate is valid on the device and none
// comes twice.
func TestTuneCandidates(t *testing.T) {
	for _, k := range []string{opencl.KernelXgemm, opencl.KernelXgemmDirect} {
		known := opencl.KnownXgemm
		if k == opencl.KernelXgemmDirect {
			known = opencl.KnownXgemmDirect
		}
		cands := opencl.Candidates(k, gpuLimits, 3, 400)
		if len(cands) != 400 {
			t.Fatalf("%s: %d candidates, want 400", k, len(cands))
		}
		seen := map[string]bool{}
		for i, c := range cands {
			p := opencl.GEMMParams{k: c}
			if err := p.Validate(gpuLimits); err != nil {
				t.Errorf("%s candidate %d: %v", k, i, err)
			}
			if seen[p.String()] {
				t.Errorf("%s candidate %d repeats %v", k, i, p)
			}
			seen[p.String()] = true
			if i < len(known) && p.String() != (opencl.GEMMParams{k: opencl.ParamsOf(k, known[i]...)}).String() {
				t.Errorf("%s candidate %d is %v, want CLBlast's entry %v", k, i, p, known[i])
			}
		}
	}
}

// gemmChild is the variable that makes TestGEMMOverrides run its checks:
// they change CLBlast's parameters for the rest of the process, so the
// test runs them in a process of their own.
const gemmChild = "LLPFC_TEST_GEMM_OVERRIDES"

// TestGEMMOverrides, in a process of its own: the tuning pass times
// CLBlast's defaults and one candidate (CLBlast's A100 entry) on the test
// device and keeps it as asked; with those parameters every product of
// TestSgemm is right; parameters whose work-groups the device cannot run
// make the products fail (the override reaches CLBlast); set back, the
// products are right again. A second tuning on the same context is
// refused (its defaults are no longer CLBlast's).
func TestGEMMOverrides(t *testing.T) {
	ocltest.Require(t)
	if os.Getenv(gemmChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGEMMOverrides$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), gemmChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestGEMMOverrides") {
			t.Fatalf("the checks' process: %v\n%s", err, out)
		}
		return
	}
	l := testLib(t)
	ctx := l.Context()
	shapes := []opencl.GEMMCall{
		{M: 33, N: 65, K: 17, Calls: 3},
		{TransA: true, M: 17, N: 3, K: 130, Calls: 1},
		{TransB: true, M: 64, N: 64, K: 64, Calls: 2},
		{M: 1000, N: 1000, K: 1000, Calls: 1}, // 12 MB of operands: left out
	}
	res, err := opencl.TuneGEMM(ctx, shapes, opencl.TuneOptions{Budget: time.Nanosecond, MaxBytes: 1 << 20, MinCandidates: 1, KeepBest: true,
		Kernels: []string{opencl.KernelXgemm}, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	want := opencl.GEMMParams{opencl.KernelXgemm: a100(), opencl.KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 0}}
	if res.Params.String() != want.String() || ctx.GEMMOverride().String() != want.String() {
		t.Fatalf("kept %v (the context has %v), want %v", res.Params, ctx.GEMMOverride(), want)
	}
	if res.Tried != 1 || len(res.Shapes) != 3 || len(res.Skipped) != 1 || res.Skipped[0].M != 1000 || !(res.Default > 0) || !(res.Tuned > 0) {
		t.Errorf("result %+v: want 1 candidate tried, 3 shapes timed and the large one skipped", res)
	}
	for _, s := range res.Shapes {
		if !(s.Default > 0 && s.Tuned > 0) {
			t.Errorf("shape %+v not timed", s)
		}
	}
	if _, err := opencl.TuneGEMM(ctx, shapes[:1], opencl.TuneOptions{Budget: time.Second}); err == nil || !strings.Contains(err.Error(), "already overrode") {
		t.Errorf("a second tuning on the context: %v, want a refusal", err)
	}
	t.Run("tuned products", func(t *testing.T) { sgemmProducts(t, l) })
	// 128×128 threads a work-group: more than any device runs.
	huge := opencl.ParamsOf(opencl.KernelXgemm, 0, 1, 128, 2, 128, 128, 128, 128, 128, 128, 0, 0, 0, 0, 1, 1)
	if err := ctx.OverrideUnchecked(opencl.KernelXgemm, huge); err != nil {
		t.Fatal(err)
	}
	a := upload(t, l, make([]float32, 64*64))
	err = ctx.Sgemm(false, false, 64, 64, 64, 1, a, 0, 64, a, 0, 64, 0, a, 0, 64)
	if err == nil {
		err = ctx.Finish()
	}
	if err == nil {
		t.Errorf("a product with %d threads a work-group ran: the override did not reach CLBlast", 128*128)
	} else {
		t.Logf("with 16384 threads a work-group: %v", err)
	}
	if err := ctx.OverrideGEMM(res.Params); err != nil {
		t.Fatal(err)
	}
	t.Run("set back", func(t *testing.T) { sgemmProducts(t, l) })
}

// testLog writes the tuner's lines to the test's log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
