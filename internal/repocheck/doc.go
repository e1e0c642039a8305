// Package repocheck holds tests about the repository itself rather than about
// any one package: that every file a doc comment, script or markdown page
// names exists (issue 19: no dangling reference). It has no non-test code.
package repocheck
