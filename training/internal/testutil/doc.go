// Package testutil holds the helpers the training rooms' tests share: graph
// inputs from float64 slices, random values, central finite differences
// of a graph's loss (CheckGradFD, GradCheck) and value comparisons. It
// imports gorgonia only, so that tests of every room (training/nn
// included) can use it.
package testutil
