package methods_test

import (
	"fmt"

	"github.com/llpfc/llpfc/training/methods"
)

// The methods a table gives their authors' settings, in the tables' row
// order, and what one of them counts a minibatch in.
func ExampleSelect() {
	fmt.Println(methods.Select(func(d *methods.Descriptor) bool { return d.Authors != nil }))
	d, _ := methods.Lookup(methods.MixBag)
	fmt.Println(d.Label, d.DefaultBatch, d.Batch)
	// Output:
	// [easyllp mixbag llppvc]
	// MixBag 32 bags
}
