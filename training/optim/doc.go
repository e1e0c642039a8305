// Package optim holds the optimizers and learning-rate schedules of the
// paper's experiments (Appendix A, "Architecture and Hyperparameters"):
// SGD with momentum, dampening, Nesterov momentum and weight decay, Adam and
// AdamW, with PyTorch's torch.optim update rules, so the appendix's settings
// mean the same thing here; and the constant, multi-step and
// cosine-with-warm-restarts schedules.
//
// Imports: internal/par. Imported by training (and by the compute back ends,
// which run the same updates on their devices).
package optim
