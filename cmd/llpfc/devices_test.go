package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/opencl/ocltest"
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
		os.Exit(dispatch([]string{"devices"}, os.Stdout, os.Stderr))
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
