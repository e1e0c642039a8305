package loss

import "fmt"

// NonFiniteError is a loss or a gradient that came out NaN or ±Inf: the
// step stops before it updates any parameter. What names it ("KL loss",
// "gradient of fc1.W[3]").
type NonFiniteError struct {
	What  string
	Value float64
}

func (e *NonFiniteError) Error() string { return fmt.Sprintf("%s is %v", e.What, e.Value) }
