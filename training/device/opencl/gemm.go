package opencl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llpfc/llpfc/internal/atomicfile"
	"github.com/llpfc/llpfc/internal/opencl"
)

// GEMMEnv names the variable that chooses the matrix products' CLBlast
// parameters (a variant the GPU kit's sweep measures, recorded in every
// result's numerics):
//
//	unset or "auto"  the device's tuning file beside the binary when there
//	                 is one (GEMMTuningPath), else CLBlast's defaults
//	"default"        CLBlast's defaults, even where a tuning file exists
//	"tuned"          the tuning file beside the binary; an error without one
//	a path           that tuning file (it must be the device's)
//
// On a CUDA device the products are cuBLAS's and any value is an error
// (opencl.ErrCUDAGEMM): a setting that changed nothing would mislead.
const GEMMEnv = "LLPFC_OPENCL_GEMM"

// CUDANumerics is how a CUDA device's numerics name its products: cuBLAS
// in fp32 with TF32 off (CUBLAS_DEFAULT_MATH), as PyTorch's fp32 with
// TF32 disabled, so CUDA results never merge with OpenCL ones.
const CUDANumerics = "cuda: gemm cublas fp32, TF32 off"

// GEMMTuning is a tuning file: the parameters `llpfc devices --tune-gemm`
// chose for one device (opencl.TuneGEMM), what it timed them on, and the
// device and driver it timed on.
type GEMMTuning struct {
	Device   string `json:"device"`
	Vendor   string `json:"vendor"`
	Driver   string `json:"driver"`
	Platform string `json:"platform"`
	// TunedAt is when (UTC, RFC 3339); Budget the search's limit.
	TunedAt string  `json:"tuned_at"`
	Budget  float64 `json:"budget_seconds"`
	// Note says how the search was asked to choose (KeepBest's).
	Note   string            `json:"note,omitempty"`
	Result opencl.TuneResult `json:"result"`
}

// GEMMTuningName is the tuning file's name for a device: named by the
// device, so that one folder can hold several devices' files.
func GEMMTuningName(d opencl.DeviceInfo) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(d.Name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return "clblast-gemm-" + strings.TrimSuffix(b.String(), "-") + ".json"
}

// GEMMTuningPath is where the device's tuning file lies: beside the
// running binary.
func GEMMTuningPath(d opencl.DeviceInfo) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the binary's folder for the tuning file: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(exe), GEMMTuningName(d)), nil
}

// ReadGEMMTuning reads a tuning file and checks it against the device it
// is to be applied on: the same device name, parameters valid there.
func ReadGEMMTuning(path string, d opencl.DeviceInfo) (*GEMMTuning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t GEMMTuning
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("GEMM tuning file %s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("GEMM tuning file %s: more than one JSON value", path)
	}
	if t.Device != d.Name {
		return nil, fmt.Errorf("GEMM tuning file %s was tuned on %q, not this device %q (tune it here: llpfc devices --tune-gemm)", path, t.Device, d.Name)
	}
	if err := t.Result.Params.Validate(d); err != nil {
		return nil, fmt.Errorf("GEMM tuning file %s: %w", path, err)
	}
	return &t, nil
}

// WriteGEMMTuning writes a tuning file (atomically: a reader never sees
// half of one).
func WriteGEMMTuning(path string, t *GEMMTuning) error {
	data, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(data, '\n'))
}

// gemmVariant applies the CLBlast parameters GEMMEnv chooses on ctx's
// device and returns how the numerics name them: "gemm default" or
// "gemm tuned (FILE…)" (CUDANumerics on CUDA).
func gemmVariant(ctx *opencl.Context) (string, error) {
	d := ctx.Device()
	mode := os.Getenv(GEMMEnv)
	if d.CUDA {
		if mode != "" { // never a setting silently ignored
			return "", fmt.Errorf("%s=%s: %w", GEMMEnv, mode, opencl.ErrCUDAGEMM)
		}
		return CUDANumerics, nil
	}
	var path string
	switch mode {
	case "default":
		return "gemm default (CLBlast's parameters)", nil
	case "", "auto", "tuned":
		p, err := GEMMTuningPath(d)
		if err != nil {
			return "", err
		}
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			if mode == "tuned" {
				return "", fmt.Errorf("%s=tuned: no tuning file %s for %s (make one with llpfc devices --tune-gemm)", GEMMEnv, p, d.Name)
			}
			return "gemm default (CLBlast's parameters; no tuning file beside the binary)", nil
		}
		path = p
	default:
		path = mode
	}
	t, err := ReadGEMMTuning(path, d)
	if err != nil {
		return "", fmt.Errorf("%s: %w", GEMMEnv, err)
	}
	if t.Result.Params == nil {
		return fmt.Sprintf("gemm default (CLBlast's parameters: tuning found none faster, %s)", filepath.Base(path)), nil
	}
	if err := ctx.OverrideGEMM(t.Result.Params); err != nil {
		return "", fmt.Errorf("%s: applying %s: %w", GEMMEnv, path, err)
	}
	note := fmt.Sprintf("gemm tuned (%s, %.2f× CLBlast's defaults on %d shapes", filepath.Base(path), t.Result.Default/t.Result.Tuned, len(t.Result.Shapes))
	if t.Driver != d.DriverVersion {
		note += fmt.Sprintf("; tuned with driver %s, this is %s", t.Driver, d.DriverVersion)
	}
	return note + ")", nil
}

// TuneGEMM runs the tuning pass on device dev for shapes and writes the
// result to out ("" or a folder: the device's file beside the binary, or
// in that folder). It opens a context of its own, before anything
// overrides CLBlast's defaults in the process, and the process should not
// run products on that device afterwards (opencl.TuneGEMM).
func TuneGEMM(dev string, shapes []opencl.GEMMCall, opt opencl.TuneOptions, out string) (string, *GEMMTuning, error) {
	if err := opencl.Unavailable(dev); err != nil {
		return "", nil, deviceError(dev, err)
	}
	ctx, err := opencl.Open(dev)
	if err != nil {
		return "", nil, deviceError(dev, err)
	}
	defer ctx.Close()
	d := ctx.Device()
	path := out
	if path == "" {
		if path, err = GEMMTuningPath(d); err != nil {
			return "", nil, err
		}
	} else if st, err := os.Stat(out); err == nil && st.IsDir() {
		path = filepath.Join(out, GEMMTuningName(d))
	}
	res, err := opencl.TuneGEMM(ctx, shapes, opt)
	if err != nil {
		return "", nil, deviceError(dev, err)
	}
	t := &GEMMTuning{Device: d.Name, Vendor: d.Vendor, Driver: d.DriverVersion, Platform: d.PlatformName,
		TunedAt: time.Now().UTC().Format(time.RFC3339), Budget: opt.Budget.Seconds(), Result: *res}
	if opt.KeepBest {
		t.Note = "the best candidate kept even where it is not faster than CLBlast's defaults (a run that exercises the overrides)"
	}
	if err := WriteGEMMTuning(path, t); err != nil {
		return "", nil, err
	}
	return path, t, nil
}
