// Package binary runs the paper's binary experiment (Appendix "Experiments in
// Binary Setting", Table `tab:binary exp`) with the protocol of the LMMCM
// code the paper says it follows ("We run experiments in the same settings
// of [Scott & Zhang 2020]"; github.com/Z-Jianxin/Learning-from-Label-
// Proportions-A-Mutual-Contamination-Framework at commit adb57fa):
//
//   - data: Adult (adult.data is the pool, adult.test the test set) or MAGIC
//     (a fresh random 80/20 split of magic04.data per trial), or an offline
//     binary task made from Fashion-MNIST (two classes) for machines without
//     the UCI files;
//   - bags ('uniform_prop' of bag_utils.assign_bags): TrainSize/B bags of size
//     B; bag k draws p_k ~ U[lo, hi] and its number of positives from
//     Binomial(B, p_k); the positives and negatives are then drawn without
//     replacement from the pool (TrainSize 8192 for Adult, 5120 for MAGIC);
//   - per trial (5 in the paper) new bags; every method sees the same bags;
//   - per method 5-fold bag-level cross-validation over its grid
//     (package training/kernel), a final fit on all bags and the AUC on the
//     test set.
//
// Each finished cell is written at once to DIR/cells/<key>.json (atomically)
// with everything that makes two cells comparable, so an interrupted grid
// resumes; Report renders the table with the paper's numbers beside ours.
package binary
