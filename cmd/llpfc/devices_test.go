package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/device/opcheck"
)

// TestDevicesLists: `llpfc devices` lists every device with the index
// --device takes and says whether CLBlast loads (needs OpenCL: skipped
// without it locally, a failure in CI).
func TestDevicesLists(t *testing.T) {
	ocltest.Require(t)
	var out, errb bytes.Buffer
	code := dispatch([]string{"devices"}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	s := out.String()
	for _, want := range []string{"platform 0: ", "  opencl:0:0  ", "compute units", "global memory", "CLBlast: available"} {
		assert.Contains(t, s, want)
	}
}

// TestDevicesMissingLibrary runs the test binary again with
// LLPFC_OPENCL_LIB naming a file that does not exist: exit status 1 and a
// message naming the file and the Debian package (runs without OpenCL).
func TestDevicesMissingLibrary(t *testing.T) {
	if os.Getenv("LLPFC_TEST_DEVICES_CHILD") == "1" {
		args := []string{"devices"}
		for i, a := range os.Args { // the command after the test flags (TestDevicesNamesABrokenDriver)
			if strings.HasPrefix(a, "-test.run=") && i+1 < len(os.Args) {
				args = os.Args[i+1:]
			}
		}
		os.Exit(dispatch(args, os.Stdout, os.Stderr))
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestDevicesMissingLibrary$")
	cmd.Env = append(os.Environ(), "LLPFC_TEST_DEVICES_CHILD=1", "LLPFC_OPENCL_LIB=/nonexistent/libOpenCL.so.1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "want a non-zero exit; output:\n%s", out)
	assert.Equal(t, exitFailed, ee.ExitCode())
	s := string(out)
	for _, want := range []string{"llpfc devices: OpenCL is not available", "/nonexistent/libOpenCL.so.1", "ocl-icd-libopencl1", "LLPFC_OPENCL_LIB"} {
		assert.True(t, strings.Contains(s, want), "output lacks %q:\n%s", want, s)
	}
}

// TestDevicesCheck: `llpfc devices --check --json` on the test device runs
// every op case and the chosen parity case against the CPU and says ok,
// with a verdict for every operation kind of training/testdata/ops.golden
// (the checks of TestEveryOpKindMatchesTheCPU and TestOpenCLParity, by the
// same code); the text form ends with the verdict line.
func TestDevicesCheck(t *testing.T) {
	ocltest.Require(t)
	var out, errb bytes.Buffer
	code := dispatch([]string{"devices", "--check", "--parity", "mlp/llpfc-uniform", "--json", ocltest.Device()}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	var rep struct {
		Device string
		Ops    []struct {
			Case string
			OK   bool
		}
		Kinds  map[string]bool `json:"op_kinds"`
		Models []struct {
			Model, Method string
			OK            bool
		}
		OK bool
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	assert.True(t, rep.OK)
	assert.Len(t, rep.Ops, len(opcheck.Cases()))
	require.Len(t, rep.Models, 1)
	assert.Equal(t, "mlp", rep.Models[0].Model)
	golden, err := os.ReadFile("../../training/testdata/ops.golden")
	require.NoError(t, err)
	in := false
	for _, line := range strings.Split(string(golden), "\n") {
		switch {
		case strings.HasPrefix(line, "all ("):
			in = true
		case in && strings.HasPrefix(line, "  "):
			k := strings.TrimSpace(line)
			assert.True(t, rep.Kinds[k], "no ok verdict for %s", k)
		case in:
			in = false
		}
	}
	out.Reset()
	code = dispatch([]string{"devices", "--check", "--parity", "none"}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	assert.Contains(t, out.String(), "verdict: ok (")
	assert.Contains(t, out.String(), "op kinds: ")
}

// A registered but unloadable driver is named with its library and why it
// does not load (it was once reported as "no driver"): with no
// other driver, devices exits 1 and train --device 2, both naming the .icd
// file, its library and the loader's message; beside a working driver,
// devices lists the platform and says which registered driver is not
// listed. The child processes read OCL_ICD_VENDORS when they load OpenCL.
func TestDevicesNamesABrokenDriver(t *testing.T) {
	ocltest.Require(t)
	dir := t.TempDir()
	writeFile(t, dir, "vendors/nvidia.icd", "/nonexistent/libnvidia-opencl.so.1\n")
	writeFile(t, dir, "vendors/notalib.icd", writeFile(t, dir, "notalib.so", "not an ELF file")+"\n")
	run := func(args ...string) (int, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDevicesMissingLibrary$")
		cmd.Env = append(os.Environ(), "LLPFC_TEST_DEVICES_CHILD=1", "OCL_ICD_VENDORS="+dir+"/vendors", "OCL_ICD_FILENAMES=")
		cmd.Args = append(cmd.Args, args...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		return 0, string(out)
	}
	code, out := run()
	assert.Equal(t, exitFailed, code, out)
	for _, want := range []string{"2 registered driver(s), none of which gives a platform", dir + "/vendors/nvidia.icd names /nonexistent/libnvidia-opencl.so.1, which cannot be loaded", "No such file", dir + "/vendors/notalib.icd names " + dir + "/notalib.so"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "found no driver")
	code, out = run("train", "--data", gmmSet, "--bag-size", "8", "--num-points", "64", "--epochs", "1", "--quiet", "--device", "opencl")
	assert.Equal(t, exitBadUsage, code, out)
	assert.Contains(t, out, "nvidia.icd names /nonexistent/libnvidia-opencl.so.1")
	if _, err := os.Stat("/etc/OpenCL/vendors/pocl.icd"); err == nil {
		writeFile(t, dir, "vendors/pocl.icd", readString(t, "/etc/OpenCL/vendors/pocl.icd"))
		code, out = run()
		assert.Equal(t, exitOK, code, out)
		assert.Contains(t, out, "platform 0: ")
		assert.Contains(t, out, "not listed: "+dir+"/vendors/nvidia.icd names /nonexistent/libnvidia-opencl.so.1")
		assert.NotContains(t, out, "pocl.icd names")
	}
}

// TestDevicesCheckConvPaths: `llpfc devices --check` runs its op checks
// and a convolutional parity case on the implicit-GEMM convolutions when
// LLPFC_OPENCL_CONV=implicit (ok), and a value of the variable that names
// no path is bad input: exit status 2, the variable and the value named.
func TestDevicesCheckConvPaths(t *testing.T) {
	ocltest.Require(t)
	t.Setenv("LLPFC_OPENCL_CONV", "implicit")
	var out, errb bytes.Buffer
	code := dispatch([]string{"devices", "--check", "--parity", "cnn/kl", "--json", ocltest.Device()}, &out, &errb)
	require.Equal(t, exitOK, code, errb.String())
	var rep struct{ OK bool }
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	assert.True(t, rep.OK, out.String())
	t.Setenv("LLPFC_OPENCL_CONV", "fast")
	out.Reset()
	errb.Reset()
	code = dispatch([]string{"devices", "--check", "--parity", "none", ocltest.Device()}, &out, &errb)
	assert.Equal(t, exitBadUsage, code, errb.String())
	assert.Contains(t, errb.String(), `LLPFC_OPENCL_CONV=fast: "fast" is no convolution path (im2col, implicit, implicit:`)
}
