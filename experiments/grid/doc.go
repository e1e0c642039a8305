// Package grid runs experiments as grids of cells (Section 6 and Appendix A
// of Zhang, Wang, Scott, NeurIPS 2022: every method at every bag size, five
// seeds) and keeps their results.
//
//   - Spec (spec.go): a declarative grid read strictly from JSON (ParseSpec,
//     LoadSpec) that expands into cells (Spec.Cells), each an
//     experiments.Config keyed by the hash of its canonical encoding; the
//     built-in grids of the paper's tables and "quick" (builtin.go,
//     BuiltinSpec), the newer methods' authors' settings (newer.go,
//     AuthorsHyper), one table cell as a preset (preset.go, PresetCell).
//   - Spec.CheckData (check.go): what would fail every cell, refused before
//     any runs.
//   - Shard (shard.go): a deterministic part of a grid, by hand (i/n) or
//     from Slurm's array variables (ParseShardAuto).
//   - Runner (runner.go, progress.go): trains the cells of a shard one at a
//     time through the registered experiments.Learner, skipping finished
//     ones, and stores each result as soon as it is finished.
//   - Store, Result (store.go): one atomically written JSON file per
//     finished cell (DIR/cells/<key>.json); Collect and MergeStores
//     (collect.go) read several stores with each cell once.
//   - Tables (comparable.go): which cells share a table of a report, and
//     whether they are comparable — the rule a merge keeps and a report
//     reads.
//
// The cut: this room knows which cells a grid has, where their results are
// and whether they belong together; how a cell is trained is
// experiments.Learner's (the learners register themselves), and how a table
// looks is package experiments/report's. A result file's JSON is
// Result's field names: stores written before the rooms existed still load.
package grid
