// Package experiments turns the library into reproducible experiments
// (Section 6 and Appendix A of Zhang, Wang, Scott, NeurIPS 2022). It is a
// house of rooms, imports running one way (TestImportsOneWay in
// internal/repocheck):
//
//	experiments/data, experiments/bagproto  ←  experiments  ←  experiments/learn  ←  experiments/grid  ←  experiments/report
//
// The rooms:
//
//   - data: the data-set readers and named sets; bagproto: the bag
//     protocols (Section 6's, shuffle, Dirichlet, feature and k-means bags).
//   - this package, the root: what every room shares — a cell's Config
//     (config.go, hyper.go; its validation, validate.go, and its key, the
//     hash of its canonical JSON), the methods and their names in the
//     paper's tables (methods.go), the data sets' names (datasets.go, gmm.go),
//     the seam through which a cell is trained (Learner, Metrics,
//     RegisterLearner; learner.go), the test split's Scores, the code
//     version a result records (provenance.go), and the errors of bad input
//     (errors.go).
//   - learn: the learners a cell is trained by ("gorgonia", "logreg"), the
//     problem a cell poses (its data and bags), the checks of a cell against
//     its data and the memory, saved models.
//   - grid: specs and the built-in grids, shards, the runner, the results
//     store, collect and merge, and which cells share a table.
//   - report: tables in the paper's layout, plots, the trouble section, CSV.
//   - binary: the appendix's binary kernel experiment (its own protocol and
//     report).
//
// The cut follows what a maintainer changes together: a new report column
// touches report; a new learner, learn and its CheckCell; a new grid, grid's
// builtin.go; a new method, methods.go and package training. The root holds
// no step of the pipeline, only the words the steps share.
//
// The commands `llpfc train`, `llpfc run`, `llpfc merge` and `llpfc report`
// are thin wrappers over learn.RunCell, grid.Runner, grid.MergeStores and
// report.WriteReports.
package experiments
