#!/usr/bin/env bash
# bench/run.sh — the side-by-side training-speed benchmark against PyTorch (`make bench`).
#
# In one process tree: builds `llpfc`, then RUNS times (default 5) runs, interleaved,
#   llpfc bench --model M --batch-size 128 --steps N --json       (the project's step)
#   /usr/bin/python3 bench/torch_step.py --model M --steps N      (the same step in PyTorch)
# for M in mlp and cnn, and prints min–median–max images per second (wall time and per CPU
# second) and the ratio ours/PyTorch of the medians. The load average (`uptime`) is printed next
# to each run: on a shared machine wall-time figures are noisy, CPU-time figures less so.
# Then: peak memory (peak_rss_bytes of `llpfc train --json`) of llpfc-uniform and kl training at
# bag sizes 32…2048, the KL step's peak heap (BenchmarkKLChunked), and the estimator
# micro-benchmarks (T̂ for 10,000 groups, α̂ solves).
#
# Environment: RUNS (5), MLP_STEPS (40), CNN_STEPS (10), THREADS (2: torch.set_num_threads and
# GOMAXPROCS), PYTHON (/usr/bin/python3), BENCH_MEMORY=0 to skip the memory part,
# BENCH_ESTIMATORS=0 to skip the estimator benchmarks, MEM_DATA (fashion-mnist, else fixture),
# BLAS_BUILDS ("purego openblas": the builds of ours to time; openblas needs libopenblas-dev),
# BENCH_WRN=0 to skip the networks' table (NETS, below; NET_STEPS 3 timed steps after NET_WARMUP 1;
# on Intel the early steps' subnormal products decide VGG16's row, bench/NOTES.md), BENCH_SGEMM=0 to skip the SGEMM
# GFLOP/s table.
#
# The peer runs its best kernels (a fair peer): this environment may set OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE for older processors, which handicap OpenBLAS on this one, so every PyTorch and
# numpy command runs with both unset (peer_run) while ours and the tests keep the environment as it
# is; bench/peer_kernels.py prints, in that environment, the OpenBLAS core that ran and oneDNN's ISA.
set -u
cd "$(dirname "$0")/.."
GO=${GO:-go}
RUNS=${RUNS:-5}
MLP_STEPS=${MLP_STEPS:-40}
CNN_STEPS=${CNN_STEPS:-10}
THREADS=${THREADS:-2}
PYTHON=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== llpfc training step vs PyTorch (batch 128, float32, FC loss, Adam; $THREADS threads each)"
echo "   $(date -u '+%Y-%m-%d %H:%M:%S UTC'); $(nproc) CPUs; load average at start:$(uptime | sed 's/.*load average://')"
$GO build -o "$tmp/llpfc-purego" ./cmd/llpfc || { echo "bench: go build ./cmd/llpfc failed" >&2; exit 1; }
cp "$tmp/llpfc-purego" "$tmp/llpfc"
# Ours in two builds: the default pure Go (gonum BLAS with internal/sgemm) and, where libopenblas-dev is installed,
# the build tag openblas (cgo). Set BLAS_BUILDS=purego to time only the default.
# apt_install PKG: installs a Debian package where apt-get is available (as root, or with
# passwordless sudo), refreshing the package lists once if the first try fails.
apt_install() {
	command -v apt-get >/dev/null 2>&1 || return 1
	local s=""
	[ "$(id -u)" -ne 0 ] && { command -v sudo >/dev/null 2>&1 || return 1; s="sudo -n"; }
	$s apt-get install -y "$1" >>"$tmp/apt.log" 2>&1 ||
		{ $s apt-get update >>"$tmp/apt.log" 2>&1 && $s apt-get install -y "$1" >>"$tmp/apt.log" 2>&1; }
}
builds=""
for b in ${BLAS_BUILDS:-purego openblas}; do
	if [ "$b" = openblas ]; then
		if ! $GO build -tags openblas -o "$tmp/llpfc-openblas" ./cmd/llpfc 2>/dev/null; then
			echo "   OpenBLAS build failed: installing libopenblas-dev with apt-get"
			apt_install libopenblas-dev || true
		fi
		if $GO build -tags openblas -o "$tmp/llpfc-openblas" ./cmd/llpfc 2>"$tmp/err"; then
			builds="$builds openblas"
		else
			echo "   no openblas build (needs cgo and libopenblas-dev: apt-get install -y libopenblas-dev): $(head -c 200 "$tmp/err")"
		fi
	else
		builds="$builds $b"
	fi
done

# The peer: Debian's python3-torch, installed with apt if missing.
have_torch=0
if "$PYTHON" -c 'import torch' 2>/dev/null; then
	have_torch=1
elif command -v apt-get >/dev/null 2>&1; then
	echo "   PyTorch missing: installing python3-torch with apt-get"
	if apt_install python3-torch && "$PYTHON" -c 'import torch' 2>/dev/null; then
		have_torch=1
	else
		echo "   SKIPPING the PyTorch peer: apt-get install python3-torch failed (see below); only our figures are shown"
		tail -3 "$tmp/apt.log" | sed 's/^/     /'
	fi
else
	echo "   SKIPPING the PyTorch peer: $PYTHON cannot import torch and apt-get is not available here"
fi
# Debian's numpy and PyTorch call the libblas.so.3 alternative, which is the slow reference BLAS
# (6 GFLOP/s here) unless an optimised one is installed: the peer gets OpenBLAS, as a PyTorch user
# would have it, and the SGEMM table's numpy column is then OpenBLAS's.
blas_lib() { readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo "unknown"; }
case "$(blas_lib)" in
*openblas*) ;;
*) echo "   libblas.so.3 is $(blas_lib): installing libopenblas0-pthread with apt-get"
	apt_install libopenblas0-pthread || echo "   could not install OpenBLAS: PyTorch's linear layers and numpy use $(blas_lib)" ;;
esac
# peer_run CMD…: runs a command of the peer (PyTorch, numpy) with OPENBLAS_CORETYPE and
# OPENBLAS_L2_SIZE unset, so that OpenBLAS picks its kernels for this processor itself.
peer_run() { env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$@"; }
[ "$have_torch" = 1 ] && echo "   peer: PyTorch $("$PYTHON" -c 'import torch; print(torch.__version__)') ($PYTHON), BLAS $(blas_lib)"
echo "   environment: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE-(unset)} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE-(unset)}; the peer's commands run with both unset"
peer_run "$PYTHON" bench/peer_kernels.py 2>&1 | sed 's/^/   peer kernels: /'

field() { # field NAME < json line → value
	sed -n "s/.*\"$1\": *\([-0-9.eE+]*\).*/\1/p" | head -1
}
load1() { uptime | sed 's/.*load average: *\([0-9.]*\).*/\1/'; }

# Each model's PyTorch peer is timed in the same runs, interleaved with ours, so that each
# ratio compares runs made at the same time (the load on a shared machine changes within
# minutes). peer maps a model to the PyTorch script's model (the same network).
MODELS=${MODELS:-mlp cnn}
peer() { [ "$1" = cnn-im2col ] && echo cnn || echo "$1"; }
for model in $MODELS; do
	steps=$MLP_STEPS
	[ "$model" != mlp ] && steps=$CNN_STEPS
	for run in $(seq 1 "$RUNS"); do
		for b in $builds; do
			l=$(load1)
			out=$(GOMAXPROCS=$THREADS "$tmp/llpfc-$b" bench --model "$model" --batch-size 128 --steps "$steps" --warmup 3 --json 2>"$tmp/err") ||
				{ echo "bench: llpfc bench --model $model ($b) failed: $(cat "$tmp/err")" >&2; exit 1; }
			out=$(echo "$out" | tail -1)
			ips=$(echo "$out" | field images_per_second)
			cps=$(echo "$out" | field images_per_cpu_second)
			echo "$model ours-$b $ips $cps $l" >>"$tmp/results"
			printf '   run %d %-10s ours (%-8s) %8.1f img/s  %8.1f img/CPU-s  (load %s)\n' "$run" "$model" "$b" "$ips" "$cps" "$l"
		done
		if [ "$have_torch" = 1 ]; then
			l=$(load1)
			out=$(peer_run "$PYTHON" bench/torch_step.py --model "$(peer "$model")" --batch-size 128 --steps "$steps" --warmup 3 --threads "$THREADS" 2>"$tmp/err") ||
				{ echo "bench: torch_step.py --model $model failed: $(cat "$tmp/err")" >&2; exit 1; }
			ips=$(echo "$out" | field images_per_second)
			cps=$(echo "$out" | field images_per_cpu_second)
			echo "$model torch $ips $cps $l" >>"$tmp/results"
			printf '   run %d %-10s pytorch         %8.1f img/s  %8.1f img/CPU-s  (load %s)\n' "$run" "$model" "$ips" "$cps" "$l"
		fi
	done
done

# stats MODEL IMPL COLUMN → "min median max"
stats() {
	awk -v m="$1" -v i="$2" -v c="$3" '$1==m && $2==i {print $c}' "$tmp/results" | sort -g |
		awk '{v[NR]=$1} END {if (NR==0) {print "- - -"; exit} med = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f %.1f %.1f\n", v[1], med, v[NR]}'
}
echo
echo "== images per second, min-median-max over $RUNS runs (wall time | per CPU second)"
printf '%-10s %-9s | %-22s | %-22s | %-6s || %-22s | %-22s | %s\n' model "ours BLAS" "ours (wall)" "PyTorch (wall)" "ratio" "ours (CPU)" "PyTorch (CPU)" "ratio"
for model in $MODELS; do
	read -r tmin tmed tmax <<<"$(stats "$model" torch 3)"
	read -r tcmin tcmed tcmax <<<"$(stats "$model" torch 4)"
	for b in $builds; do
		read -r omin omed omax <<<"$(stats $model ours-$b 3)"
		read -r ocmin ocmed ocmax <<<"$(stats $model ours-$b 4)"
		ratio=$(awk -v a="$omed" -v b="$tmed" 'BEGIN{ if (b+0 > 0) printf "%.2f", a/b; else print "n/a" }')
		cratio=$(awk -v a="$ocmed" -v b="$tcmed" 'BEGIN{ if (b+0 > 0) printf "%.2f", a/b; else print "n/a" }')
		printf '%-10s %-9s | %-22s | %-22s | %-6s || %-22s | %-22s | %s\n' "$model" "$b" "$omin-$omed-$omax" "$tmin-$tmed-$tmax" "$ratio" \
			"$ocmin-$ocmed-$ocmax" "$tcmin-$tcmed-$tcmax" "$cratio"
	done
done
echo "   (min-median-max; ratio = median ours / median PyTorch; target: ≥ 1.0 for mlp, ≥ 0.7 for cnn)"
echo "   load average at end:$(uptime | sed 's/.*load average://')"

# The networks (memory and speed of the deep models): each model at its batch size and image shape, ours and PyTorch's
# same step interleaved, with images/s (wall) and each process's peak RSS (getrusage: the whole
# process, including the random data of 8 minibatches). NET_STEPS timed steps after NET_WARMUP warm-up steps.
# NETS: MODEL:BATCH:CxHxW[:DROPOUT[:aug]], by default the paper networks at the appendix's batch sizes
# (WRN-16-4 and ResNet18 128, VGG16 256) and at 32, and WRN-16-4 as Table 1's CIFAR10 cells train it
# (dropout 0.3, the appendix's augmentation: its masks and crops drawn each step).
if [ "${BENCH_WRN:-1}" != 0 ]; then
	NET_STEPS=${NET_STEPS:-${WRN_STEPS:-3}}
	NET_WARMUP=${NET_WARMUP:-1}
	NETS=${NETS:-mlp:128:1x28x28 cnn:128:1x28x28 wrn-16-4:32:3x32x32 wrn-16-4:128:3x32x32 wrn-16-4:128:3x32x32:0.3:aug resnet18:128:3x32x32 vgg16:32:3x32x32 vgg16:256:3x32x32}
	echo
	echo "== the networks: FC loss, Adam, $NET_STEPS steps after $NET_WARMUP warm-up, $RUNS runs: images/s (wall) and peak RSS (MiB) of the whole process"
	: >"$tmp/nets"
	for net in $NETS; do
		IFS=: read -r model bs shape drop aug <<<"$net"
		IFS=x read -r ch h w <<<"$shape"
		# A preset's dropout and augmentation: flags for ours, the config itself for the peer.
		preset=() peer=(--model "$model" --channels "$ch" --height "$h" --width "$w" --batch-size "$bs")
		[ -n "$drop" ] && preset+=(--dropout "$drop") && peer=(--configs "$net")
		[ "$aug" = aug ] && preset+=(--augment)
		for run in $(seq 1 "$RUNS"); do
			for b in $builds; do
				l=$(load1)
				out=$(GOMAXPROCS=$THREADS "$tmp/llpfc-$b" bench --model "$model" --channels "$ch" --height "$h" --width "$w" --batch-size "$bs" \
					"${preset[@]}" --steps "$NET_STEPS" --warmup "$NET_WARMUP" --json 2>"$tmp/err" | tail -1) ||
					{ echo "bench: llpfc bench --model $model ($b) failed: $(cat "$tmp/err")" >&2; exit 1; }
				ips=$(echo "$out" | field images_per_second)
				rss=$(echo "$out" | field peak_rss_bytes)
				echo "$net ours-$b $ips $(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1048576}') $l" >>"$tmp/nets"
				printf '   run %d %-22s ours (%-8s) %8.2f img/s  peak RSS %6.0f MiB  (load %s)\n' "$run" "$net" "$b" "$ips" "$(awk -v r="$rss" 'BEGIN{print r/1048576}')" "$l"
			done
			if [ "$have_torch" = 1 ]; then
				l=$(load1)
				out=$(peer_run "$PYTHON" bench/torch_step.py "${peer[@]}" \
					--steps "$NET_STEPS" --warmup "$NET_WARMUP" --threads "$THREADS" 2>"$tmp/err") ||
					{ echo "bench: torch_step.py --model $model failed: $(cat "$tmp/err")" >&2; exit 1; }
				ips=$(echo "$out" | field images_per_second)
				rss=$(echo "$out" | field peak_rss_bytes)
				echo "$net torch $ips $(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1048576}') $l" >>"$tmp/nets"
				printf '   run %d %-22s pytorch         %8.2f img/s  peak RSS %6.0f MiB  (load %s)\n' "$run" "$net" "$ips" "$(awk -v r="$rss" 'BEGIN{print r/1048576}')" "$l"
			fi
		done
	done
	nstats() { # nstats NET IMPL COLUMN → "min median max"
		awk -v m="$1" -v i="$2" -v c="$3" '$1==m && $2==i {print $c}' "$tmp/nets" | sort -g |
			awk '{v[NR]=$1} END {if (NR==0) {print "- - -"; exit} med = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f %.2f\n", v[1], med, v[NR]}'
	}
	printf '%-22s %-7s | %-24s | %-24s | %-5s || %-16s | %-16s | %s\n' "model:batch:shape" "ours" "ours img/s" "PyTorch img/s" ratio "ours RSS MiB" "PyTorch RSS MiB" "RSS ratio"
	for net in $NETS; do
		read -r tmin tmed tmax <<<"$(nstats "$net" torch 3)"
		read -r trmin trmed trmax <<<"$(nstats "$net" torch 4)"
		for b in $builds; do
			read -r omin omed omax <<<"$(nstats "$net" ours-$b 3)"
			read -r ormin ormed ormax <<<"$(nstats "$net" ours-$b 4)"
			ratio=$(awk -v a="$omed" -v b="$tmed" 'BEGIN{ if (b+0 > 0) printf "%.2f", a/b; else print "n/a" }')
			rratio=$(awk -v a="$ormed" -v b="$trmed" 'BEGIN{ if (b+0 > 0) printf "%.2f", a/b; else print "n/a" }')
			printf '%-22s %-7s | %-24s | %-24s | %-5s || %-16s | %-16s | %s\n' "$net" "$b" "$omin-$omed-$omax" "$tmin-$tmed-$tmax" "$ratio" \
				"${ormin%.00}-${ormed%.00}-${ormax%.00}" "${trmin%.00}-${trmed%.00}-${trmax%.00}" "$rratio"
		done
	done
	echo "   (min-median-max; ratio = median ours / median PyTorch; target: RSS ratio ≤ 1 for every network, img/s ratio ≥ 1.2)"
	echo "   load average at end:$(uptime | sed 's/.*load average://')"
fi

# SGEMM GFLOP/s on the models' shapes: internal/sgemm (the default build's GEMM), gonum's
# Sgemm, and numpy's BLAS (OpenBLAS on Debian) with THREADS threads, in RUNS interleaved rounds (one
# run of ours, then one of numpy: a shared machine's speed drifts by ±20 % within minutes, which
# RUNS runs of one side followed by RUNS of the other would put between the columns). The ratio
# column is the median of the rounds' ratios ours/OpenBLAS, with their min and max.
if [ "${BENCH_SGEMM:-1}" != 0 ]; then
	echo
	echo "== SGEMM GFLOP/s (C = A·B, float32, M×N×K), $RUNS interleaved rounds: ours (internal/sgemm), gonum, numpy/OpenBLAS"
	echo "   load average:$(uptime | sed 's/.*load average://')"
	$GO test -c -o "$tmp/sgemm.test" ./internal/sgemm || { echo "bench: go test -c ./internal/sgemm failed" >&2; exit 1; }
	have_numpy=0
	if "$PYTHON" -c 'import numpy' 2>/dev/null; then
		have_numpy=1
		echo "   numpy's BLAS: $(blas_lib)"
	else
		echo "   (no numpy for $PYTHON: no OpenBLAS column)"
	fi
	: >"$tmp/sgemm"
	for r in $(seq "$RUNS"); do
		(cd internal/sgemm && GOMAXPROCS=$THREADS "$tmp/sgemm.test" -test.run '^$' -test.bench 'BenchmarkSgemm$' -test.benchtime 1s -test.count 1 2>&1) |
			awk -v r="$r" '/^BenchmarkSgemm\// {split($1, p, "/"); sub(/-[0-9]+$/, "", p[3]); for (i = 2; i < NF; i++) if ($(i+1) == "GFLOP/s") print p[2], p[3], $i, r}' >>"$tmp/sgemm"
		if [ "$have_numpy" = 1 ]; then
			OPENBLAS_NUM_THREADS=$THREADS peer_run "$PYTHON" bench/sgemm_numpy.py --runs 1 2>/dev/null | sed 's#/# #' | awk -v r="$r" '{print $0, r}' >>"$tmp/sgemm"
		fi
	done
	sstats() { # sstats IMPL SHAPE → "min median max"
		awk -v i="$1" -v s="$2" '$1==i && $2==s {print $3}' "$tmp/sgemm" | sort -g |
			awk '{v[NR]=$1} END {if (NR==0) {print "- - -"; exit} med = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.1f %.1f %.1f\n", v[1], med, v[NR]}'
	}
	rstats() { # rstats SHAPE → "min median max" of the rounds' ratios ours/numpy, or "n/a"
		awk -v s="$1" '$2==s && $1=="ours" {o[$4]=$3} $2==s && $1=="numpy" {n[$4]=$3}
			END {for (r in o) if (n[r] > 0) print o[r]/n[r]}' "$tmp/sgemm" | sort -g |
			awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit} med = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "%.2f (%.2f-%.2f)\n", med, v[1], v[NR]}'
	}
	peer_run "$PYTHON" bench/peer_kernels.py 2>&1 | sed -n 's/^openblas: /   numpy\x27s OpenBLAS core (OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE unset): /p'
	echo "   ours: $("$tmp/llpfc" bench --model mlp --steps 1 --warmup 0 --batch-size 8 --json 2>/dev/null | sed -n 's/.*"gemm":"\([^"]*\)".*/\1/p')"
	printf '%-18s | %-18s | %-18s | %-18s | %s\n' "M×N×K" ours gonum "numpy (OpenBLAS)" "ours/OpenBLAS"
	for shape in $(awk '{print $2}' "$tmp/sgemm" | awk '!seen[$0]++'); do
		read -r a1 a2 a3 <<<"$(sstats ours "$shape")"
		read -r g1 g2 g3 <<<"$(sstats gonum "$shape")"
		read -r n1 n2 n3 <<<"$(sstats numpy "$shape")"
		printf '%-18s | %-18s | %-18s | %-18s | %s\n' "$shape" "$a1-$a2-$a3" "$g1-$g2-$g3" "$n1-$n2-$n3" "$(rstats "$shape")"
	done
	echo "   (min-median-max GFLOP/s; ours/OpenBLAS: the median of the rounds' ratios (min-max); target: ≥ 0.70 on each shape, ≥ 1 at 2048³)"
fi

if [ "${BENCH_MEMORY:-1}" != 0 ]; then
	echo
	data=${MEM_DATA:-fashion-mnist}
	if ! "$tmp/llpfc" train --data "$data" --method kl --model mlp --bag-size 32 --num-points 64 --epochs 1 --json --quiet >/dev/null 2>&1; then
		data=fixture
	fi
	echo "== peak memory of training (llpfc train --data $data --model mlp --num-points max(4096, 16·bag) --epochs 1;"
	echo "   peak_rss_bytes: the whole process, including the loaded data set)"
	printf '%-14s %s\n' method "bag size: peak RSS (MiB)"
	for method in llpfc-uniform kl; do
		line="$method"
		for b in 32 64 128 256 512 1024 2048; do
			np=$((16 * b > 4096 ? 16 * b : 4096)) # LLPFC needs at least C bags per group
			out=$("$tmp/llpfc" train --data "$data" --method "$method" --model mlp --bag-size "$b" --num-points "$np" --epochs 1 \
				--json --quiet 2>"$tmp/err" | tail -1)
			rss=$(echo "$out" | field peak_rss_bytes)
			if [ -n "$rss" ]; then
				line="$line  $b: $(awk -v r="$rss" 'BEGIN{printf "%.0f", r/1048576}')"
			else
				line="$line  $b: failed ($(head -c 120 "$tmp/err" | tr '\n' ' '))"
			fi
		done
		echo "$line"
	done
	echo "-- KL step peak heap above the live heap, bag sizes 32…2048 (BenchmarkKLChunked)"
	$GO test -run '^$' -bench 'KLChunked' -benchtime 3x ./training/ 2>&1 | grep -E '^Benchmark|^ok|FAIL'
fi

if [ "${BENCH_ESTIMATORS:-1}" != 0 ]; then
	echo
	echo "== estimator micro-benchmarks (T̂ for 10,000 groups, α̂ solves): go test -bench . ./estimators"
	$GO test -run '^$' -bench . -benchmem ./estimators 2>&1 | grep -E '^Benchmark|^ok|FAIL'
fi
