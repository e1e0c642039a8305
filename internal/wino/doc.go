// Package wino holds the tile transforms of Winograd's minimal filtering
// F(2×2, 3×3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural
// Networks", CVPR 2016) for one image plane at a time: the input transform
// V = Bᵀ d B of every 4×4 patch a 2×2 output tile reads, the output
// transform Y = Aᵀ m A, and their transposes for back-propagation (D̂ = A ∂Y
// Aᵀ of the output gradient, and B z Bᵀ added back onto the overlapping
// patches), with the 3×3 weights' transform U = G g Gᵀ and its transpose
// Gᵀ ∂U G. training/nn's Winograd convolution (bench/NOTES.md, "Lever 8") runs its 16
// matrix products between them.
//
// A plane of h×w values has th = ⌈h/2⌉ × tw = ⌈w/2⌉ tiles, numbered
// t = ty·tw + tx; a transformed plane is 16 rows ξ = 4a + b, at a caller's
// stride, of one value a tile. The patch of tile (ty, tx) is rows 2ty−1 …
// 2ty+2 and columns 2tx−1 … 2tx+2 (padding 1, zeros outside the plane).
//
// It is hand-written because no Go library has Winograd transforms (gorgonia
// and gonum convolve by im2col). The transforms run in AVX2 assembly eight
// tiles at a time where the processor has it, with Go twins that compute
// every value by the same operations in the same order (so the two give the
// same bits: TestAsmMatchesGo) for the tiles at the borders, for processors
// without AVX2, and as the reference; the tests check the twins against the
// matrix definitions in float64.
package wino
