package loss

import (
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/internal/testnet"
	"github.com/llpfc/llpfc/training/models"
)

func init() { models.RegisterModel("test-tiny", testnet.NewFDTinyNet) }

// hostAcc is the tests' host-side device.Grads (testnet.HostGrads).
type hostAcc = testnet.HostGrads

var newHostAcc = testnet.NewHostGrads

// cpuBackend runs the tests' programs.
var cpuBackend = cpu.New()
