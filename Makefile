# llpfc — the two commands a newcomer needs are `make test` and
# `go run ./cmd/llpfc reproduce --quick` (also `make reproduce`).

GO      ?= go
CASES   ?= 500
PKGS    := ./...

.PHONY: test test-long verify mutate reproduce bench fuzz vet fmt gpu-kit

## test: vet, then every unit, property and end-to-end test (the CI command), then the race
## detector on the tests whose threads share buffers (scripts/race.sh; it needs a C compiler)
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 60m $(PKGS)
	GO=$(GO) bash scripts/race.sh

## test-long: the theorem property tests with 100,000 cases each
test-long:
	LLPFC_CASES=100000 $(GO) test -count=1 -timeout 120m ./proofs_tests/

## verify: print, claim by claim, how hard each result of the paper was tested
verify:
	$(GO) run ./cmd/llpfc verify --cases $(CASES)

## reproduce: the main job on the embedded Fashion-MNIST fixture
reproduce:
	$(GO) run ./cmd/llpfc reproduce --quick

## bench: speed and memory benchmarks: our training step vs PyTorch side by side (bench/run.sh;
## bench/NOTES.md), wrn-16-4 at batch 32 and 128 with peak RSS both sides and the SGEMM GFLOP/s table
## (ours, gonum's, OpenBLAS's), peak memory by bag size, estimator micro-benchmarks; then every Go benchmark
bench:
	GO=$(GO) bash bench/run.sh
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

## gpu-kit: dist/gpu-kit/ (git-ignored, under 28 MiB): llpfc without the embedded fixture, the OpenCL
## loader and CLBlast from Debian's packages, the PyTorch peer, and run.sh OUTDIR [--quick], the one
## command that checks and measures --device opencl on a GPU machine (docs/gpu-and-cluster.md)
gpu-kit:
	GO=$(GO) bash scripts/gpu-kit/build.sh

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -l -w .

## mutate: apply each of a fixed list of realistic bugs (theory/, estimators/, training/, experiments/;
## listed in MUTATIONS.md) through go's -overlay, judge it by the verify claims or by the Go tests it
## names, and report what caught it; ends with `mutations: N caught of M` and a per-folder count
## (MUTATIONS.md lists them). MUTATE_FLAGS: e.g. -j 4, or -only ID,ID
mutate:
	$(GO) run ./cmd/mutate $(MUTATE_FLAGS)
