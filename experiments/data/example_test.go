package data_test

import (
	"fmt"
	"os"
	"path/filepath"
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

// A bag-only set as NumPy writes it — X, a bag id per instance, a row of
// proportions (or counts) per bag — is read with its bags; instances of a
// bag need not be contiguous.
func ExampleReadBagOnly() {
	dir, _ := os.MkdirTemp("", "bags")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mine.npz")
	f, _ := os.Create(path)
	err := data.WriteNPZ(f, []data.NPYArray{ // what np.savez(path, X=X, bag=bag, proportions=P) writes
		{Key: "X", Shape: []int{5, 2}, F32: []float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{Key: "bag", Shape: []int{5}, I64: []int64{1, 0, 1, 0, 1}},
		{Key: "proportions", Shape: []int{2, 3}, I64: []int64{2, 0, 0, 1, 1, 1}}, // counts
	})
	f.Close()
	if err != nil {
		fmt.Println(err)
		return
	}
	train, test, err := data.ReadBagOnly("bags:" + path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(train.N, "instances,", train.NumClasses, "classes, labels:", train.Y, "test split:", test)
	for _, b := range train.Bags.Bags {
		fmt.Printf("bag %d: instances %v, proportions %.3f\n", b.ID, b.Indices, b.Proportions)
	}
	// Output:
	// 5 instances, 3 classes, labels: [] test split: <nil>
	// bag 0: instances [1 3], proportions [1.000 0.000 0.000]
	// bag 1: instances [0 2 4], proportions [0.333 0.333 0.333]
}
