package opencl

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCUDACacheKey: the cache key of a compiled image changes with each
// thing the image depends on (the source, every option and their order,
// NVRTC's version, the driver's, the image's kind) and with nothing
// else; fields cannot run into each other.
func TestCUDACacheKey(t *testing.T) {
	src := "__global__ void k() {}"
	opts := []string{"--fmad=false", "--gpu-architecture=sm_90"}
	base := cudaCacheKey(src, opts, "NVRTC 13.0", "driver 13000", "cubin")
	if again := cudaCacheKey(src, append([]string(nil), opts...), "NVRTC 13.0", "driver 13000", "cubin"); again != base {
		t.Fatalf("the same compile keyed %s and %s", base, again)
	}
	others := map[string]string{
		"source":            cudaCacheKey(src+" ", opts, "NVRTC 13.0", "driver 13000", "cubin"),
		"architecture":      cudaCacheKey(src, []string{"--fmad=false", "--gpu-architecture=sm_80"}, "NVRTC 13.0", "driver 13000", "cubin"),
		"an option":         cudaCacheKey(src, []string{"--fmad=true", "--gpu-architecture=sm_90"}, "NVRTC 13.0", "driver 13000", "cubin"),
		"the options order": cudaCacheKey(src, []string{"--gpu-architecture=sm_90", "--fmad=false"}, "NVRTC 13.0", "driver 13000", "cubin"),
		"one option fewer":  cudaCacheKey(src, opts[1:], "NVRTC 13.0", "driver 13000", "cubin"),
		"options joined":    cudaCacheKey(src, []string{"--fmad=false--gpu-architecture=sm_90"}, "NVRTC 13.0", "driver 13000", "cubin"),
		"NVRTC's version":   cudaCacheKey(src, opts, "NVRTC 12.8", "driver 13000", "cubin"),
		"driver's version":  cudaCacheKey(src, opts, "NVRTC 13.0", "driver 12080", "cubin"),
		"kind":              cudaCacheKey(src, opts, "NVRTC 13.0", "driver 13000", "ptx"),
	}
	seen := map[string]string{base: "the base"}
	for what, k := range others {
		if prev, ok := seen[k]; ok {
			t.Errorf("%s changed and the key did not (same as %s)", what, prev)
		}
		seen[k] = what
	}
}

// TestCUDACacheFile: a cached image reads back as written; a file that is
// truncated, has a flipped byte or is of another format is refused and
// removed (the driver is never handed it); no file is not corrupt.
func TestCUDACacheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "k.cubin") // the folder is made
	image := []byte("\x7fELF a cubin\x00")
	if err := writeCUDACache(path, image); err != nil {
		t.Fatal(err)
	}
	if got, ok, corrupt := readCUDACache(path); !ok || corrupt || string(got) != string(image) {
		t.Fatalf("read back %q, %v, %v", got, ok, corrupt)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)-3] ^= 1
	for what, b := range map[string][]byte{
		"truncated":      good[:len(good)-2],
		"a flipped byte": flipped,
		"only a header":  good[:len(cudaCacheMagic)+32],
		"another format": image,
		"empty":          {},
	} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, ok, corrupt := readCUDACache(path); ok || !corrupt || got != nil {
			t.Errorf("%s: read %q, %v, %v; want it refused", what, got, ok, corrupt)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("%s: the file is still there (%v)", what, err)
		}
	}
	if _, ok, corrupt := readCUDACache(filepath.Join(dir, "none")); ok || corrupt {
		t.Errorf("no file: %v, %v", ok, corrupt)
	}
}

// TestCUDACacheDir: LLPFC_CUDA_CACHE names the folder, or turns the
// cache off; otherwise it is llpfc/cuda under the user's cache folder.
func TestCUDACacheDir(t *testing.T) {
	t.Setenv(CUDACacheEnv, "/some/where")
	if d := cudaCacheDir(); d != "/some/where" {
		t.Errorf("with %s set: %q", CUDACacheEnv, d)
	}
	t.Setenv(CUDACacheEnv, "off")
	if d := cudaCacheDir(); d != "" {
		t.Errorf("with %s=off: %q", CUDACacheEnv, d)
	}
	t.Setenv(CUDACacheEnv, "")
	if runtime.GOOS != "linux" {
		return // os.UserCacheDir reads XDG_CACHE_HOME on Linux only
	}
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	if d := cudaCacheDir(); d != filepath.Join("/xdg", "llpfc", "cuda") {
		t.Errorf("without it: %q", d)
	}
}
