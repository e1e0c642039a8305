//go:build linux || darwin || freebsd || netbsd

package opencl

import (
	"errors"
	"fmt"

	"github.com/ebitengine/purego"
)

// bindLibrary opens file and binds every symbol, or reports which file or
// function is missing. The library stays open for the life of the process.
func bindLibrary(file, env, pkg string, syms []symbol) error {
	h, err := purego.Dlopen(file, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return &LibraryError{File: file, Env: env, Package: pkg, Err: err}
	}
	for _, s := range syms {
		addr, err := purego.Dlsym(h, s.name)
		if err != nil || addr == 0 {
			if err == nil {
				err = errors.New("symbol not found")
			}
			return &LibraryError{File: file, Env: env, Package: pkg, Symbol: s.name, Err: err}
		}
		purego.RegisterFunc(s.fn, addr)
	}
	return nil
}

// probeDriver opens lib as the ICD loader would (RTLD_LOCAL: nothing of it
// is bound here) and checks that it has the function through which the
// loader asks a driver for clIcdGetPlatformIDsKHR
// (clGetExtensionFunctionAddress, the Khronos ICD protocol); nil when it
// does. The handle is closed again.
func probeDriver(lib string) error {
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return fmt.Errorf("cannot be loaded: %v", err)
	}
	defer purego.Dlclose(h)
	if addr, err := purego.Dlsym(h, "clGetExtensionFunctionAddress"); err != nil || addr == 0 {
		return errors.New("loads, but is no OpenCL ICD driver (it has no clGetExtensionFunctionAddress)")
	}
	return nil
}
