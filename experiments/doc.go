// Package experiments turns the library into reproducible experiments
// (Section 6 and Appendix A of Zhang, Wang, Scott, NeurIPS 2022): data-set
// readers, the bag protocols, declarative experiment grids run cell by cell
// into a resumable results store, and reports and plots that set our numbers
// beside the paper's.
//
// The sub-packages data (readers and named data sets) and bagproto (the bag
// protocols) supply a cell's LLP data set (LoadProblem). A bag-only data set
// (bags:…, issue 28) gives its own bags, the cell's protocol "given"
// (GivenProtocol); like the feature and kmeans protocols it makes bags of
// varying sizes, recorded as bag size 0 (bagonly.go). This package holds
// the rest of the pipeline:
//
//   - Spec: a declarative grid (JSON; ParseSpec, LoadSpec, BuiltinSpec for
//     "quick" and the paper's Tables 1–4: "wrn16-4", "resnet18", "vgg16",
//     "llpgan") that expands into Cells, each keyed by the hash of its full
//     canonical configuration (Config.Key, Config.CanonicalJSON).
//   - Learner: the seam through which a cell is trained (RegisterLearner,
//     LookupLearner). LogReg ("logreg") is a small real learner —
//     multinomial logistic regression with the LLPFC and KL objectives — for
//     tests; the gorgonia engine of package training registers "gorgonia".
//   - Store and Runner: one atomically written JSON file per finished cell
//     (DIR/cells/<key>.json), so a rerun skips finished cells and a killed
//     run loses at most the cell in flight; Shard splits a grid
//     deterministically; Merge combines shard stores.
//   - BuildTables, Table.Markdown, Table.Plot, WriteReport: tables in the
//     paper's layout (mean ± std over seeds, method × bag size) beside the
//     paper's own numbers (fixtures/paper), and PNG plots; Collect reads
//     several stores with each cell once, in the table of every spec that
//     ran it (Result.SpecNames).
//   - Checks before any cell (issue 27): the learners' rules
//     (CellChecker), a spec against its data (Spec.CheckData), and sizes
//     before allocation (CheckSize, MemoryBudget): what would fail every
//     cell is an InputError, reported as bad input.
//
// The commands `llpfc run`, `llpfc merge` and `llpfc report` are thin
// wrappers over Runner, Merge and WriteReport.
package experiments
