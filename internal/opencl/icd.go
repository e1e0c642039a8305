package opencl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Registered drivers: the ICD loader (libOpenCL.so.1) loads the
// drivers it is told of — one library per .icd file of its vendors folder,
// and those OCL_ICD_FILENAMES lists — and silently skips one it cannot load.
// A machine whose only driver is registered but broken (an .icd naming a
// missing library, or one whose dependencies are missing) then has "no
// platform", which said "no driver": RegisteredDrivers names each
// registration, its library and why it does not load, for the messages of
// `llpfc devices` and --device.

// ICDDriver is one driver registered with the ICD loader.
type ICDDriver struct {
	Registration string // the .icd file, or "OCL_ICD_FILENAMES"
	Library      string // the library it names
	Err          error  // why it cannot serve as a driver here; nil when it loads
}

func (d ICDDriver) String() string {
	if d.Err == nil {
		return fmt.Sprintf("%s (%s) loads", d.Library, d.Registration)
	}
	return fmt.Sprintf("%s names %s, which %v", d.Registration, d.Library, d.Err)
}

// vendorsDir is the ICD loader's default folder of .icd files.
const vendorsDir = "/etc/OpenCL/vendors"

// RegisteredDrivers lists the drivers the ICD loader is told of: the .icd
// files of OCL_ICD_VENDORS (a folder, or one .icd file) or else of
// /etc/OpenCL/vendors, in name order, and the libraries of
// OCL_ICD_FILENAMES (colon-separated), each with why its library does not
// load as a driver (dlopen's own message, or a library without the ICD
// protocol's clGetExtensionFunctionAddress).
func RegisteredDrivers() []ICDDriver {
	var out []ICDDriver
	var icds []string
	switch v := os.Getenv("OCL_ICD_VENDORS"); {
	case v != "" && strings.HasSuffix(v, ".icd"):
		icds = []string{v}
	case v != "":
		icds, _ = filepath.Glob(filepath.Join(v, "*.icd"))
	default:
		icds, _ = filepath.Glob(filepath.Join(vendorsDir, "*.icd"))
	}
	sort.Strings(icds)
	for _, f := range icds {
		b, err := os.ReadFile(f)
		if err != nil {
			out = append(out, ICDDriver{Registration: f, Err: fmt.Errorf("cannot be read: %v", err)})
			continue
		}
		lib := strings.TrimSpace(string(b))
		out = append(out, ICDDriver{Registration: f, Library: lib, Err: probeDriver(lib)})
	}
	for _, lib := range strings.Split(os.Getenv("OCL_ICD_FILENAMES"), ":") {
		if lib = strings.TrimSpace(lib); lib != "" {
			out = append(out, ICDDriver{Registration: "OCL_ICD_FILENAMES", Library: lib, Err: probeDriver(lib)})
		}
	}
	return out
}

// NoPlatformReason says why the ICD loader found no platform: the drivers
// registered and why each does not load, or that none is registered and
// how to install one.
func NoPlatformReason() string {
	drivers := RegisteredDrivers()
	if len(drivers) == 0 {
		where := vendorsDir
		if v := os.Getenv("OCL_ICD_VENDORS"); v != "" {
			where = v + " (OCL_ICD_VENDORS)"
		}
		return fmt.Sprintf("no driver is registered (no .icd file in %s, no OCL_ICD_FILENAMES): on Debian install pocl-opencl-icd for the CPU, or a GPU vendor's OpenCL driver", where)
	}
	var parts []string
	for _, d := range drivers {
		parts = append(parts, d.String())
	}
	return fmt.Sprintf("%d registered driver(s), none of which gives a platform: %s", len(drivers), strings.Join(parts, "; "))
}

// BrokenDrivers returns the registered drivers whose library does not load.
func BrokenDrivers() []ICDDriver {
	var out []ICDDriver
	for _, d := range RegisteredDrivers() {
		if d.Err != nil {
			out = append(out, d)
		}
	}
	return out
}
