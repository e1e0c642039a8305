//go:build linux || darwin || freebsd || netbsd

package opencl

import (
	"errors"

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
