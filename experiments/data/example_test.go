package data_test

import (
	"fmt"
	"strings"

	"github.com/llpfc/llpfc/experiments/data"
)

// The embedded Fashion-MNIST fixture needs no directory.
func ExampleLoad() {
	d, err := data.Load("fixture", "", data.Test)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d images of %d×%d×%d (C×H×W), %d classes, %d of class 0\n", d.N, d.Channels, d.Height, d.Width, d.NumClasses, d.ClassCounts()[0])
	// Output: 4000 images of 1×28×28 (C×H×W), 10 classes, 400 of class 0
}

// LIBSVM labels become classes 0…K−1 in increasing order of the label.
func ExampleReadLIBSVM() {
	d, err := data.ReadLIBSVM(strings.NewReader("+1 1:0.5 3:2\n-1 2:1\n"), "toy.svm", data.TabularOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.N, d.D, d.ClassNames, d.Y, d.X)
	// Output: 2 3 [-1 1] [1 0] [0.5 0 2 0 1 0]
}

// Errors name the file and the byte offset where it broke a rule.
func ExampleReadIDX() {
	_, err := data.ReadIDX(strings.NewReader("\x00\x00\x08\x01\x00\x00\x00\x05abc"), "labels.idx")
	fmt.Println(err)
	// Output: labels.idx: byte 11: truncated IDX data: dimensions [5] need 5 bytes after the 8-byte header, file has 3
}
