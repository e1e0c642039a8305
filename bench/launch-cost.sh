#!/usr/bin/env bash
# bench/launch-cost.sh — what one kernel launch and one copy cost the host, on OpenCL's first
# device and on the CUDA driver (internal/opencl's BenchmarkLaunchHostCost). Without a GPU the CUDA
# driver is the fake of internal/opencl/testdata/fakecuda.c (built here with cc), so its figure is
# our code's and purego's own; with LLPFC_CUDA_LIB unset and a GPU present, the real driver's.
# bench/NOTES.md, "What a launch costs the host".
set -eu
cd "$(dirname "$0")/.."
GO=${GO:-go}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if [ -z "${LLPFC_CUDA_LIB:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
	${CC:-cc} -shared -fPIC -O1 -o "$T/libfakecuda.so" internal/opencl/testdata/fakecuda.c
	for v in LLPFC_CUDA_LIB LLPFC_NVRTC_LIB LLPFC_CUBLAS_LIB LLPFC_CUDNN_LIB; do export "$v=$T/libfakecuda.so"; done
	export LLPFC_CUDA_CACHE=$T/cache
	echo "launch-cost: CUDA is the fake ($T/libfakecuda.so)"
fi
"$GO" test -run '^$' -bench '^BenchmarkLaunchHostCost$' -benchmem -count "${COUNT:-5}" ./internal/opencl
