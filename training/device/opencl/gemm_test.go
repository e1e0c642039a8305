package opencl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device/opcheck"
	devopencl "github.com/llpfc/llpfc/training/device/opencl"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGEMMTuningName: a device's tuning file is named by the device, in
// lower case, runs of other characters one dash.
func TestGEMMTuningName(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA H200":                      "clblast-gemm-nvidia-h200.json",
		"pthread-skylake-avx512-AMD EPYC":  "clblast-gemm-pthread-skylake-avx512-amd-epyc.json",
		"  Tesla V100-PCIE-16GB (rev. 2) ": "clblast-gemm-tesla-v100-pcie-16gb-rev-2.json",
	} {
		assert.Equal(t, want, devopencl.GEMMTuningName(opencl.DeviceInfo{Name: name}))
	}
}

// tuningFile writes a tuning file of params for the test device into a
// folder of the test's and returns its path.
func tuningFile(t *testing.T, device string, params opencl.GEMMParams) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tuning.json")
	require.NoError(t, devopencl.WriteGEMMTuning(path, &devopencl.GEMMTuning{Device: device, Driver: "test",
		Result: opencl.TuneResult{Params: params, Default: 2, Tuned: 1}}))
	return path
}

// testDevice is the test device's description.
func testDevice(t *testing.T) opencl.DeviceInfo {
	t.Helper()
	ocltest.Require(t)
	ctx, err := opencl.Open(ocltest.Device())
	require.NoError(t, err)
	defer ctx.Close()
	return ctx.Device()
}

// TestGEMMVariantRefusals: LLPFC_OPENCL_GEMM's choices that cannot be
// applied stop Open with the file and the reason — tuned without a file
// beside the binary, a missing file, another device's, one with a key of
// no tuning file, one with parameters that break CLBlast's rules — and
// default, an empty choice and a file whose search found nothing faster
// open with CLBlast's own parameters, named in the numerics. (None of
// these overrides CLBlast: TestOpChecksWithTunedGEMM applies files, in
// processes of their own.)
func TestGEMMVariantRefusals(t *testing.T) {
	dev := testDevice(t)
	a100 := map[string]int{"GEMMK": 0, "KREG": 1, "KWG": 32, "KWI": 2, "MDIMA": 8, "MDIMC": 8, "MWG": 32, "NDIMB": 16, "NDIMC": 16, "NWG": 64, "SA": 1, "SB": 1, "STRM": 0, "STRN": 0, "VWM": 4, "VWN": 4}
	broken := map[string]int{}
	for k, v := range a100 {
		broken[k] = v
	}
	broken["KWI"] = 3
	unknownKey := filepath.Join(t.TempDir(), "unknown.json")
	require.NoError(t, os.WriteFile(unknownKey, []byte(`{"device": "`+dev.Name+`", "result": {"params": null}, "speedup": 2}`), 0o644))
	for _, c := range []struct {
		env  string
		want []string
	}{
		{"tuned", []string{devopencl.GEMMEnv + "=tuned: no tuning file", devopencl.GEMMTuningName(dev), "--tune-gemm"}},
		{filepath.Join(t.TempDir(), "none.json"), []string{devopencl.GEMMEnv, "none.json", "no such file"}},
		{tuningFile(t, "another GPU", opencl.GEMMParams{opencl.KernelXgemm: a100}), []string{"tuning.json was tuned on \"another GPU\", not this device"}},
		{unknownKey, []string{"unknown.json", "speedup"}},
		{tuningFile(t, dev.Name, opencl.GEMMParams{opencl.KernelXgemm: broken}), []string{"tuning.json", "KWI divides KWG"}},
	} {
		t.Setenv(devopencl.GEMMEnv, c.env)
		be, err := devopencl.Open(ocltest.Device())
		if !assert.Error(t, err, c.env) {
			be.Close()
			continue
		}
		for _, w := range c.want {
			assert.Contains(t, err.Error(), w, c.env)
		}
	}
	for env, want := range map[string]string{
		"default":                    "gemm default (CLBlast's parameters)",
		"":                           "gemm default (CLBlast's parameters; no tuning file beside the binary)",
		tuningFile(t, dev.Name, nil): "gemm default (CLBlast's parameters: tuning found none faster, tuning.json)",
	} {
		t.Setenv(devopencl.GEMMEnv, env)
		be, err := devopencl.Open(ocltest.Device())
		require.NoError(t, err, env)
		assert.Equal(t, want, be.Numerics(), env)
		require.NoError(t, be.Close())
	}
}

// TestGEMMTuningRoundTrip: a tuning file reads back as written.
func TestGEMMTuningRoundTrip(t *testing.T) {
	p := opencl.GEMMParams{opencl.KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 512}}
	path := tuningFile(t, "a GPU", p)
	got, err := devopencl.ReadGEMMTuning(path, opencl.DeviceInfo{Name: "a GPU"})
	require.NoError(t, err)
	assert.Equal(t, p, got.Result.Params)
	assert.Equal(t, "test", got.Driver)
}

// gemmOpsChild names the variable that makes TestOpChecksWithTunedGEMM run
// the op checks (with the tuning file it names applied).
const gemmOpsChild = "LLPFC_TEST_GEMM_OPS"

// TestOpChecksWithTunedGEMM: every op check passes against the CPU back end
// with a tuning file applied — one that runs every product on CLBlast's
// indirect kernel with its A100 entry, one that runs every product on its
// direct kernel with its V100 entry (each in a process of its own, since an
// override lasts the process) — and the back end names the file in its
// numerics.
func TestOpChecksWithTunedGEMM(t *testing.T) {
	if path := os.Getenv(gemmOpsChild); path != "" {
		t.Setenv(devopencl.GEMMEnv, path)
		be := openBackend(t)
		assert.Contains(t, be.Numerics(), "gemm tuned (tuning.json, 2.00× CLBlast's defaults")
		tuned, err := devopencl.ReadGEMMTuning(path, be.Context().Device())
		require.NoError(t, err)
		assert.Equal(t, tuned.Result.Params, be.Context().GEMMOverride(), "the parameters CLBlast was given")
		for _, c := range opcheck.Cases() {
			r := opcheck.Run(be, c)
			assert.True(t, r.OK(), "%v", r)
		}
		return
	}
	dev := testDevice(t)
	for name, p := range map[string]opencl.GEMMParams{
		"indirect": {opencl.KernelXgemm: {"GEMMK": 0, "KREG": 1, "KWG": 32, "KWI": 2, "MDIMA": 8, "MDIMC": 8, "MWG": 32, "NDIMB": 16, "NDIMC": 16, "NWG": 64, "SA": 1, "SB": 1, "STRM": 0, "STRN": 0, "VWM": 4, "VWN": 4},
			opencl.KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 0}},
		"direct": {opencl.KernelXgemmDirect: {"KWID": 2, "MDIMAD": 16, "MDIMCD": 16, "NDIMBD": 16, "NDIMCD": 16, "PADA": 1, "PADB": 1, "VWMD": 1, "VWND": 2, "WGD": 32},
			opencl.KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE": 1 << 20}},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOpChecksWithTunedGEMM$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), gemmOpsChild+"="+tuningFile(t, dev.Name, p))
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestOpChecksWithTunedGEMM") {
			t.Errorf("%s: the op checks with %v: %v\n%s", name, p, err, out)
		}
	}
}
