#!/usr/bin/env bash
# scripts/race.sh — the race detector on the tests whose threads share buffers (`make test`'s last
# step). The convolutions' threads fold ∂x into one image's channels, the SGEMM's workers share
# packed blocks, dropout's cores share a layer: the deterministic tests compare bits across thread
# counts, but a write that races with another can still give the same bits most of the time (a
# stacked fold that added +0 onto the image's first value from every channel's thread did, until a
# CI run caught it once). The race detector sees every such pair of accesses, run or not.
# It needs cgo and a C compiler: with CI=true a missing compiler is a failure, else a skip.
set -u
GO=${GO:-go}
if [ "$($GO env CGO_ENABLED)" = 1 ] && command -v "$($GO env CC)" >/dev/null 2>&1; then
	exec $GO test -count=1 -race -timeout 30m \
		-run 'ConvBitsDoNotDependOnTheThreads|ConvStackedMatchesPerImage|ConvPhasedMatchesStrided|DropoutApplyIsTheMask|WinogradMatchesDirect|SgemmDeterministicAndDegenerate|PipelineKeepsOrder|PackAOnCoresIsPackA|EveryIndexOnce|RangesCoverEveryElementOnce|WorkerScratchIsExclusive|PooledLoopsNestAndOverlap|SleeperWakesOnce' \
		./training/nn ./internal/sgemm ./internal/par
fi
if [ "${CI:-}" = true ]; then
	echo "race tests: the race detector needs cgo and a C compiler (apt-get install gcc libc6-dev); with CI=true that is a failure" >&2
	exit 1
fi
echo "race tests: SKIPPED (the race detector needs cgo and a C compiler: apt-get install gcc libc6-dev)"
