package jsonkeys_test

import (
	"fmt"

	"github.com/llpfc/llpfc/internal/jsonkeys"
)

func ExampleUnique() {
	fmt.Println(jsonkeys.Unique([]byte(`{"seeds": [0, 1], "hyper": {"lr": 0.001}}`)))
	fmt.Println(jsonkeys.Unique([]byte(`{"seeds": [0, 1], "hyper": {"lr": 0.001, "lr": 0.1}}`)))
	// Output:
	// <nil>
	// the key "lr" appears twice in the object at /hyper (offset 41): JSON does not say which one counts; keep one
}
