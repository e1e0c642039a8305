package training

// The compute back ends Config.Device can name register themselves
// (training/device): the CPU, the default, and OpenCL.
import (
	_ "github.com/llpfc/llpfc/training/device/cpu"
	_ "github.com/llpfc/llpfc/training/device/opencl"
)
