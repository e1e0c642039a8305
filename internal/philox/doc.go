// Package philox is the counter-based random number generator
// Philox4x32 of Salmon, Moraes, Dror and Shaw, "Parallel random numbers:
// as easy as 1, 2, 3" (SC'11), the generator of cuRAND's and PyTorch's
// device-side dropout.
//
// A counter-based generator is a keyed function: the numbers of any
// element are computed from (key, counter) alone, with no state carried
// from one number to the next. That is what lets a training step draw its
// dropout masks where it runs — each work item of a GPU kernel computes
// its own — and lets the CPU back end compute the very same numbers in Go,
// so that the two back ends' results stay comparable entry by entry
// (training/nn's dropout, internal/opencl's kernels/random.cl). Both are
// held to the Random123 library's published known-answer vectors
// (TestKnownAnswers); the OpenCL kernel is held to this package.
//
// Words makes a run of consecutive blocks at once — a dropout layer's
// numbers on the CPU — eight blocks a vector register on amd64 with AVX2
// (words_amd64.s, hand-written: no Go library vectorizes Philox, and the
// compiler does not vectorize the scalar rounds), held bit for bit to
// Block10 (TestWordsAreBlocks).
package philox
