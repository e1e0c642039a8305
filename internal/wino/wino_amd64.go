package wino

//go:generate python3 gen_asm.py

import "golang.org/x/sys/cpu"

// useAsm selects the AVX2 kernels (tests switch it off to check the Go
// twins).
var useAsm = cpu.X86.HasAVX2

// input8 is inputTile for the eight tiles whose patches start at d, 2
// values apart (four rows pw apart, 18 values each read); V of tile j goes
// to v[ξ·stride + j].
//
//go:noescape
func input8(d *float32, pw int, v *float32, stride int)

// outGrad8 is outGradTile for eight tiles whose ∂Y rows are the 16 values
// at dy0 and at dy1; D̂ of tile j goes to dh[ξ·stride + j].
//
//go:noescape
func outGrad8(dy0, dy1 *float32, dh *float32, stride int)

// output8 is outputTile for eight tiles (m[ξ·stride + j]), writing the 16
// values at y0 and at y1.
//
//go:noescape
func output8(m *float32, stride int, bias float32, y0, y1 *float32)

// inputGradRow8 is inputGradRow for 16 values of ∂x (m … m+7) from the S
// rows at s (S_0(m), sw apart).
//
//go:noescape
func inputGradRow8(s *float32, sw int, dx *float32)

// gradSEven8 is gradS for α = 0, eight tiles and l = 0 … 3: zc and zp are
// z_0 of the tile rows y and y − 1, S_l goes to dst + l·sw.
//
//go:noescape
func gradSEven8(zc, zp *float32, stride int, dst *float32, sw int)

// gradSOdd8 is gradS for α = 1 (as gradSEven8).
//
//go:noescape
func gradSOdd8(zc, zp *float32, stride int, dst *float32, sw int)

// input4x4 is Input for a 4×4 plane (its 16 values at x, in a row): V of
// its four tiles goes to v[ξ·stride + t], one XMM lane a tile, each value
// made by inputTile's operations in inputTile's order.
//
//go:noescape
func input4x4(x *float32, v *float32, stride int)

// outGrad4x4 is OutGrad for a 4×4 plane (its 16 values at dy), D̂ of its
// four tiles to dh[ξ·stride + t] (as input4x4).
//
//go:noescape
func outGrad4x4(dy *float32, dh *float32, stride int)

// output4x4 is Output for a 4×4 plane: Y of the four tiles m[ξ·stride + t]
// to the plane's 16 values at y.
//
//go:noescape
func output4x4(m *float32, stride int, bias float32, y *float32)

// inputGrad4x4 is InputGrad for a 4×4 plane: its 16 values at dx from the
// four tiles z[ξ·stride + t].
//
//go:noescape
func inputGrad4x4(z *float32, stride int, dx *float32)

// The four-tile kernels: the same, one XMM lane a tile (the 8×8 maps of
// WRN-16-4's last stage have four tiles a row).

//go:noescape
func input4(d *float32, pw int, v *float32, stride int)

//go:noescape
func outGrad4(dy0, dy1 *float32, dh *float32, stride int)

//go:noescape
func output4(m *float32, stride int, bias float32, y0, y1 *float32)

//go:noescape
func inputGradRow4(s *float32, sw int, dx *float32)

//go:noescape
func gradSEven4(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func gradSOdd4(zc, zp *float32, stride int, dst *float32, sw int)
