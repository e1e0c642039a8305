package opencl

import "fmt"

// UnaryOp is an element-wise function of one float32, with gorgonia's
// float32 definition (its tensor engine's for tensors).
type UnaryOp int

// The unary operations (the codes of kernels/elementwise.cl).
const (
	Neg        UnaryOp = iota // −x
	Abs                       // |x|
	Sign                      // tensor.Sign: −1 below 0, 1 above, x itself at ±0 and NaN
	Exp                       // eˣ
	Ln                        // natural logarithm
	Inv                       // 1/x
	Sqrt                      // √x
	Square                    // x·x
	Tanh                      // tanh x
	Sigmoid                   // gorgonia's: 0 below −88, 1 above 15, else 1/(1+e^−x)
	Softplus                  // gorgonia's: 0 below −103, x above 14, else log1p(eˣ)
	SignScalar                // gorgonia's scalar sign (_signf32): −1 where the sign bit is set, else 1
	Log1p                     // log(1 + x) (LLPGAN's softplus from elementary ops)
	numUnary
)

var unaryNames = [...]string{"neg", "abs", "sign", "exp", "ln", "inv", "sqrt", "square", "tanh", "sigmoid", "softplus", "sign(scalar)", "log1p"}

func (op UnaryOp) String() string {
	if op < 0 || op >= numUnary {
		return fmt.Sprintf("UnaryOp(%d)", int(op))
	}
	return unaryNames[op]
}

// Unary enqueues y[i] = op(x[i]) for i < n (y may be x).
func (l *Lib) Unary(op UnaryOp, x, y *Buffer, n int) error {
	if op < 0 || op >= numUnary {
		return fmt.Errorf("opencl: unknown unary operation %d", op)
	}
	name := "unary " + op.String()
	if err := need(name, n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("unary", n, x, y, n, int(op))
}

// BinaryOp is an element-wise operation on two float32 values; the
// comparisons give 1 or 0 (gorgonia's retSame form).
type BinaryOp int

// The binary operations (the codes of kernels/elementwise.cl).
const (
	Add BinaryOp = iota // a + b
	Sub                 // a − b
	Mul                 // a ⊙ b
	Div                 // a ÷ b
	Lt                  // a < b
	Eq                  // a == b
	Gte                 // a ≥ b
	Gt                  // a > b
	Lte                 // a ≤ b
	Ne                  // a ≠ b
	numBinary
)

var binaryNames = [...]string{"+", "−", "⊙", "÷", "<", "==", ">=", ">", "<=", "!="}

func (op BinaryOp) String() string {
	if op < 0 || op >= numBinary {
		return fmt.Sprintf("BinaryOp(%d)", int(op))
	}
	return binaryNames[op]
}

// Broadcast says which operand of a binary operation is a scalar.
type Broadcast int

const (
	SameShape Broadcast = iota // both hold n elements
	ScalarA                    // a is a scalar (a[0]) against n elements of b
	ScalarB                    // b is a scalar (b[0])
)

// Binary enqueues y[i] = a[i] op b[i] for i < n, with a or b a scalar as
// bc says (y may be a or b).
func (l *Lib) Binary(op BinaryOp, a, b, y *Buffer, n int, bc Broadcast) error {
	if op < 0 || op >= numBinary {
		return fmt.Errorf("opencl: unknown binary operation %d", op)
	}
	name := "binary " + op.String()
	na, nbb := n, n
	switch bc {
	case SameShape:
	case ScalarA:
		na = 1
	case ScalarB:
		nbb = 1
	default:
		return fmt.Errorf("opencl: %s: unknown broadcast %d", name, bc)
	}
	if err := need(name, min(na, n), nb("a", a)); err != nil {
		return err
	}
	if err := need(name, min(nbb, n), nb("b", b)); err != nil {
		return err
	}
	if err := need(name, n, nb("y", y)); err != nil {
		return err
	}
	return l.elem("binary", n, a, b, y, n, int(op), int(bc))
}

// Axpy enqueues y[i] += alpha·x[i] for i < n (accumulating a gradient:
// alpha = 1).
func (l *Lib) Axpy(alpha float32, x, y *Buffer, n int) error {
	if err := need("axpy", n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("axpy", n, x, y, n, alpha)
}

// Scale enqueues y[i] = alpha·x[i] for i < n (y may be x).
func (l *Lib) Scale(alpha float32, x, y *Buffer, n int) error {
	if err := need("scale", n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return l.elem("scale", n, x, y, n, alpha)
}

// NonFinite enqueues a check of x[0:n]: flag (an int32 buffer) is set to 1
// if some value is NaN or ±Inf and left as it was otherwise, so one flag,
// zeroed first (Context.Fill with 0), gathers several buffers and a step
// downloads one number (ReadInt32).
func (l *Lib) NonFinite(x *Buffer, n int, flag *Buffer) error {
	if err := need("nonfinite", n, nb("x", x)); err != nil {
		return err
	}
	if err := need("nonfinite", 1, nb("flag", flag)); err != nil {
		return err
	}
	return l.elem("nonfinite", n, x, n, flag)
}
