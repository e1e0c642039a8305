package claims

import (
	"fmt"
	"testing"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

func TestZZDebug(t *testing.T) {
	o := checkCaliNoise(verify.Config{Cases: 5000, Seed: 7}, "caliNoise/log", theory.LogLoss, biconjugate)
	fmt.Println(o.Counterexample)
	o = checkCaliNoise(verify.Config{Cases: 5000, Seed: 8}, "caliNoise/square", theory.SquareLoss, biconjugate)
	fmt.Println(o.Counterexample)
}
