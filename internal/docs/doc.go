// Package docs reads the user's documentation — README.md and the guides
// under docs/ — for the tests that hold it to the program and to itself: the
// files, a marked block wherever it lives (a table a test regenerates, a
// comparison's ranking sentences), the code blocks whose commands must name
// real subcommands and flags, and the links with the headings they point at.
//
// The documentation is split into guides so that a newcomer reads the
// README in minutes; the tests that once read README.md read through this
// package, so that a block moved from one guide to another is still found,
// and a block left in two places is an error, not a silent choice.
package docs
