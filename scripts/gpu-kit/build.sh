#!/usr/bin/env bash
# scripts/gpu-kit/build.sh — `make gpu-kit`: builds dist/gpu-kit/, everything a bare
# Linux x86-64 machine with a GPU driver and python3 needs to check and measure `--device opencl`
# with one command (dist/gpu-kit/run.sh OUTDIR), nothing to build or install there:
#   llpfc.tar.xz  the pure-Go llpfc (CGO_ENABLED=0, stripped, built with the tag llpfc_nofixture:
#                 it reads the Fashion-MNIST fixture from the checkout that travels beside the kit),
#                 the OpenCL ICD loader (libOpenCL.so.1, Debian's ocl-icd-libopencl1) and CLBlast
#                 (libclblast.so.1, libclblast1) from this machine's Debian packages (apt-get
#                 download, dpkg -x; the installed files when the download fails), their copyright
#                 files, and MANIFEST.txt (versions, commit, SHA-256s); xz, so python3's lzma alone
#                 unpacks it;
#   run.sh, kit.py  the run and its report (summary.md, results.json, at most 8 logs);
#   torch_step.py  the PyTorch peer of `llpfc bench` (bench/torch_step.py).
# The kit must stay under 28 MiB (what travels to a GPU machine is the checkout plus the kit, at most
# 64 MiB); the build fails above it. Environment: GO (go), XZ_LEVEL (4).
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
OUT=dist/gpu-kit
limit=$((28 * 1024 * 1024))
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/kit/bin" "$STAGE/kit/lib" "$STAGE/kit/licenses" "$STAGE/deb"

echo "gpu-kit: building llpfc (CGO_ENABLED=0, -tags llpfc_nofixture, stripped)"
CGO_ENABLED=0 $GO build -tags llpfc_nofixture -ldflags="-s -w" -o "$STAGE/kit/bin/llpfc" ./cmd/llpfc

# lib PACKAGE FILE: FILE of the Debian package, from `apt-get download` (or the installed package),
# with the package's copyright file; prints "PACKAGE VERSION SOURCE".
lib() {
	local pkg=$1 file=$2 deb src path
	if (cd "$STAGE/deb" && apt-get download "$pkg" >/dev/null 2>&1); then
		deb=$(ls "$STAGE/deb/${pkg}"_*.deb | head -1)
		dpkg -x "$deb" "$STAGE/deb/x"
		path=$(find "$STAGE/deb/x" -name "$file" | head -1)
		cp -L "$path" "$STAGE/kit/lib/$file"
		cp "$STAGE/deb/x/usr/share/doc/$pkg/copyright" "$STAGE/kit/licenses/$pkg.copyright"
		echo "$pkg $(dpkg-deb -f "$deb" Version) apt-get-download"
	elif path=$(dpkg -L "$pkg" 2>/dev/null | grep "/$file\$" | head -1) && [ -n "$path" ]; then
		cp -L "$path" "$STAGE/kit/lib/$file"
		cp "/usr/share/doc/$pkg/copyright" "$STAGE/kit/licenses/$pkg.copyright"
		echo "$pkg $(dpkg-query -W -f='${Version}' "$pkg") installed-files"
	else
		echo "gpu-kit: cannot get $file: apt-get download $pkg failed and $pkg is not installed (apt-get install $pkg)" >&2
		return 1
	fi
}
{
	echo "llpfc GPU kit, built $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -m)"
	echo "commit $(git rev-parse HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')"
	echo "$($GO version)"
	echo "packages (name, version, from):"
	lib ocl-icd-libopencl1 libOpenCL.so.1
	lib libclblast1 libclblast.so.1
	echo "glibc symbol versions the libraries need: $(objdump -T "$STAGE/kit/lib/"*.so.1 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || echo unknown)"
	echo "sha256:"
	(cd "$STAGE/kit" && sha256sum bin/llpfc lib/*)
} >"$STAGE/kit/MANIFEST.txt"

rm -rf "$OUT"
mkdir -p "$OUT"
echo "gpu-kit: compressing (xz -${XZ_LEVEL:-4})"
tar -C "$STAGE/kit" -cf - . | xz "-${XZ_LEVEL:-4}" -T0 >"$OUT/llpfc.tar.xz"
cp scripts/gpu-kit/run.sh scripts/gpu-kit/kit.py bench/torch_step.py "$OUT/"
cp "$STAGE/kit/MANIFEST.txt" "$OUT/"
chmod +x "$OUT/run.sh"
size=$(du -cb "$OUT"/* | tail -1 | cut -f1)
echo "gpu-kit: $OUT is $size bytes ($(awk "BEGIN{printf \"%.1f\", $size/1048576}") MiB; the limit is 28 MiB):"
ls -l "$OUT"
if [ "$size" -ge "$limit" ]; then
	echo "gpu-kit: $OUT is $size bytes, over the 28 MiB the checkout leaves (64 MiB in all)" >&2
	exit 1
fi
