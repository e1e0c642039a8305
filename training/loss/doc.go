// Package loss holds the LLP losses as gorgonia graphs over a model's
// logits, with the machinery each needs to train in bounded memory:
//   - the forward-correction loss of Algorithms `algo:LLPFC-uniform` and
//     `algo:LLPFC-approx` (FCLoss, the fused op with its closed-form
//     gradient; FCLossClamped, the authors' loss_f);
//   - the KL proportion loss of App. `subsec:KL` (KLLoss, and KLChunked,
//     its exact gradient evaluated chunk by chunk);
//   - LLP-VAT's consistency loss and power iteration (VAT);
//   - LLP-GAN's discriminator and generator losses;
//   - the newer methods' objectives, computed on the host from the head
//     outputs for every back end (BagObjective, KLChunked.GradientOf):
//     EasyLLP, MixBag's CILoss, LLP-PVC's PVC with its exact likelihood
//     (PoissonBinomialLogProb) and the authors' FFT as a
//     variant, each keeping BagDiagnostics.
//
// Imports: training/nn and training/device (the programs it runs).
// Imported by training; it does not import training/models
// (TestTrainingRoomsImportOneWay).
package loss
