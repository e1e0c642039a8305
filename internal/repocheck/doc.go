// Package repocheck holds tests about the repository itself rather than about
// any one package: that every file a doc comment, script or markdown page
// names exists (no dangling reference), that no tracked file cites an issue
// tracker's number (TestNoIssueNumbers: a reader outside cannot resolve one),
// the layers' imports, and that no amd64 assembly file has a legacy-SSE
// instruction (TestAssemblyIsVEXOnly: each can cost an SSE/AVX transition).
// It has no non-test code.
package repocheck
