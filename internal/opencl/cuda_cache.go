package opencl

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"
	"unsafe"

	"github.com/llpfc/llpfc/internal/atomicfile"
)

// The disk cache of the CUDA kernel images (doc.go, "The CUDA driver").
// NVRTC compiles the whole kernel library in seconds, and every llpfc
// process that opens a CUDA device would compile it again; a GPU kit runs
// several such processes in a few minutes of a rented GPU. The cache keeps
// the image NVRTC made (a CUBIN, or the PTX of the fallback) under a key
// that names everything the image depends on, so an image is reused only
// for the very compile that made it.

// CUDACacheEnv names the folder of the compiled kernel images (default
// os.UserCacheDir()/llpfc/cuda, e.g. ~/.cache/llpfc/cuda); "off" turns
// the cache off (every process compiles, as to time NVRTC).
const CUDACacheEnv = "LLPFC_CUDA_CACHE"

// CUDAImage says where a CUDA program's module came from: for the kit's
// logs, not for the numerics (an image from the cache is the one NVRTC
// makes for the same key).
type CUDAImage struct {
	// Kind is "cubin" (for the device's sm_XY) or "ptx" (compute_XY,
	// compiled by the driver, when NVRTC did not know the GPU).
	Kind string
	// Cached: the image was read from the cache, not compiled by NVRTC
	// in this process.
	Cached bool
	// Path is the image's cache file ("" without a cache folder).
	Path string
	// CacheErr says why a compiled image was not cached, or that a
	// corrupt cache file was replaced ("" when none).
	CacheErr string
	// Pruned is the number of older images removed from the cache folder
	// when this one was cached (pruneCUDACache).
	Pruned int
}

// String is one line for a log, e.g. "cubin from the cache
// /root/.cache/llpfc/cuda/…".
func (i CUDAImage) String() string {
	switch {
	case i.Kind == "":
		return "no CUDA image"
	case i.Cached:
		return i.Kind + " from the cache " + i.Path
	case i.CacheErr != "":
		return i.Kind + " compiled by NVRTC (" + i.CacheErr + ")"
	case i.Path == "":
		return i.Kind + " compiled by NVRTC (no cache folder, or " + CUDACacheEnv + "=off)"
	case i.Pruned > 0:
		return fmt.Sprintf("%s compiled by NVRTC, cached as %s (%d least recently used images removed: the cache keeps %d)", i.Kind, i.Path, i.Pruned, cudaCacheKeep)
	}
	return i.Kind + " compiled by NVRTC, cached as " + i.Path
}

// cudaCacheDir is the cache's folder: $LLPFC_CUDA_CACHE, else llpfc/cuda
// under the user's cache folder, or "" when there is none (no $HOME, or
// LLPFC_CUDA_CACHE=off).
func cudaCacheDir() string {
	if d := os.Getenv(CUDACacheEnv); d == "off" {
		return ""
	} else if d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "llpfc", "cuda")
}

// cudaCacheKey names an image by everything it depends on: the source,
// NVRTC's options (the architecture among them), NVRTC's version (its
// code generation), the driver's version (which loads, and for PTX
// compiles, the image) and the image's kind. Each field is
// length-prefixed, so no two lists of fields hash the same bytes.
func cudaCacheKey(src string, options []string, nvrtcVersion, driverVersion, kind string) string {
	h := sha256.New()
	field := func(s string) {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field("llpfc CUDA kernel image 1")
	field(src)
	field(strconv.Itoa(len(options)))
	for _, o := range options {
		field(o)
	}
	field(nvrtcVersion)
	field(driverVersion)
	field(kind)
	return hex.EncodeToString(h.Sum(nil))
}

// cudaCacheMagic starts every cache file, followed by the image's SHA-256
// and the image: a file that is truncated, overwritten or of another
// format fails the check and is never handed to the driver.
const cudaCacheMagic = "LLPFC-CUDA-IMAGE-1\n"

// readCUDACache returns the image cached at path; ok is false when there
// is none. A file that fails the check is removed (corrupt reports it).
func readCUDACache(path string) (image []byte, ok, corrupt bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, false
	}
	if len(b) <= len(cudaCacheMagic)+sha256.Size || string(b[:len(cudaCacheMagic)]) != cudaCacheMagic {
		os.Remove(path)
		return nil, false, true
	}
	sum, image := b[len(cudaCacheMagic):len(cudaCacheMagic)+sha256.Size], b[len(cudaCacheMagic)+sha256.Size:]
	if got := sha256.Sum256(image); !bytes.Equal(got[:], sum) {
		os.Remove(path)
		return nil, false, true
	}
	return image, true, false
}

// writeCUDACache stores image at path atomically (a reader sees the old
// file or the new one, never a torn one), making the folder if need be.
func writeCUDACache(path string, image []byte) error {
	sum := sha256.Sum256(image)
	b := make([]byte, 0, len(cudaCacheMagic)+len(sum)+len(image))
	b = append(append(append(b, cudaCacheMagic...), sum[:]...), image...)
	return atomicfile.WriteFile(path, b)
}

// cudaCacheKeep is the most images the cache folder keeps. Every version
// of the kernel library, of NVRTC or of the driver, and every kind of GPU,
// makes a new image of a few MB, and nothing else would ever remove the
// old ones; eight is a few GPU kinds' images for a few versions each.
const cudaCacheKeep = 8

// cudaCacheName is the name of a cache file: its key and its kind.
var cudaCacheName = regexp.MustCompile(`^[0-9a-f]{64}\.(cubin|ptx)$`)

// pruneCUDACache removes all but the keep most recently used images from
// dir (their files' modification times: a cache hit touches its file),
// never keep's own path, and returns how many it removed. It removes only
// the cache's own files — a name of cudaCacheName's form and a file that
// starts with cudaCacheMagic — so a folder that LLPFC_CUDA_CACHE shares
// with anything else loses nothing else. A file it cannot read or remove
// is left as it is.
func pruneCUDACache(dir string, keep int, keepPath string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	type image struct {
		path string
		mod  time.Time
	}
	var images []image
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() || !cudaCacheName.MatchString(e.Name()) || path == keepPath || !isCUDACacheFile(path) {
			continue
		}
		if info, err := e.Info(); err == nil {
			images = append(images, image{path, info.ModTime()})
		}
	}
	if keepPath != "" {
		keep-- // keepPath is one of them
	}
	if len(images) <= keep {
		return 0
	}
	sort.SliceStable(images, func(a, b int) bool { return images[a].mod.After(images[b].mod) })
	removed := 0
	for _, im := range images[max(keep, 0):] {
		if os.Remove(im.path) == nil {
			removed++
		}
	}
	return removed
}

// isCUDACacheFile reports whether the file at path starts as a cache file
// does (cudaCacheMagic).
func isCUDACacheFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(cudaCacheMagic))
	_, err = io.ReadFull(f, head)
	return err == nil && string(head) == cudaCacheMagic
}

// touchCUDACache marks the image at path as used now, for pruneCUDACache
// (an error leaves it as old as it was: it may be pruned sooner).
func touchCUDACache(path string) {
	now := time.Now()
	_ = os.Chtimes(path, now, now)
}

// cudaVersions are NVRTC's and the driver's versions, for the key.
func cudaVersions() (nvrtcVersion, driverVersion string) {
	var major, minor, drv int32
	if nvrtc.Version(&major, &minor) == 0 {
		nvrtcVersion = fmt.Sprintf("NVRTC %d.%d", major, minor)
	}
	if cu.DriverGetVersion(&drv) == 0 {
		driverVersion = "driver " + strconv.Itoa(int(drv))
	}
	return
}

// loadCached loads the image cached at path, if any: a file that fails
// the check or that the driver refuses is removed (never trusted), and
// the caller compiles; why says so.
func (d *cudaCtx) loadCached(path string) (m cuModule, ok bool, why string) {
	image, ok, corrupt := readCUDACache(path)
	if !ok {
		if corrupt {
			why = "a corrupt cache file was removed"
		}
		return 0, false, why
	}
	m, err := d.load(image)
	if err != nil {
		os.Remove(path)
		return 0, false, "a cache file the driver refused was removed: " + err.Error()
	}
	touchCUDACache(path)
	return m, true, ""
}

// load loads an image as a module.
func (d *cudaCtx) load(image []byte) (cuModule, error) {
	unbind, err := d.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	var m cuModule
	// The versions in the message: a fresh image the driver refuses most
	// likely comes from an NVRTC newer than the driver.
	if err := cuCheck(cu.ModuleLoadData(&m, unsafe.Pointer(&image[0])), "cuModuleLoadData", fmt.Sprintf("%d bytes; %s", len(image), CUDAVersions())); err != nil {
		return 0, err
	}
	return m, nil
}
