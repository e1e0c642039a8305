//go:build !(linux || darwin || freebsd || netbsd)

package opencl

import "errors"

// bindLibrary: loading shared libraries without cgo is implemented for the
// Unix systems purego supports with Dlopen.
func bindLibrary(file, env, pkg string, _ []symbol) error {
	return &LibraryError{File: file, Env: env, Package: pkg, Err: errors.New("loading OpenCL is not supported on this operating system")}
}

// probeDriver cannot open libraries here.
func probeDriver(lib string) error {
	return errors.New("cannot be loaded: loading OpenCL is not supported on this operating system")
}
