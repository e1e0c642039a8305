// Package testnet holds what the training tests share for finite
// differences: the small networks they register ("test-tiny": a smooth
// D→5→C network small enough for central differences over every
// parameter) and HostGrads, a device.Grads that accumulates gradients on the
// host in float64 so a test reads them directly.
package testnet
