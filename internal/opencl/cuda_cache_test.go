package opencl

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
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

// TestCUDACachePruneKeepsTheNewest: for generated folders — cache images
// of both kinds with distinct ages, the image just cached among them (at
// any age), and what else a shared LLPFC_CUDA_CACHE folder may hold: files
// named as images that are not (no magic), other files, a folder named as
// an image — pruneCUDACache removes exactly the images beyond the keep most
// recently used (the image just cached always kept), reports that count,
// and leaves every other file as it was.
func TestCUDACachePruneKeepsTheNewest(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 60
	props := gopter.NewProperties(params)
	props.Property("the keep newest images and everything else stay", prop.ForAll(func(nImages, fresh, keep, nImposters, nOthers int, seed int64) string {
		dir := t.TempDir()
		r := rand.New(rand.NewSource(seed))
		base := time.Now().Add(-time.Hour)
		ages := r.Perm(nImages) // distinct modification times: 0 the oldest
		var images []string
		write := func(name string, b []byte, age int) string {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			when := base.Add(time.Duration(age) * time.Second)
			if err := os.Chtimes(path, when, when); err != nil {
				t.Fatal(err)
			}
			return path
		}
		key := func(i int, salt string) string { return cudaCacheKey(salt, nil, strconv.Itoa(i), "", "") }
		for i := 0; i < nImages; i++ {
			kind := []string{"cubin", "ptx"}[r.Intn(2)]
			path := filepath.Join(dir, key(i, "image")+"."+kind)
			if err := writeCUDACache(path, []byte("image "+strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
			when := base.Add(time.Duration(ages[i]) * time.Second)
			if err := os.Chtimes(path, when, when); err != nil {
				t.Fatal(err)
			}
			images = append(images, path)
		}
		untouched := map[string]bool{}
		for i := 0; i < nImposters; i++ {
			untouched[write(key(i, "imposter")+".cubin", []byte("a user's file named as an image"), -1-i)] = true
		}
		for i := 0; i < nOthers; i++ {
			untouched[write([]string{"notes.txt", "model.npz", "x.cubin", "ABC.ptx"}[i%4]+strconv.Itoa(i), []byte(cudaCacheMagic+"not ours by name"), -1-i)] = true
		}
		folder := filepath.Join(dir, key(0, "folder")+".cubin")
		if err := os.Mkdir(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		untouched[folder] = true
		keepPath := ""
		if nImages > 0 {
			keepPath = images[fresh%nImages]
		}
		removed := pruneCUDACache(dir, keep, keepPath)
		// The expected survivors: keepPath and the newest others.
		order := append([]string(nil), images...)
		sort.Slice(order, func(a, b int) bool {
			return ages[indexOf(images, order[a])] > ages[indexOf(images, order[b])]
		})
		want := map[string]bool{}
		if keepPath != "" {
			want[keepPath] = true
		}
		for _, p := range order {
			if len(want) >= keep {
				break
			}
			want[p] = true
		}
		if keepPath != "" {
			want[keepPath] = true
		}
		wantRemoved := 0
		for _, p := range images {
			_, err := os.Stat(p)
			switch {
			case want[p] && err != nil:
				return fmt.Sprintf("image %s (age %d) was removed; keep %d", filepath.Base(p), ages[indexOf(images, p)], keep)
			case !want[p] && err == nil:
				return fmt.Sprintf("image %s (age %d) is still there; keep %d", filepath.Base(p), ages[indexOf(images, p)], keep)
			case !want[p]:
				wantRemoved++
			}
		}
		if removed != wantRemoved {
			return fmt.Sprintf("reported %d removed, want %d", removed, wantRemoved)
		}
		for p := range untouched {
			if _, err := os.Stat(p); err != nil {
				return fmt.Sprintf("%s, not an image of the cache, was removed", filepath.Base(p))
			}
		}
		return ""
	}, gen.IntRange(0, 14), gen.IntRange(0, 100), gen.IntRange(1, 10), gen.IntRange(0, 3), gen.IntRange(0, 5), gen.Int64()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
