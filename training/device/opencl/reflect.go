package opencl

import "github.com/llpfc/llpfc/training/device"

// The fields of gorgonia's unexported op types, read by reflection
// (training/device/reflect.go, shared with the CPU back end's plan).
var (
	intField  = device.IntField
	boolField = device.BoolField
	intsField = device.IntsField
)
