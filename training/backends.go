package training

// The compute back ends Config.Device can name register themselves
// (training/device): the CPU, the default.
import _ "github.com/llpfc/llpfc/training/device/cpu"
