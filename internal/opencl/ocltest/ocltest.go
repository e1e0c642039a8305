// Package ocltest gives tests an OpenCL context or a clear reason why there
// is none: locally a test without OpenCL skips and says which library or
// device is missing; in CI (CI=true) it fails, so the OpenCL tests are never
// skipped silently there (.ci/run installs PoCL, the ICD loader and
// CLBlast).
package ocltest

import (
	"os"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// DeviceEnv names the variable that picks the test device (default
// "opencl", platform 0 device 0; e.g. LLPFC_TEST_DEVICE=opencl:1:0).
const DeviceEnv = "LLPFC_TEST_DEVICE"

// InCI reports whether the tests run in CI (CI=true).
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable reports why OpenCL tests cannot run here (the loader, a
// platform with the chosen device, or CLBlast is missing), or nil.
func Unavailable() error { return opencl.Unavailable(Device()) }

// Device is the device string the tests use.
func Device() string {
	if d := os.Getenv(DeviceEnv); d != "" {
		return d
	}
	return "opencl"
}

// Require skips t (fails it in CI) unless OpenCL, the test device and
// CLBlast are available.
func Require(t testing.TB) {
	t.Helper()
	if err := Unavailable(); err != nil {
		if InCI() {
			t.Fatalf("OpenCL is required in CI (CI=true) but unavailable: %v", err)
		}
		t.Skipf("OpenCL unavailable, skipping (CI=true makes this a failure): %v", err)
	}
}

// Context opens the test device after Require; the caller closes it.
func Context(t testing.TB) *opencl.Context {
	t.Helper()
	Require(t)
	ctx, err := opencl.Open(Device())
	if err != nil {
		t.Fatalf("open %s: %v", Device(), err)
	}
	return ctx
}
