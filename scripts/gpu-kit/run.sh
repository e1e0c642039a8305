#!/usr/bin/env bash
# run.sh OUTDIR [--quick] — the GPU kit's one command (`make gpu-kit` builds the kit,
# docs/gpu-and-cluster.md, "On a GPU"). On a bare Linux x86-64 machine with a GPU driver and python3 (with PyTorch for
# the peer figures), from the kit's folder in the checkout (dist/gpu-kit; the Fashion-MNIST fixture
# is read from the checkout):
#   1. unpacks llpfc, the OpenCL ICD loader and CLBlast with python3's lzma; finds the vendor's
#      OpenCL driver (libnvidia-opencl.so.1 under /usr/local/nvidia, the usual library folders, or
#      /etc/OpenCL/vendors/*.icd), writes an ICD folder of its own for OCL_ICD_VENDORS, and records
#      nvidia-smi's GPU and driver and where libcuda.so.1, cuBLAS and NVRTC are;
#   2. llpfc devices;
#   3. the fixture training on the device and on the CPU;
#   4. llpfc bench --device opencl for mlp, cnn, wrn-16-4 (3×32×32, batch 32 and 128), resnet18 and
#      vgg16 with their presets' settings (WRN-16-4 dropout 0.3, VGG16 0.5, the colour presets'
#      crop and flip) and CLBlast's own parameters (LLPFC_OPENCL_GEMM=default, the sweep's
#      baseline), each with one more step profiled operation by operation (--profile);
#   5. the tuning pass of the matrix products (llpfc devices --tune-gemm, the profiles' costliest
#      product shapes, a time-limited search over CLBlast's parameters), its file beside the binary
#      (and copied to OUTDIR), then llpfc devices --check with it applied (the kernel library and
#      every parity case against the CPU back end), and the check again on the implicit-GEMM
#      convolutions (LLPFC_OPENCL_CONV=implicit: the op cases and one convolutional parity case),
#      and the whole check on the CUDA driver (llpfc devices --check cuda) where discovery found
#      libcuda.so.1, NVRTC and cuBLAS, and on it with the convolutions on cuDNN
#      (LLPFC_OPENCL_CONV=cudnn: the op cases and one convolutional parity case) where it found
#      libcudnn.so.9;
#   6. the variant sweep: the same bench steps of WRN-16-4, VGG16 and ResNet-18 with each variant of
#      VARIANTS (environment assignments; by default the tuned products, the implicit-GEMM
#      convolutions, and both; and the per-channel reductions one work-group a channel), and every
#      BENCH network on the CUDA driver (variant device=cuda, and
#      device=cuda,LLPFC_OPENCL_CONV=cudnn with cuDNN's convolutions; on SWEEP's networks with
#      cuDNN's own pick of algorithms, LLPFC_CUDNN_ALGO=heuristic, timed, never trained with),
#      every result's numerics naming its variant, each beside the baseline in the summary's first
#      line with the slowest network's best step beside PyTorch's — the CUDA variants first, the A/B
#      measurements last, and a variant counted for a best step (and trained with) only when the device
#      checks of its path passed (kit.py's required_checks);
#   7. the same steps in PyTorch fp32 on CUDA (TF32 off, and PyTorch's defaults), then the
#      profiles' convolutions and matrix products shape by shape in PyTorch (torch_step.py
#      --kernels), so the summary says op by op how far each is from the vendor's kernels;
#   8. one epoch of WRN-16-4 with llpfc-uniform (the Table 1 cell's settings: its 40,960 training
#      points in bags of 64) with the sweep's best variant on a CIFAR-shaped set of 50,000 random
#      images made here (fewer points when the measured throughput would not fit the part's time;
#      on the CUDA driver when it was the fastest),
#      and from it the projected wall time of one Table 1 cell (200 epochs);
#   9. the pure-Go build at all the CPUs beside PyTorch CPU (every paper network), and cnn, WRN-16-4 and
#      ResNet-18 again with the parallel loops' static schedule (LLPFC_PAR_SCHEDULE=static; the default
#      is dynamic: bench/NOTES.md, "Lever 24") and with their goroutines pooled (LLPFC_PAR_START=pooled;
#      the default spawns them for each loop: bench/NOTES.md, "The loops' goroutines pooled");
#  10. the pure-Go step of each paper network at 1, 2, 4, 8 and all the CPUs' threads with its step
#      profile, and the many-core model's predictions beside the measured steps (llpfc bench --scaling,
#      training/scaling; bench/NOTES.md, "Many cores as well as two"), and WRN-16-4's at all the CPUs
#      again with the loops' goroutines pooled (its start/stop a loop beside the spawned one's).
# Each part has its own time-out and the whole run a budget (KIT_BUDGET seconds, default 540), so
# one hang does not eat the rest; parts 2–8 leave KIT_CPU_RESERVE seconds of it (default 120: parts 9
# and 10 take ≈ 100 s, estimated from the 2026-11-28 run's parts) to the CPU parts, which alone
# measure the many-core criterion, and parts 5–6 (the tuning, the checks, the sweep) leave 60 s more
# to PyTorch's part 7 (every ratio's denominator) and 30 s to the epoch. OUTDIR gets summary.md,
# results.json, the tuning file and at most
# 8 logs (discovery, check, train, bench, sweep, torch, cpu, scaling). --quick: small sizes for CI on PoCL (the tuning
# keeps its one candidate so that the check and the sweep run with overrides; the PyTorch
# parts run only where python3 imports torch, else they say they were skipped — the profiles'
# kernels then on PyTorch's CPU, PoCL's device —; the epoch trains cnn-bn on 80 points, and
# projects nothing: only the Table 1 cell's run is projected). The PyTorch
# parts run with the first python3 that imports torch (kit.py pick-python; $PYTHON forces one), and
# each part's note names the interpreter it used. summary.md's first line and the console's last line
# say PASS, or FAIL and the failing parts. Exit status 0 on PASS, 1 otherwise.
set -u
usage() { echo "usage: run.sh OUTDIR [--quick]" >&2; exit 2; }
[ $# -ge 1 ] || usage
OUT=$1
QUICK=0
[ "${2:-}" = "--quick" ] && QUICK=1
[ $# -le 2 ] || usage
KIT=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3} # runs kit.py (the standard library only)
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
BUDGET=${KIT_BUDGET:-540}
# KEEP: the seconds of the budget the parts running now leave to those after them.
CPU_RESERVE=${KIT_CPU_RESERVE:-120}
KEEP=$CPU_RESERVE
# KIT_PART_LIMIT: a cap on every part's time-out (0: none) — a rehearsal of the full run's commands on a machine
# that cannot finish them (each part starts, parses its flags and reads its data; a timeout is then expected, any
# other failure is a slip in the commands), never for a measurement.
PART_CAP=${KIT_PART_LIMIT:-0}
START=$(date +%s)
: >"$OUT/parts.tsv"
for l in discovery check train bench sweep torch cpu scaling; do : >"$OUT/$l.log"; done
FAILED=0

# left: the seconds of the budget the part starting now may take (KEEP kept for the parts after it).
left() { echo $((BUDGET - ($(date +%s) - START) - KEEP)); }

# part NAME LIMIT LOG CMD...: runs CMD with time-out min(LIMIT, left), its output appended to LOG,
# and records the part in parts.tsv.
part() {
	local name=$1 limit=$2 log=$3 left t0 rc status cut=""
	shift 3
	left=$(left)
	[ "$limit" -gt "$left" ] && cut=" (cut from $limit s by the budget)" && limit=$left
	[ "$PART_CAP" -gt 0 ] && [ "$limit" -gt "$PART_CAP" ] && cut=" (capped: KIT_PART_LIMIT)" && limit=$PART_CAP
	if [ "$limit" -lt 5 ]; then
		if [ "$KEEP" -gt 0 ]; then
			printf '%s\tskipped\t0\tthe run'"'"'s %s s budget was spent but for the %s s kept for the parts after it\n' "$name" "$BUDGET" "$KEEP" >>"$OUT/parts.tsv"
		else
			printf '%s\tskipped\t0\tthe run'"'"'s %s s budget was spent\n' "$name" "$BUDGET" >>"$OUT/parts.tsv"
		fi
		return 0
	fi
	t0=$(date +%s)
	"$PY" "$KIT/kit.py" run "$OUT/$log" "$limit" -- "$@"
	rc=$?
	case $rc in
	0) status=ok ;;
	124) status=timeout FAILED=1 ;;
	*) status="failed ($rc)" FAILED=1 ;;
	esac
	printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$(($(date +%s) - t0))" "$log, limit ${limit} s$cut${PART_NOTE:+; $PART_NOTE}" >>"$OUT/parts.tsv"
	return $rc
}
skip() { printf '%s\tskipped\t0\t%s\n' "$1" "$2" >>"$OUT/parts.tsv"; }

# 1. Unpack and discover.
X=$(mktemp -d)
trap 'rm -rf "$X"' EXIT
"$PY" "$KIT/kit.py" unpack "$KIT" "$X" >>"$OUT/discovery.log" 2>&1 || { echo "run.sh: FAIL: cannot unpack $KIT/llpfc.tar.xz (see $OUT/discovery.log)" >&2; exit 1; }
LLPFC=$X/bin/llpfc
cat "$X/MANIFEST.txt" >>"$OUT/discovery.log"
ENVS=$("$PY" "$KIT/kit.py" discover "$OUT" "$X/lib" "$X/icd" 2>>"$OUT/discovery.log") || { echo "run.sh: FAIL: discovery failed (see $OUT/discovery.log)" >&2; exit 1; }
# The interpreter of the PyTorch parts: $PYTHON when given, else the first python3 that imports torch.
if [ -n "${PYTHON:-}" ]; then TORCHPY=$PYTHON; else TORCHPY=$("$PY" "$KIT/kit.py" pick-python 2>>"$OUT/discovery.log"); fi
TORCHDESC=$("$PY" "$KIT/kit.py" describe-python "$TORCHPY")
eval "$ENVS"
echo "$ENVS" >>"$OUT/discovery.log"
REPO=$(cd "$KIT/../.." 2>/dev/null && pwd)
[ -d "$REPO/fixtures/fashion-mnist" ] || REPO=$(pwd)
export LLPFC_FIXTURE_DIR=$REPO/fixtures/fashion-mnist
printf 'discovery\tok\t%s\tdiscovery.log (and results.json); OpenCL drivers found: %s; kit.py with %s\n' "$(($(date +%s) - START))" "$KIT_HAVE_DRIVER" "$("$PY" "$KIT/kit.py" describe-python "$(command -v "$PY")")" >>"$OUT/parts.tsv"

if [ $QUICK = 1 ]; then
	PARITY=mlp/llpfc-uniform
	CONV_PARITY=cnn/kl
	FIX="--num-points 1024"
	BENCH="mlp:32:1x28x28:2:1:0:- cnn:16:1x28x28:1:1:0:- wrn-16-4:2:3x32x32:1:0:0.3:aug"
	# cnn-bn, not WRN-16-4: the evaluation's batches of 256 WRN-16-4 images take minutes on PoCL
	EPOCH_FULL=80 EPOCH_IMAGES=1000 EPOCH_TEST=32 EPOCH_MODEL=cnn-bn EPOCH_ARGS="--model cnn-bn --bag-size 8 --batch-size 16"
	CPU_BENCH="mlp:32:1x28x28:2:1" CPU_STATIC="mlp" CPU_POOLED="mlp"
	SCALING="mlp:16:1x28x28:1:1" STREAM_MIB=8 SCALING_POOLED="mlp:16:1x28x28:1:1"
	THREADS=$(nproc)
	TUNE_SHAPES=2 TUNE_SECONDS=1 TUNE_FLAGS="--tune-keep-best --tune-kernels Xgemm"
	SWEEP="wrn-16-4:2:3x32x32:1:0:0.3:aug"
else
	PARITY=all
	CONV_PARITY=wrn-16-4/llpfc-uniform
	FIX="--num-points 40960"
	# model:batch:CxHxW:steps:warmup:dropout:aug — the presets' settings (grid's wrn16-4 CIFAR10,
	# resnet18 and vgg16 specs: dropout, and the appendix's crop and flip; the Fashion-MNIST ones none)
	BENCH="mlp:128:1x28x28:20:3:0:- cnn:128:1x28x28:20:3:0:- wrn-16-4:32:3x32x32:10:2:0.3:aug wrn-16-4:128:3x32x32:10:2:0.3:aug resnet18:128:3x32x32:10:2:0:aug vgg16:128:3x32x32:5:2:0.5:aug"
	EPOCH_FULL=40960 EPOCH_IMAGES=50000 EPOCH_TEST=10000 EPOCH_MODEL=wrn-16-4 EPOCH_ARGS="--preset wrn16-4 --bag-size 64" # the Table 1 cell (CIFAR10, bags of 64)
	# every paper network; the mlp's and the cnn's steps (milliseconds) timed 60 and 15 times, PyTorch's at least 0.25 s
	CPU_BENCH="mlp:128:1x28x28:60:5 cnn:128:1x28x28:15:2 wrn-16-4:32:3x32x32:3:1 resnet18:128:3x32x32:3:1 vgg16:32:3x32x32:3:1"
	CPU_STATIC="cnn wrn-16-4 resnet18" # and these again with the parallel loops' static schedule (LLPFC_PAR_SCHEDULE)
	CPU_POOLED="mlp cnn wrn-16-4 resnet18" # and with the loops' goroutines pooled (LLPFC_PAR_START): the mlp's step is the most loops for its work
	SCALING="mlp:128:1x28x28:10:2 cnn:128:1x28x28:3:1 wrn-16-4:32:3x32x32:2:1 resnet18:128:3x32x32:2:1 vgg16:32:3x32x32:1:1" STREAM_MIB=256
	SCALING_POOLED="wrn-16-4:32:3x32x32:2:1" # at all the CPUs only, with LLPFC_PAR_START=pooled
	THREADS=$(nproc)
	TUNE_SHAPES=16 TUNE_SECONDS=30 TUNE_FLAGS="" # 30 s: the CUDA variants' parts need the time more
	SWEEP="wrn-16-4:128:3x32x32:10:2:0.3:aug vgg16:128:3x32x32:5:2:0.5:aug resnet18:128:3x32x32:10:2:0:aug"
fi
# The variants the sweep measures beside the baseline (LLPFC_OPENCL_GEMM=default), each a list of
# environment assignments joined by commas. Each costs one bench run per config, 40 s at most: 2–3 s each on
# OpenCL on the H200 of 2026-11-28, a CUDA run estimated at 3–6 s (its context, and cuDNN's libraries loaded).
# The implicit convolutions alone are the tuned ones but for the dense layers' products: the sweep times them
# with the tuned products, and the filter gradient alone on the implicit path (implicit:dw), the pass
# predicted to gain most (bench/NOTES.md, "Implicit-GEMM convolutions").
# A variant's word device=cuda runs it on the CUDA driver (NVRTC's build of the same kernels, cuBLAS's
# products) instead of OpenCL; that variant times every BENCH network, not only SWEEP's, so each
# network has its best step beside PyTorch's.
# device=cuda,LLPFC_OPENCL_CONV=cudnn: the CUDA driver with the convolutions on cuDNN (where discovery found
# it), PyTorch's own convolution library.
# device=cuda,LLPFC_OPENCL_CONV=cudnn,LLPFC_CUDNN_ALGO=heuristic,configs=sweep: cuDNN's own pick of algorithms
# (deterministic or not, FFT and non-fused Winograd allowed), on SWEEP's networks only (configs=sweep): what the
# default rule costs; never the epoch's variant (kit.py's NOT_FOR_TRAINING).
# LLPFC_OPENCL_GEMM=default,LLPFC_OPENCL_REDUCE=channel: the baseline but for the per-channel reductions (batch
# norm's statistics and gradient sums, the bias gradients) one work-group a channel, as before they were
# sliced; its profile's batch-norm rows beside the baseline's time the slicing (bench/NOTES.md, "The
# per-channel reductions in slices"); and the same on the cuDNN path, whose shorter step the reductions
# weigh on more: its img/s beside device=cuda,LLPFC_OPENCL_CONV=cudnn's.
# The order is the order of need when the budget runs short (the last variants are the first it cuts): the
# candidates for the criterion's best step first, the CUDA driver's (predicted fastest: bench/NOTES.md, "The CUDA
# driver"), then OpenCL's, then the A/B measurements of single levers, whose answers are worth the least if a
# network's best step is missing.
VARIANTS=${KIT_VARIANTS:-device=cuda,LLPFC_OPENCL_CONV=cudnn device=cuda LLPFC_OPENCL_GEMM=tuned LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV=implicit LLPFC_OPENCL_GEMM=tuned,LLPFC_OPENCL_CONV=implicit:dw device=cuda,LLPFC_OPENCL_CONV=cudnn,LLPFC_OPENCL_REDUCE=channel,configs=sweep device=cuda,LLPFC_OPENCL_CONV=cudnn,LLPFC_CUDNN_ALGO=heuristic,configs=sweep LLPFC_OPENCL_GEMM=default,LLPFC_OPENCL_REDUCE=channel}

# split_variant V: V's environment assignments in VENV, its device in VDEV (opencl unless V
# names device=…) and in VSWEEP whether it runs on SWEEP's networks only (configs=sweep; OpenCL
# variants always do, CUDA ones on every BENCH network otherwise).
split_variant() {
	local a
	VDEV=opencl VENV="" VSWEEP=0
	for a in ${1//,/ }; do
		case $a in
		device=*) VDEV=${a#device=} ;;
		configs=sweep) VSWEEP=1 ;;
		*) VENV="$VENV $a" ;;
		esac
	done
}

# 2. The devices.
part devices 20 check.log "$LLPFC" devices

# 3. The fixture training on the device and on the CPU.
for dev in opencl cpu; do
	[ "$KIT_HAVE_DRIVER" = 1 ] || [ $dev = cpu ] || { skip "fixture ($dev)" "no OpenCL driver"; continue; }
	part "fixture ($dev)" 40 train.log "$LLPFC" train --data fixture --model mlp --method llpfc-uniform --bag-size 64 $FIX \
		--epochs 1 --device $dev --quiet --json
done

# bench_args CONFIG: the llpfc bench arguments of model:batch:CxHxW:steps:warmup:dropout:aug.
bench_args() {
	local model batch shape steps warmup dropout aug ch h w
	IFS=: read -r model batch shape steps warmup dropout aug <<<"$1"
	IFS=x read -r ch h w <<<"$shape"
	echo "--model $model --batch-size $batch --channels $ch --height $h --width $w --steps $steps --warmup $warmup --dropout $dropout$([ "$aug" = aug ] && echo " --augment")"
}

# 4. Our training step on the device with CLBlast's parameters (the sweep's baseline), profiled.
configs=""
for c in $BENCH; do
	IFS=: read -r model batch shape steps warmup dropout aug <<<"$c"
	configs="$configs${configs:+,}$model:$batch:$shape:$dropout:$aug"
	if [ "$KIT_HAVE_DRIVER" = 1 ]; then
		# shellcheck disable=SC2046
		part "bench $model $batch (opencl)" 40 bench.log env LLPFC_OPENCL_GEMM=default "$LLPFC" bench --device opencl $(bench_args "$c") --profile --json
	else
		skip "bench $model $batch (opencl)" "no OpenCL driver"
	fi
done

# Parts 5 and 6 leave PyTorch's part 7 60 s and the epoch 30 s beside the CPU parts' reserve.
KEEP=$((CPU_RESERVE + 90))

# 5. The matrix products tuned for the profiled steps' shapes, then the device's check with the
# tuning applied (the file beside the binary: LLPFC_OPENCL_GEMM unset).
if [ "$KIT_HAVE_DRIVER" = 1 ] && "$PY" "$KIT/kit.py" gemm-shapes "$OUT" "$TUNE_SHAPES" >>"$OUT/sweep.log" 2>&1; then
	# shellcheck disable=SC2086
	part "tune gemm" $((TUNE_SECONDS + 60)) sweep.log "$LLPFC" devices --tune-gemm "$OUT/gemm-shapes.json" --tune-seconds "$TUNE_SECONDS" $TUNE_FLAGS --json opencl
	cp "$X"/bin/clblast-gemm-*.json "$OUT/" 2>/dev/null
else
	skip "tune gemm" "no OpenCL driver, or no profiled product (sweep.log)"
fi
if [ "$KIT_HAVE_DRIVER" = 1 ]; then
	PART_NOTE="with $(cd "$X/bin" && ls clblast-gemm-*.json 2>/dev/null || echo "CLBlast's own parameters (no tuning file)")" \
		part check 130 check.log "$LLPFC" devices --check --parity "$PARITY" opencl
	# the implicit-GEMM convolutions checked before the sweep times them
	part "check conv implicit" 60 check.log env LLPFC_OPENCL_CONV=implicit "$LLPFC" devices --check --parity "$CONV_PARITY" opencl
else
	skip check "no OpenCL driver found (see discovery.json)"
fi
# the CUDA driver checked the same way (every op case, every parity case against the CPU) before
# the sweep times it
if [ "$KIT_HAVE_CUDA" = 1 ]; then
	part "check cuda" 130 check.log "$LLPFC" devices --check --parity "$PARITY" cuda
else
	skip "check cuda" "no libcuda.so.1, NVRTC or cuBLAS found (see discovery.json)"
fi
# and its convolutions on cuDNN, checked on the op cases and one convolutional parity case
if [ "$KIT_HAVE_CUDNN" = 1 ]; then
	part "check cuda cudnn" 60 check.log env LLPFC_OPENCL_CONV=cudnn "$LLPFC" devices --check --parity "$CONV_PARITY" cuda
else
	skip "check cuda cudnn" "no cuDNN (libcudnn.so.9) found beside the CUDA driver's libraries (see discovery.json)"
fi

# 6. The variant sweep: the same steps with each variant, beside the baseline's.
for v in $VARIANTS; do
	split_variant "$v"
	configs_of_v=$SWEEP
	[ "$VDEV" = opencl ] || [ "$VSWEEP" = 1 ] || configs_of_v=$BENCH
	for c in $configs_of_v; do
		IFS=: read -r model batch _ <<<"$c"
		if { [ "$VDEV" = opencl ] && [ "$KIT_HAVE_DRIVER" = 1 ]; } ||
			{ [ "$VDEV" = cuda ] && [ "$KIT_HAVE_CUDA" = 1 ] && { [ "$KIT_HAVE_CUDNN" = 1 ] || [[ $VENV != *cudnn* ]]; }; }; then
			# shellcheck disable=SC2046,SC2086
			# --profile: each variant's step op by op in sweep.log (the convolutions' passes beside the baseline's)
			part "sweep $v $model $batch" 40 sweep.log env $VENV "$LLPFC" bench --device "$VDEV" $(bench_args "$c") --profile --json
		else
			skip "sweep $v $model $batch" "no $VDEV driver$([[ $VENV == *cudnn* ]] && echo " or no cuDNN")"
		fi
	done
done

# 7. PyTorch's steps on CUDA and its kernels for the profiled shapes.
KEEP=$((CPU_RESERVE + 30))
if "$TORCHPY" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)' >>"$OUT/torch.log" 2>&1; then
	PART_NOTE="with $TORCHDESC" part "pytorch cuda" 75 torch.log "$TORCHPY" "$KIT/torch_step.py" --device cuda --tf32 off,default --configs "$configs" \
		--steps 10 --warmup 3 --threads "$THREADS"
	PART_NOTE="with $TORCHDESC" part "pytorch kernels" 30 torch.log "$TORCHPY" "$KIT/torch_step.py" --device cuda --tf32 off --kernels "$OUT/bench.log"
else
	skip "pytorch cuda" "$TORCHDESC has no torch with CUDA (torch.log; the interpreters tried: discovery.log)"
	if [ $QUICK = 1 ] && "$TORCHPY" -c 'import torch' >>"$OUT/torch.log" 2>&1; then
		# on PoCL the device is the CPU: PyTorch's CPU kernels are its peer
		PART_NOTE="with $TORCHDESC, on the CPU" part "pytorch kernels" 45 torch.log "$TORCHPY" "$KIT/torch_step.py" --device cpu \
			--threads "$THREADS" --kernels "$OUT/bench.log"
	else
		skip "pytorch kernels" "$TORCHDESC has no torch with CUDA"
	fi
fi

# 8. One epoch of WRN-16-4 on a CIFAR-shaped set, sized to what fits, with the sweep's best variant.
KEEP=$CPU_RESERVE
DATA=$X/cifar
# the epoch's points are sized to its time-out, the budget's share left to it if that is less
EPOCH_LIMIT=$(left)
[ "$EPOCH_LIMIT" -gt 100 ] && EPOCH_LIMIT=100
N=$("$PY" "$KIT/kit.py" epoch-points "$OUT" "$EPOCH_LIMIT" "$EPOCH_FULL")
if [ "$KIT_HAVE_DRIVER" = 1 ] && "$PY" "$KIT/kit.py" cifar "$DATA/cifar-10-batches-bin" "$EPOCH_IMAGES" "$EPOCH_TEST" >>"$OUT/train.log" 2>&1; then
	BEST=$("$PY" "$KIT/kit.py" best-variant "$OUT")
	split_variant "${BEST// /,}"
	# shellcheck disable=SC2086
	PART_NOTE="with $BEST" part "epoch $EPOCH_MODEL ($N points)" "$EPOCH_LIMIT" train.log env $VENV "$LLPFC" train $EPOCH_ARGS --data cifar10 --data-dir "$DATA" \
		--method llpfc-uniform --num-points "$N" --epochs 1 --device "$VDEV" --quiet --json
else
	skip "epoch $EPOCH_MODEL" "no OpenCL driver, or the data could not be written"
fi
rm -rf "$DATA"

# 9. The pure-Go build at all the CPUs beside PyTorch CPU: from here on, the whole budget's rest.
KEEP=0
cpu_configs=""
for c in $CPU_BENCH; do
	IFS=: read -r model batch shape steps warmup <<<"$c"
	IFS=x read -r ch h w <<<"$shape"
	cpu_configs="$cpu_configs${cpu_configs:+,}$model:$batch:$shape"
	part "cpu bench $model $batch ($THREADS threads)" 40 cpu.log "$LLPFC" bench --device cpu --threads "$THREADS" --model "$model" \
		--batch-size "$batch" --channels "$ch" --height "$h" --width "$w" --steps "$steps" --warmup "$warmup" --json
	case " $CPU_STATIC " in *" $model "*)
		part "cpu bench $model $batch ($THREADS threads, static schedule)" 40 cpu.log env LLPFC_PAR_SCHEDULE=static "$LLPFC" bench --device cpu \
			--threads "$THREADS" --model "$model" --batch-size "$batch" --channels "$ch" --height "$h" --width "$w" --steps "$steps" --warmup "$warmup" --json
		;;
	esac
	case " $CPU_POOLED " in *" $model "*)
		part "cpu bench $model $batch ($THREADS threads, pooled goroutines)" 40 cpu.log env LLPFC_PAR_START=pooled "$LLPFC" bench --device cpu \
			--threads "$THREADS" --model "$model" --batch-size "$batch" --channels "$ch" --height "$h" --width "$w" --steps "$steps" --warmup "$warmup" --json
		;;
	esac
done
if "$TORCHPY" -c 'import torch' >>"$OUT/cpu.log" 2>&1; then
	PART_NOTE="with $TORCHDESC" part "pytorch cpu ($THREADS threads)" 60 cpu.log "$TORCHPY" "$KIT/torch_step.py" --device cpu --configs "$cpu_configs" \
		--steps 3 --warmup 1 --min-seconds 0.25 --threads "$THREADS"
else
	skip "pytorch cpu" "$TORCHDESC has no torch (the interpreters tried: discovery.log)"
fi

# 10. The pure-Go step from one thread to all the CPUs, with the many-core model's predictions.
COUNTS=1
for t in 2 4 8; do [ "$t" -lt "$THREADS" ] && COUNTS="$COUNTS,$t"; done
[ "$THREADS" -gt 1 ] && COUNTS="$COUNTS,$THREADS"
for c in $SCALING; do
	IFS=: read -r model batch shape steps warmup <<<"$c"
	IFS=x read -r ch h w <<<"$shape"
	part "cpu scaling $model $batch (threads $COUNTS)" 90 scaling.log "$LLPFC" bench --device cpu --model "$model" --batch-size "$batch" \
		--channels "$ch" --height "$h" --width "$w" --steps "$steps" --warmup "$warmup" --scaling "$COUNTS" --stream-mib "$STREAM_MIB" --json
done
for c in $SCALING_POOLED; do
	IFS=: read -r model batch shape steps warmup <<<"$c"
	IFS=x read -r ch h w <<<"$shape"
	part "cpu scaling $model $batch (threads $THREADS, pooled goroutines)" 40 scaling.log env LLPFC_PAR_START=pooled "$LLPFC" bench --device cpu \
		--model "$model" --batch-size "$batch" --channels "$ch" --height "$h" --width "$w" --steps "$steps" --warmup "$warmup" \
		--scaling "$THREADS" --stream-mib 0 --json
done

VERDICT=$("$PY" "$KIT/kit.py" summarize "$OUT") || FAILED=1
[ -n "$VERDICT" ] || VERDICT="FAIL: kit.py summarize gave no verdict"
rm -f "$OUT/parts.tsv" "$OUT/discovery.json" # both are in results.json
echo "run.sh: $VERDICT — $(($(date +%s) - START)) s; $OUT/summary.md, $OUT/results.json and the logs"
exit $FAILED
