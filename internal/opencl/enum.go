package opencl

import (
	"fmt"
	"strconv"
	"strings"
	"unsafe"
)

// OpenCL info parameters used here (cl.h).
const (
	clPlatformVersion = 0x0901
	clPlatformName    = 0x0902
	clPlatformVendor  = 0x0903

	clDeviceTypeAll            = 0xFFFFFFFF
	clDeviceType               = 0x1000
	clDeviceMaxComputeUnits    = 0x1002
	clDeviceMaxWorkGroupSize   = 0x1004
	clDeviceMaxMemAllocSize    = 0x1010
	clDeviceMemBaseAddrAlign   = 0x1019
	clDeviceSingleFPConfig     = 0x101B
	clDeviceGlobalMemSize      = 0x101F
	clDeviceLocalMemSize       = 0x1023
	clDeviceName               = 0x102B
	clDeviceVendor             = 0x102C
	clDriverVersion            = 0x102D
	clDeviceVersion            = 0x102F
	clDeviceExtensions         = 0x1030
	clFPCorrectlyRoundedDivSqr = 1 << 7

	clDeviceNotFound   = -1
	clPlatformNotFound = -1001
)

// DeviceInfo describes one OpenCL device.
type DeviceInfo struct {
	Platform, Index int    // the indices of --device opencl:PLATFORM:DEVICE
	PlatformName    string // the platform's name
	Name, Vendor    string
	Version         string // CL_DEVICE_VERSION, e.g. "OpenCL 3.0 PoCL …"
	DriverVersion   string
	Type            string // "GPU", "CPU", "accelerator", … (several joined by "+")
	GlobalMemBytes  uint64
	MaxAllocBytes   uint64 // the largest single buffer
	// BaseAlignBytes is CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: where a
	// sub-buffer may start (AllocGroup).
	BaseAlignBytes   int
	LocalMemBytes    uint64
	ComputeUnits     int
	MaxWorkGroupSize int
	FP64             bool // cl_khr_fp64: kernels accumulate in double
	// CorrectDivSqrt: single-precision division and sqrt can be built
	// correctly rounded (-cl-fp32-correctly-rounded-divide-sqrt), as in Go.
	CorrectDivSqrt bool
	// CUDA marks a device of the CUDA driver ("cuda:Index"; Platform is
	// 0 and PlatformName "CUDA"), ComputeMajor.ComputeMinor its compute
	// capability (the NVRTC architecture sm_XY).
	CUDA                       bool
	ComputeMajor, ComputeMinor int

	id    clDevice
	cuDev cuDevice
}

// Selector is the selector of the device (its device string with String).
func (d DeviceInfo) Selector() Selector {
	return Selector{Platform: d.Platform, Device: d.Index, CUDA: d.CUDA}
}

// PlatformInfo describes one OpenCL platform and its devices.
type PlatformInfo struct {
	Index                 int
	Name, Vendor, Version string
	Devices               []DeviceInfo

	id clPlatform
}

// Platforms lists the OpenCL platforms and their devices in the order the
// ICD loader reports them (the indices of --device opencl:P:D). No platform
// is an empty list, not an error; a missing loader is a *LibraryError.
func Platforms() ([]PlatformInfo, error) {
	if err := loadOpenCL(); err != nil {
		return nil, err
	}
	var n uint32
	if code := cl.GetPlatformIDs(0, nil, &n); code == clPlatformNotFound || (code == 0 && n == 0) {
		return nil, nil
	} else if code != 0 {
		return nil, check(code, "clGetPlatformIDs", "")
	}
	ids := make([]clPlatform, n)
	if err := check(cl.GetPlatformIDs(n, unsafe.Pointer(&ids[0]), nil), "clGetPlatformIDs", ""); err != nil {
		return nil, err
	}
	out := make([]PlatformInfo, len(ids))
	for i, id := range ids {
		p := PlatformInfo{Index: i, id: id}
		var err error
		if p.Name, err = platformString(id, clPlatformName); err != nil {
			return nil, err
		}
		if p.Vendor, err = platformString(id, clPlatformVendor); err != nil {
			return nil, err
		}
		if p.Version, err = platformString(id, clPlatformVersion); err != nil {
			return nil, err
		}
		if p.Devices, err = devicesOf(p); err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func devicesOf(p PlatformInfo) ([]DeviceInfo, error) {
	var n uint32
	code := cl.GetDeviceIDs(p.id, clDeviceTypeAll, 0, nil, &n)
	if code == clDeviceNotFound || (code == 0 && n == 0) {
		return nil, nil
	}
	if code != 0 {
		return nil, check(code, "clGetDeviceIDs", p.Name)
	}
	ids := make([]clDevice, n)
	if err := check(cl.GetDeviceIDs(p.id, clDeviceTypeAll, n, unsafe.Pointer(&ids[0]), nil), "clGetDeviceIDs", p.Name); err != nil {
		return nil, err
	}
	out := make([]DeviceInfo, len(ids))
	for i, id := range ids {
		d, err := deviceInfo(id)
		if err != nil {
			return nil, err
		}
		d.Platform, d.Index, d.PlatformName = p.Index, i, p.Name
		out[i] = d
	}
	return out, nil
}

func deviceInfo(id clDevice) (DeviceInfo, error) {
	d := DeviceInfo{id: id}
	var err error
	str := func(param uint32, dst *string) {
		if err == nil {
			*dst, err = deviceString(id, param)
		}
	}
	str(clDeviceName, &d.Name)
	str(clDeviceVendor, &d.Vendor)
	str(clDeviceVersion, &d.Version)
	str(clDriverVersion, &d.DriverVersion)
	var ext string
	str(clDeviceExtensions, &ext)
	if err != nil {
		return d, err
	}
	d.Name, d.Vendor, d.Version, d.DriverVersion = strings.TrimSpace(d.Name), strings.TrimSpace(d.Vendor), strings.TrimSpace(d.Version), strings.TrimSpace(d.DriverVersion)
	d.FP64 = strings.Contains(" "+ext+" ", " cl_khr_fp64 ")
	var typ, global, alloc, local, fp uint64
	var units, align uint32
	var wg uintptr
	for _, q := range []struct {
		param uint32
		size  uintptr
		ptr   unsafe.Pointer
	}{
		{clDeviceType, 8, unsafe.Pointer(&typ)},
		{clDeviceGlobalMemSize, 8, unsafe.Pointer(&global)},
		{clDeviceMaxMemAllocSize, 8, unsafe.Pointer(&alloc)},
		{clDeviceLocalMemSize, 8, unsafe.Pointer(&local)},
		{clDeviceSingleFPConfig, 8, unsafe.Pointer(&fp)},
		{clDeviceMaxComputeUnits, 4, unsafe.Pointer(&units)},
		{clDeviceMemBaseAddrAlign, 4, unsafe.Pointer(&align)},
		{clDeviceMaxWorkGroupSize, unsafe.Sizeof(wg), unsafe.Pointer(&wg)},
	} {
		if err := check(cl.GetDeviceInfo(id, q.param, q.size, q.ptr, nil), "clGetDeviceInfo", d.Name); err != nil {
			return d, err
		}
	}
	d.Type = deviceTypeName(typ)
	d.GlobalMemBytes, d.MaxAllocBytes, d.LocalMemBytes = global, alloc, local
	d.ComputeUnits, d.MaxWorkGroupSize = int(units), int(wg)
	d.BaseAlignBytes = max(int(align)/8, 4)
	d.CorrectDivSqrt = fp&clFPCorrectlyRoundedDivSqr != 0
	return d, nil
}

func deviceTypeName(t uint64) string {
	var parts []string
	for _, b := range []struct {
		bit  uint64
		name string
	}{{1, "default"}, {2, "CPU"}, {4, "GPU"}, {8, "accelerator"}, {16, "custom"}} {
		if t&b.bit != 0 {
			parts = append(parts, b.name)
		}
	}
	if len(parts) == 0 {
		return fmt.Sprintf("type %#x", t)
	}
	return strings.Join(parts, "+")
}

// infoString reads a string-valued info parameter through get.
func infoString(get func(size uintptr, value unsafe.Pointer, sizeRet *uintptr) int32, call, what string) (string, error) {
	var n uintptr
	if err := check(get(0, nil, &n), call, what); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	b := make([]byte, n)
	if err := check(get(n, unsafe.Pointer(&b[0]), nil), call, what); err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\x00"), nil
}

func platformString(id clPlatform, param uint32) (string, error) {
	return infoString(func(size uintptr, v unsafe.Pointer, r *uintptr) int32 {
		return cl.GetPlatformInfo(id, param, size, v, r)
	}, "clGetPlatformInfo", "")
}

func deviceString(id clDevice, param uint32) (string, error) {
	return infoString(func(size uintptr, v unsafe.Pointer, r *uintptr) int32 {
		return cl.GetDeviceInfo(id, param, size, v, r)
	}, "clGetDeviceInfo", "")
}

// Selector picks one device: platform and device indices as listed by
// Platforms (and `llpfc devices`), or with CUDA set the CUDA device
// Device (its ordinal; Platform is 0).
type Selector struct {
	Platform, Device int
	CUDA             bool
}

func (s Selector) String() string {
	if s.CUDA {
		return fmt.Sprintf("cuda:%d", s.Device)
	}
	return fmt.Sprintf("opencl:%d:%d", s.Platform, s.Device)
}

// ParseDevice parses a device string: "opencl" (platform 0, device 0),
// "opencl:P:D" with non-negative indices, "cuda" (CUDA device 0) or
// "cuda:N".
func ParseDevice(s string) (Selector, error) {
	const want = `want "opencl", "opencl:PLATFORM:DEVICE", "cuda" or "cuda:DEVICE" with indices as listed by llpfc devices`
	if s == "opencl" {
		return Selector{}, nil
	}
	if s == "cuda" {
		return Selector{CUDA: true}, nil
	}
	if rest, ok := strings.CutPrefix(s, "cuda:"); ok {
		v, err := strconv.Atoi(rest)
		if err != nil || v < 0 || strings.Trim(rest, "0123456789") != "" {
			return Selector{}, fmt.Errorf("device %q: device index %q is not a non-negative integer; %s", s, rest, want)
		}
		return Selector{CUDA: true, Device: v}, nil
	}
	rest, ok := strings.CutPrefix(s, "opencl:")
	if !ok {
		return Selector{}, fmt.Errorf("device %q: not an OpenCL or CUDA device; %s", s, want)
	}
	parts := strings.Split(rest, ":")
	if len(parts) != 2 {
		return Selector{}, fmt.Errorf("device %q: %d index(es) after opencl:, %s", s, len(parts), want)
	}
	var idx [2]int
	for i, name := range []string{"platform", "device"} {
		v, err := strconv.Atoi(parts[i])
		if err != nil || v < 0 || strings.Trim(parts[i], "0123456789") != "" { // digits only: "-0" and "+1" are no indices
			return Selector{}, fmt.Errorf("device %q: %s index %q is not a non-negative integer; %s", s, name, parts[i], want)
		}
		idx[i] = v
	}
	return Selector{Platform: idx[0], Device: idx[1]}, nil
}

// Resolve returns the device s names among platforms, or an error that
// lists what exists.
func (s Selector) Resolve(platforms []PlatformInfo) (DeviceInfo, error) {
	if len(platforms) == 0 {
		return DeviceInfo{}, fmt.Errorf("device %v: no OpenCL platform: %s", s, NoPlatformReason())
	}
	if s.Platform >= len(platforms) {
		names := make([]string, len(platforms))
		for i, p := range platforms {
			names[i] = fmt.Sprintf("%d: %s", i, p.Name)
		}
		return DeviceInfo{}, fmt.Errorf("device %v: there is no platform %d; %d platform(s): %s", s, s.Platform, len(platforms), strings.Join(names, ", "))
	}
	p := platforms[s.Platform]
	if s.Device >= len(p.Devices) {
		names := make([]string, len(p.Devices))
		for i, d := range p.Devices {
			names[i] = fmt.Sprintf("%d: %s", i, d.Name)
		}
		list := "none"
		if len(names) > 0 {
			list = strings.Join(names, ", ")
		}
		return DeviceInfo{}, fmt.Errorf("device %v: platform %d (%s) has no device %d; its %d device(s): %s", s, s.Platform, p.Name, s.Device, len(p.Devices), list)
	}
	return p.Devices[s.Device], nil
}

// Unavailable reports why device (a device string) cannot be used with
// the kernel library here: the OpenCL loader, a platform with that
// device, or CLBlast is missing (for a CUDA device: the driver, NVRTC,
// cuBLAS or the device). Nil means all are present.
func Unavailable(device string) error {
	if device == "cuda" || strings.HasPrefix(device, "cuda:") {
		sel, err := ParseDevice(device)
		if err != nil {
			return err
		}
		return cudaUnavailable(sel.Device)
	}
	if err := loadOpenCL(); err != nil {
		return err
	}
	sel, err := ParseDevice(device)
	if err != nil {
		return err
	}
	ps, err := Platforms()
	if err != nil {
		return err
	}
	if _, err := sel.Resolve(ps); err != nil {
		return err
	}
	return loadCLBlast()
}
