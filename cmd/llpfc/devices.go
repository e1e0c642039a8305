package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llpfc/llpfc/internal/opencl"
)

func init() {
	register(command{name: "devices", summary: "list the OpenCL platforms and devices (for --device opencl:P:D)", run: runDevices})
}

const devicesSynopsis = `Lists the OpenCL platforms and devices this machine offers, each with the index
--device opencl:PLATFORM:DEVICE selects it by (plain "opencl" is opencl:0:0), its name,
vendor, OpenCL version, driver, memory and compute units, and whether CLBlast (the
matrix products of the OpenCL back end) can be loaded.

The OpenCL loader (libOpenCL.so.1, Debian package ocl-icd-libopencl1) and CLBlast
(libclblast.so.1, package libclblast1) are opened at run time; LLPFC_OPENCL_LIB and
LLPFC_CLBLAST_LIB override their paths, and OCL_ICD_FILENAMES points the loader at a
vendor's driver. A missing library or no platform at all exits with status 1.

With --check [DEVICE] it checks a device instead (what to run first on a new GPU): one small
graph per operation of the kernel library against the CPU back end's Go operations, with a
verdict per case and per operation kind, then the first training steps of every model ×
method of the op list (tiny inputs) against the CPU back end, with a verdict per case — the
checks the tests TestEveryOpKindMatchesTheCPU and TestOpenCLParity run on PoCL. Exit status 1
if any check fails.`

func runDevices(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("devices [--check [--parity all|none|full|MODEL/METHOD,…] [--json] [DEVICE]]", devicesSynopsis, stderr)
	cf := defineCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitBadUsage
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
		return exitWith(stderr, "llpfc devices", usagef("--parity and --json go with --check"))
	}
	ps, err := opencl.Platforms()
	if err != nil {
		var le *opencl.LibraryError
		if errors.As(err, &le) {
			fmt.Fprintf(stderr, "llpfc devices: OpenCL is not available: %v\n", err)
		} else {
			fmt.Fprintf(stderr, "llpfc devices: listing OpenCL platforms: %v\n", err)
		}
		return exitFailed
	}
	if len(ps) == 0 {
		fmt.Fprintln(stderr, "llpfc devices: no OpenCL platform: the ICD loader found no driver (on Debian install pocl-opencl-icd for the CPU, or a GPU vendor's OpenCL driver; OCL_ICD_FILENAMES names a driver directly)")
		return exitFailed
	}
	for _, p := range ps {
		printPlatform(stdout, p)
	}
	if err := opencl.CLBlastAvailable(); err != nil {
		fmt.Fprintf(stdout, "CLBlast: not available: %v\n", err)
	} else {
		fmt.Fprintln(stdout, "CLBlast: available")
	}
	return exitOK
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
