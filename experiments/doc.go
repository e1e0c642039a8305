// Package experiments turns the library into reproducible experiments
// (Section 6 and Appendix A of Zhang, Wang, Scott, NeurIPS 2022): data-set
// readers, the bag protocols, declarative experiment grids run cell by cell
// into a resumable results store, and reports and plots that set our numbers
// beside the paper's.
package experiments
