package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/opcheck"
)

func init() {
	register(command{name: "devices", summary: "list the OpenCL platforms and devices and the CUDA devices (for --device opencl:P:D, cuda:N)", run: runDevices})
}

const devicesSynopsis = `Lists the OpenCL platforms and devices this machine offers, each with the index
--device opencl:PLATFORM:DEVICE selects it by (plain "opencl" is opencl:0:0), its name,
vendor, OpenCL version, driver, memory and compute units, and whether CLBlast (the
matrix products of the OpenCL back end) can be loaded.

The OpenCL loader (libOpenCL.so.1, Debian package ocl-icd-libopencl1) and CLBlast
(libclblast.so.1, package libclblast1) are opened at run time; LLPFC_OPENCL_LIB and
LLPFC_CLBLAST_LIB override their paths, and OCL_ICD_FILENAMES points the loader at a
vendor's driver. A missing library or no platform at all exits with status 1 (unless
there is a CUDA device).

Then the CUDA devices, each with the index --device cuda:N selects it by (plain "cuda" is
cuda:0), its name, memory, SMs and compute capability, and the versions of the driver, NVRTC
(which compiles the same kernels for it) and cuBLAS (its matrix products, fp32 with TF32
off); or one line saying why there is none. The driver (libcuda.so.1), NVRTC
(libnvrtc.so.13, .12 or .11.2) and cuBLAS (libcublas.so.13, .12 or .11) are opened at run
time, the newest the driver supports first, also from /usr/local/cuda/lib64; LLPFC_CUDA_LIB,
LLPFC_NVRTC_LIB and LLPFC_CUBLAS_LIB override their paths. NVRTC's image of the kernels is
cached under LLPFC_CUDA_CACHE (default ~/.cache/llpfc/cuda), so that the next process on the
same GPU loads it instead of compiling.

With --check [DEVICE] it checks a device instead (what to run first on a new GPU): one small
graph per operation of the kernel library against the CPU back end's Go operations, with a
verdict per case and per operation kind, then the first training steps of every model ×
method of the op list (tiny inputs) against the CPU back end, with a verdict per case — the
checks the tests TestEveryOpKindMatchesTheCPU and TestOpenCLParity run on PoCL. Exit status 1
if any check fails, 2 if DEVICE cannot be opened (as for train --device). --device DEVICE
is the same as the DEVICE argument (devices --check --device cuda checks CUDA device 0). On
CUDA a kernel that faults loses the context for the rest of the process: the first failing
case's error says so, and CUDA_LAUNCH_BLOCKING=1 makes it name the faulty kernel.

With --tune-gemm SHAPES [DEVICE] it tunes the device's matrix products instead: a timed search
over CLBlast's SGEMM parameters for the products SHAPES lists (llpfc bench --profile --json
gives a step's, its "gemms"), each candidate's products checked against float64 references,
the result written beside the binary as clblast-gemm-DEVICE.json. --device opencl applies that
file at start (LLPFC_OPENCL_GEMM: unset or auto, the file when it is there; default, CLBlast's
own parameters; tuned, the file or an error; or a tuning file's path), and every result names
the parameters in its numerics. LLPFC_OPENCL_CONV chooses how --device opencl runs the
convolutions: unset or im2col, images unfolded into a workspace and multiplied by CLBlast;
implicit, one implicit-GEMM kernel a pass (named in the numerics as "conv implicit"); or
implicit: and some of the passes fwd, dx and dw joined by + (implicit:dw: the filter gradient
implicit, the other passes im2col); or, with --device cuda only, cudnn: each pass one call of
NVIDIA's cuDNN (libcudnn.so.9, LLPFC_CUDNN_LIB), deterministic algorithms in FMA math, no TF32,
no FFT nor non-fused Winograd ("conv cudnn"; LLPFC_CUDNN_ALGO=heuristic takes cuDNN's own pick
instead, deterministic or not, for timing what that rule costs); any other value is an error
(exit status 2).
LLPFC_OPENCL_REDUCE chooses how the per-channel reductions (batch norm's statistics and
gradient sums, the convolutions' bias gradients) run: unset or sliced, a channel of many values
shared by several work-groups whose results a second kernel merges; channel, one work-group a
channel, as before ("reduce channel" in the numerics). --check runs its checks on the paths
the variables choose.`

func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("devices [--check [--parity all|none|full|MODEL/METHOD,…] [--json] [DEVICE]] [--tune-gemm SHAPES [--tune-seconds S] [DEVICE]]", devicesSynopsis, stderr)
	cf := defineCheckFlags(fs)
	tf := defineTuneFlags(fs)
	devFlag := fs.String("device", "", "with --check or --tune-gemm, the device to check or tune (the same as the DEVICE argument)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadUsage
	}
	given := givenFlags(fs)
	if given["device"] {
		if !*cf.check && *tf.shapes == "" {
			return exitWith(stderr, "llpfc devices", usagef("--device goes with --check or --tune-gemm"))
		}
		if fs.NArg() > 0 && fs.Arg(0) != *devFlag {
			return exitWith(stderr, "llpfc devices", usagef("--device %s and the argument %s name two devices", *devFlag, fs.Arg(0)))
		}
		if fs.NArg() == 0 {
			args = append(args, *devFlag)
			if err := fs.Parse(args); err != nil {
				return exitBadUsage
			}
		}
	}
	if *tf.shapes != "" {
		if *cf.check || given["parity"] {
			return exitWith(stderr, "llpfc devices", usagef("--tune-gemm and --check are two runs: tune first, then check (the check applies the tuning file)"))
		}
		if fs.NArg() > 1 {
			fmt.Fprintf(fs.Output(), "llpfc: unexpected argument %q\n", fs.Arg(fs.NArg()-1))
			return exitBadUsage
		}
		dev := "opencl"
		if fs.NArg() == 1 {
			dev = fs.Arg(0)
		}
		return runTune(dev, tf, *cf.asJSON, stdout, stderr)
	}
	if others := tf.others(given); len(others) > 0 {
		return exitWith(stderr, "llpfc devices", usagef("%s go with --tune-gemm", strings.Join(others, ", ")))
	}
	if *cf.check && fs.NArg() <= 1 {
		dev := "opencl"
		if fs.NArg() == 1 {
			dev = fs.Arg(0)
		}
		return runDeviceCheck(dev, cf, stdout, stderr)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "llpfc: unexpected argument %q\n", fs.Arg(fs.NArg()-1))
		return exitBadUsage
	}
	if *cf.parity != "all" || *cf.asJSON {
		return exitWith(stderr, "llpfc devices", usagef("--parity and --json go with --check (--json also with --tune-gemm)"))
	}
	return listDevices(stdout, stderr)
}

// listDevices prints every OpenCL platform with its devices, the drivers
// that failed to load (a GPU's may be the one missing from the list) and
// whether CLBlast can be loaded: what --device opencl:P:D can name.
func listDevices(stdout, stderr io.Writer) int {
	ps, err := opencl.Platforms()
	if err != nil {
		var le *opencl.LibraryError
		if errors.As(err, &le) {
			fmt.Fprintf(stderr, "llpfc devices: OpenCL is not available: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "llpfc devices: listing OpenCL platforms: %v\n", err)
		}
		return cudaOnly(stdout)
	}
	if len(ps) == 0 {
		fmt.Fprintf(stderr, "llpfc devices: no OpenCL platform: %s\n", opencl.NoPlatformReason())
		return cudaOnly(stdout)
	}
	for _, p := range ps {
		printPlatform(stdout, p)
	}
	for _, d := range opencl.BrokenDrivers() { // a GPU's driver may be the one missing from the list
		fmt.Fprintf(stdout, "not listed: %v\n", d)
	}
	if err := opencl.CLBlastAvailable(); err != nil {
		fmt.Fprintf(stdout, "CLBlast: not available: %v\n", err)
	} else {
		fmt.Fprintln(stdout, "CLBlast: available")
	}
	printCUDA(stdout)
	return exitOK
}

// cudaOnly lists the CUDA devices where OpenCL failed: status 1 as
// before when there is none, 0 when there is one to run on.
func cudaOnly(stdout io.Writer) int {
	if printCUDA(stdout) == 0 {
		return exitFailed
	}
	return exitOK
}

// printCUDA writes the CUDA devices (--device cuda:N) with the libraries'
// versions, or one line saying why there are none; it returns how many
// it listed. CUDA missing never fails the listing.
func printCUDA(w io.Writer) int {
	devs, err := opencl.CUDADevices()
	switch {
	case err != nil:
		fmt.Fprintf(w, "CUDA: not available: %v\n", err)
		return 0
	case len(devs) == 0:
		fmt.Fprintln(w, "CUDA: the driver loads but reports no device")
		return 0
	}
	versions := opencl.CUDAVersions()
	for _, d := range devs {
		fmt.Fprintf(w, "cuda:%d %s, %s, %d SMs, compute %d.%d, %s\n", d.Index, d.Name, gib(d.GlobalMemBytes), d.ComputeUnits, d.ComputeMajor, d.ComputeMinor, versions)
	}
	return len(devs)
}

// printPlatform writes one platform and its devices.
func printPlatform(w io.Writer, p opencl.PlatformInfo) {
	fmt.Fprintf(w, "platform %d: %s (%s), %s\n", p.Index, p.Name, p.Vendor, p.Version)
	if len(p.Devices) == 0 {
		fmt.Fprintln(w, "  no devices")
	}
	for _, d := range p.Devices {
		fp64 := "no fp64"
		if d.FP64 {
			fp64 = "fp64"
		}
		fmt.Fprintf(w, "  opencl:%d:%d  %s\n", d.Platform, d.Index, d.Name)
		fmt.Fprintf(w, "      %s, vendor %s, %s, driver %s\n", d.Type, d.Vendor, d.Version, d.DriverVersion)
		fmt.Fprintf(w, "      %s global memory (largest buffer %s), %d compute units, work-groups up to %d, %s\n",
			gib(d.GlobalMemBytes), gib(d.MaxAllocBytes), d.ComputeUnits, d.MaxWorkGroupSize, fp64)
	}
}

// gib formats a byte count in GiB (MiB below 1 GiB).
func gib(b uint64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

// `llpfc devices --check [DEVICE]` (the GPU kit's first check): the kernel library against
// its Go references (the CPU back end's operations, training/device/opcheck)
// on a device, and short trainings on it against the CPU back end (the
// parity cases, training.CheckParity) — the checks TestEveryOpKindMatchesTheCPU
// and TestOpenCLParity run on PoCL, by the same code.

// deviceCheckFlags are the flags of devices --check.
type deviceCheckFlags struct {
	check  *bool
	parity *string
	asJSON *bool
}

func defineCheckFlags(fs *flag.FlagSet) *deviceCheckFlags {
	return &deviceCheckFlags{
		check:  fs.Bool("check", false, "check DEVICE (the argument after the flags; default opencl, platform 0 device 0): every operation of the kernel library against the CPU back end's,\nthen the first training steps of each model × method against the CPU back end; exit status 1 if any check fails"),
		parity: fs.String("parity", "all", "with --check, the model × method trainings to compare: all (every case of the op list), none, full (with VGG16's\nother methods), or a comma-separated list of MODEL/METHOD (e.g. mlp/llpfc-uniform,cnn-bn/kl)"),
		asJSON: fs.Bool("json", false, "with --check, print one JSON object (the device, every op case and kind, every model case, ok) instead of text;\nwith --tune-gemm, the tuning file's contents and its path"),
	}
}

// parityCases returns the cases --parity selects.
func (f *deviceCheckFlags) parityCases() ([]training.ParityCase, error) {
	switch *f.parity {
	case "all", "":
		return training.ParityCases(false), nil
	case "full":
		return training.ParityCases(true), nil
	case "none":
		return nil, nil
	}
	all := training.ParityCases(true)
	var out []training.ParityCase
	for _, want := range strings.Split(*f.parity, ",") {
		want = strings.ReplaceAll(strings.TrimSpace(want), "×", "/")
		found := false
		for _, c := range all {
			if c.Model+"/"+c.Method == want {
				out, found = append(out, c), true
			}
		}
		if !found {
			var names []string
			for _, c := range all {
				names = append(names, c.Model+"/"+c.Method)
			}
			return nil, usagef("--parity %q: no case %q (want all, none, full or MODEL/METHOD of: %s)", *f.parity, want, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// deviceReport is what devices --check found (its --json output).
type deviceReport struct {
	Device string `json:"device"`
	// OpenSeconds is the back end's open, its kernel library's build
	// included; KernelImage how that library reached a CUDA device
	// (compiled by NVRTC or read from the cache; empty on OpenCL).
	OpenSeconds float64         `json:"open_seconds"`
	KernelImage string          `json:"kernel_image,omitempty"`
	Ops         []opCaseOut     `json:"ops"`
	Kinds       map[string]bool `json:"op_kinds"`
	Models      []modelOut      `json:"models"`
	OK          bool            `json:"ok"`
}

type opCaseOut struct {
	Case    string   `json:"case"`
	OK      bool     `json:"ok"`
	Worst   float64  `json:"worst"`
	Kinds   []string `json:"kinds"`
	Error   string   `json:"error,omitempty"`
	Seconds float64  `json:"seconds"`
}

type modelOut struct {
	Model, Method string
	OK            bool    `json:"ok"`
	Worst         float64 `json:"worst_entry"`
	WorstTensor   float64 `json:"worst_tensor"`
	Detail        string  `json:"detail"`
	Seconds       float64 `json:"seconds"`
}

// runDeviceCheck runs the checks on dev and prints them; the exit status
// is 1 if any failed.
func runDeviceCheck(dev string, f *deviceCheckFlags, stdout, stderr io.Writer) int {
	if _, err := opencl.ParseDevice(dev); err != nil {
		return exitWith(stderr, "llpfc devices --check", usageError{err}) // ParseDevice names the device
	}
	cases, err := f.parityCases()
	if err != nil {
		return exitWith(stderr, "llpfc devices --check", err)
	}
	t0 := time.Now()
	be, err := device.Open(dev)
	if err != nil { // a device this machine lacks is bad input, as for train --device (one status for one mistake)
		return exitWith(stderr, "llpfc devices --check", usageError{err})
	}
	rep := &deviceReport{Device: be.Name(), OK: true, OpenSeconds: time.Since(t0).Seconds()}
	if k, ok := be.(interface{ KernelImage() string }); ok {
		rep.KernelImage = k.KernelImage()
	}
	text := !*f.asJSON
	if text {
		fmt.Fprintf(stdout, "llpfc devices --check %s\n", rep.Device)
		if rep.KernelImage != "" { // NVRTC's compile or the cache's read: what the open's seconds paid for
			fmt.Fprintf(stdout, "opened in %.1f s: kernel library %s\n", rep.OpenSeconds, rep.KernelImage)
		}
		fmt.Fprintf(stdout, "ops: %d cases on the device against the CPU back end (each entry within %g of the larger of its magnitude and its tensor's RMS)\n",
			len(opcheck.Cases()), opcheck.Tol)
	}
	checkOps(be, rep, text, stdout)
	be.Close()
	if text && len(cases) > 0 {
		fmt.Fprintf(stdout, "models: the first training step (loss, gradients, running statistics) and the parameters after 2 SGD steps against the CPU back end (each tensor within %g, each entry within %g)\n",
			training.ParityTol, training.EntryTol)
	}
	checkModels(dev, cases, rep, text, stdout)
	return printCheckVerdict(rep, f, stdout)
}

// checkOps runs every op case and the per-kind verdict.
func checkOps(be device.Backend, rep *deviceReport, text bool, w io.Writer) {
	var results []opcheck.Result
	for _, c := range opcheck.Cases() {
		t0 := time.Now()
		r := opcheck.Run(be, c)
		results = append(results, r)
		o := opCaseOut{Case: r.Case, OK: r.OK(), Worst: r.Worst, Kinds: r.Kinds, Seconds: time.Since(t0).Seconds()}
		if r.Err != nil {
			o.Error = r.Err.Error()
		}
		rep.Ops = append(rep.Ops, o)
		rep.OK = rep.OK && o.OK
		if text {
			fmt.Fprintf(w, "  %-4s %v (%.1f s)\n", okWord(o.OK), r, o.Seconds)
		}
	}
	kinds, ok := opcheck.Kinds(results)
	rep.Kinds = map[string]bool{}
	var bad []string
	for _, k := range kinds {
		rep.Kinds[k] = ok[k]
		if !ok[k] {
			bad = append(bad, k)
		}
	}
	if text {
		fmt.Fprintf(w, "op kinds: %d of %d ok\n", len(kinds)-len(bad), len(kinds))
		for _, k := range kinds {
			fmt.Fprintf(w, "  %-4s %s\n", okWord(ok[k]), k)
		}
	}
}

// checkModels runs the parity cases.
func checkModels(dev string, cases []training.ParityCase, rep *deviceReport, text bool, w io.Writer) {
	for _, c := range cases {
		t0 := time.Now()
		p, err := training.CheckParity(dev, c)
		o := modelOut{Model: c.Model, Method: c.Method, OK: err == nil && p.OK(), Worst: p.Worst, WorstTensor: p.Norm, Detail: p.String(), Seconds: time.Since(t0).Seconds()}
		if err != nil {
			o.Detail = err.Error()
		}
		rep.Models = append(rep.Models, o)
		rep.OK = rep.OK && o.OK
		if text {
			fmt.Fprintf(w, "  %-4s %s × %s: %s (%.1f s)\n", okWord(o.OK), c.Model, c.Method, o.Detail, o.Seconds)
		}
	}
}

// printCheckVerdict prints the JSON report or the verdict line and returns
// the exit status.
func printCheckVerdict(rep *deviceReport, f *deviceCheckFlags, w io.Writer) int {
	if *f.asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return exitFailed
		}
		fmt.Fprintln(w, string(b))
	} else {
		failed := 0
		for _, o := range rep.Ops {
			if !o.OK {
				failed++
			}
		}
		for _, m := range rep.Models {
			if !m.OK {
				failed++
			}
		}
		fmt.Fprintf(w, "verdict: %s (%d op cases, %d op kinds, %d model × method cases; %d failed) on %s\n",
			okWord(rep.OK), len(rep.Ops), len(rep.Kinds), len(rep.Models), failed, rep.Device)
	}
	if !rep.OK {
		return exitFailed
	}
	return exitOK
}

func okWord(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
}
