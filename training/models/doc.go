// Package models holds the architectures of the paper's experiments
// (Appendix A, "Architecture and Hyperparameters"), each registered by name
// (RegisterModel, NewModel, ModelNames): mlp and cnn (this machine's scale),
// cnn-bn, Wide ResNet-16-4 (Table 1), ResNet-18 (Table 2), VGG16 with batch
// norm (Table 3) and the LLP-GAN discriminator and generator (Table 4). Each
// builds its layers from training/nn with the initialization its authors
// used; the parameter counts are checked against the reference
// implementations.
//
// Imports: training/nn. Imported by training and by tests of training/loss;
// it imports neither (TestTrainingRoomsImportOneWay).
package models
