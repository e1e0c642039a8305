package choice_test

import (
	"fmt"

	"github.com/llpfc/llpfc/internal/choice"
)

type color uint16

var colors = choice.Set[color]{What: "color", Names: []string{"", "red", "blue"}, Want: "red or blue"}

// A choice is parsed once by its name; an empty text is its zero value, not
// stated; a name it does not know is an error saying what it wants.
func ExampleSet() {
	var c color
	fmt.Println(colors.Unmarshal(&c, []byte("blue")), colors.String(c))
	fmt.Println(colors.Unmarshal(&c, nil), c == 0)
	_, err := colors.Parse("green")
	fmt.Println(err)
	// Output:
	// <nil> blue
	// <nil> true
	// color "green": want red or blue
}
