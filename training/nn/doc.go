// Package nn is the neural-network engine of llpfc's training (Section 6 and
// Appendix A of Zhang, Wang, Scott, NeurIPS 2022): gorgonia graphs in
// float32 (float64 for the gradient checks) with the project's fused
// operations and their hand-written gradients.
//
// What lives here:
//   - the model interface (Model, ModelSpec, StochasticModel,
//     BatchNormModel) and the layers models are made of: Dense, Conv (with
//     PyTorch's initializations), ConvTranspose, BatchNorm with its running
//     statistics, global and adaptive average pooling;
//   - the fused operations: convolution by im2col and SGEMM (Conv2dIm2col;
//     fastconv.go, convpacked.go, blas_*.go; on maps of fewer than 256
//     values several images a product, convstacked.go; strided layers whose
//     kernel is wider than the stride read through the input's polyphase
//     planes, convphase.go; the 3×3, stride-1
//     layers of 16 channels or more by Winograd's F(2×2, 3×3), 16 products
//     between internal/wino's tile transforms, or on maps of 32×32 and more
//     F(4×4, 3×3), 36 products, winograd.go), batch norm with or without
//     ReLU in training and evaluation mode (bnfused.go), the 2×2 max pool
//     with or without ReLU (pool.go), dropout whose masks each back end
//     computes where it runs from the step's key, the layer and the unit by
//     Philox4x32-10 (dropout.go), and the batch-norm statistics sweep
//     that lets a bag loss evaluated in chunks see the whole minibatch's
//     statistics (BNSweep, bnsweep.go);
//   - the value helpers every graph builder uses (values.go: input nodes,
//     constants, reading values, OpHash).
//
// Hand-written because gorgonia's own convolution, batch norm and pooling
// keep about ten activation-sized tensors per layer alive for the backward
// pass and run single-threaded; the fused ops are checked
// against gorgonia's composite graphs and finite differences.
//
// Imports: internal/par, internal/philox, internal/sgemm, internal/vec, internal/wino, gorgonia. Imported by
// training/models, training/loss, training/device back ends and training;
// it imports none of them (TestTrainingRoomsImportOneWay).
package nn
