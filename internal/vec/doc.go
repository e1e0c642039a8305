// Package vec holds the training engine's element-wise passes over float32
// rows in AVX2 assembly: the affine map and ReLU of batch norm's
// forward pass, the float64 sums of its statistics, and the masked sums and
// element-wise gradient of its backward pass; and Adam's update (bench/NOTES.md,
// "Adam in AVX2": 6.2 ns a parameter in Go, about one in AVX2, where VGG16's 134 M
// parameters made it a quarter of a training step; where the processor has
// AVX-512, sixteen values an instruction, which halves the microcode assists
// an Intel core takes on subnormal gradients and moments: "Lever 18"); and the check that no
// gradient is NaN or ±Inf before each update (AllFinite, on the float32 bits,
// at the speed memory streams), and the look for a subnormal value (HasSubnormal, on
// the bits: the matrix product broadcasts the operand that holds them, to
// spare an Intel core's microcode assists); the 2×2 max pool's rows
// (MaxPool2Row: eight windows an instruction, with the instructions Go's
// compiler emits for max, so the same bits as its Go twin); and dropout's masked product (Dropout: a
// comparison of each unit's Philox number with the threshold and a product
// by the scale or 0, no branch on the numbers, which mispredicted on a
// share p of them: bench/NOTES.md, "Lever 21"). Each has a portable Go twin with the same
// meaning, generic over float32 and float64 (AllFinite's over float32 only),
// used for float64 rows, on processors without AVX2 and for the tails of rows
// that are not a multiple of the vector width, and the tests compare the two.
// The *Planes forms run batch norm's passes over a run of planes, each with
// its own channel's constants (one instance's run of channels), plane by
// plane exactly as the per-row routines, so that batch norm can walk the
// batch in memory order (planes.go).
//
// It is hand-written because no Go library has these passes: github.com/
// viterin/vek's AVX2 routines cover plain sums and products in float32, not
// float32 data with float64 accumulators, nor the ReLU mask that batch norm's
// backward pass applies on the fly (gonum's asm covers axpy and dot). Before
// it the four passes cost 8 % of a WRN-16-4 training step at about six
// cycles a value (bench/NOTES.md).
//
// Exactness: Affine, Grad and Adam compute, value by value, exactly what their Go
// twins compute (a multiply and an add rounded separately, no fused
// multiply-add), so the ReLU mask of the backward pass is the forward's bit
// for bit whichever path ran. Sum, SqDev and MaskedSums add in another order
// than their Go twins (four float64 lanes), so their results differ from a
// machine without AVX2 in the last bits; within one machine they are the
// same every run.
package vec
