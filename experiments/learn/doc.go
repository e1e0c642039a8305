// Package learn trains one cell of an experiment (Section 6 and Appendix A of
// Zhang, Wang, Scott, NeurIPS 2022): it poses the cell's problem, checks that
// the problem fits the data and the memory before anything is allocated,
// trains it with a learner and saves the trained network.
//
//   - The problem (problem.go): LoadProblem reads a cell's data set (both
//     splits, normalized with the training split's constants), draws its
//     bags with the cell's protocol and seed (package bagproto), or takes a
//     bag-only set's own; GaussianMixture generates the synthetic gmm:… sets.
//   - The checks (check.go, size.go): each learner's rules (Gorgonia and
//     LogReg implement experiments.CellChecker, which Config.Validate calls),
//     a cell against its data set's shape (ShapeOf, CheckCellData, CheckBags)
//     and against MemoryBudget (CheckSize, CheckModelSize): what would fail
//     is refused as an experiments.InputError.
//   - The learners: "gorgonia" (gorgonia.go: TrainingConfig maps a cell onto
//     training.Config, RunCell is the one path of a training run, for a grid
//     cell and for `llpfc train`) and "logreg" (logreg.go, reduce.go: a
//     multinomial logistic regression with the LLPFC and KL objectives, for
//     tests and laptops). Importing this package registers both.
//   - Saved models (model.go): SaveModel writes the weights and a manifest,
//     LoadModel reads and checks them, SavedModel.Predict scores new data.
//
// The cut: this room knows how one cell is trained; it does not know grids,
// stores or reports (package experiments/grid runs many cells through the
// registered learners, and imports this package).
package learn
