// Package testnet holds the small networks the training tests register
// ("test-tiny": a smooth D→5→C network small enough for finite differences
// over every parameter).
package testnet
