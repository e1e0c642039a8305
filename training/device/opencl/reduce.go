package opencl

import (
	"fmt"
	"os"
)

// ReduceEnv names the variable that chooses how the per-channel reductions
// run (batch norm's statistics and gradient sums, a convolution's bias
// gradient): a variant the GPU kit's sweep times beside the default,
// recorded in every result's numerics:
//
//	unset or "sliced"  a channel of many values reduced by several
//	                   work-groups whose partial results a second launch
//	                   merges, about a GPU's wave of work-groups in all
//	                   (the default)
//	"channel"          one work-group a channel, as before: a 32×32 map's
//	                   64 channels at batch 128 then keep 64 of an H200's
//	                   132 multiprocessors busy
//
// Any other value is an error naming the variable and the value.
const ReduceEnv = "LLPFC_OPENCL_REDUCE"

// reduceVariant reads ReduceEnv: whether the reductions run one
// work-group a channel, and how the numerics name that (nothing for the
// default).
func reduceVariant() (perChannel bool, numerics string, err error) {
	switch v := os.Getenv(ReduceEnv); v {
	case "", "sliced":
		return false, "", nil
	case "channel":
		return true, "reduce channel (one work-group a channel)", nil
	default:
		return false, "", fmt.Errorf("%s=%s: want sliced (the default) or channel", ReduceEnv, v)
	}
}
