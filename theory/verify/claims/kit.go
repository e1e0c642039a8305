package claims

import (
	"math"
	"math/rand"

	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

// Most claims are one checker run twice: on the implementation under test
// and, for the negative control, on a deliberately wrong one. A checker
// takes the run's configuration, the name of its random stream and the
// implementation; tested binds such a checker into a claim, so that the
// claims of a file are a table (register) of what differs between them: the
// label, kind, section, statement, floors, stream name and the two
// implementations.

// checker is a property of the paper run against the implementation F.
type checker[F any] func(cfg verify.Config, name string, impl F) verify.Outcome

// tested returns c with Check running check on ref and Negative on wrong,
// both on the random stream name.
func tested[F any](c verify.Claim, check checker[F], name string, ref, wrong F) verify.Claim {
	c.Check = func(cfg verify.Config) verify.Outcome { return check(cfg, name, ref) }
	c.Negative = func(cfg verify.Config) verify.Outcome { return check(cfg, name, wrong) }
	return c
}

// lossChecker is a checker for the proper loss l.
type lossChecker[F any] func(cfg verify.Config, name string, l theory.ProperLoss, impl F) verify.Outcome

// logAndSquare returns c with Check merging check for the log loss (stream
// name+"/log", implementation logRef) and the square loss (name+"/square",
// sqRef), and Negative running the log part on wrong.
func logAndSquare[F any](c verify.Claim, check lossChecker[F], name string, logRef, sqRef, wrong F) verify.Claim {
	c.Check = func(cfg verify.Config) verify.Outcome {
		return verify.Merge(verify.Bound, check(cfg, name+"/log", theory.LogLoss, logRef), check(cfg, name+"/square", theory.SquareLoss, sqRef))
	}
	c.Negative = func(cfg verify.Config) verify.Outcome { return check(cfg, name+"/log", theory.LogLoss, wrong) }
	return c
}

// also returns c with the further parts merged (verify.Bound) into its
// Check: a claim whose proof has steps checked apart from its statement.
func also(c verify.Claim, parts ...func(verify.Config) verify.Outcome) verify.Claim {
	check := c.Check
	c.Check = func(cfg verify.Config) verify.Outcome {
		out := []verify.Outcome{check(cfg)}
		for _, p := range parts {
			out = append(out, p(cfg))
		}
		return verify.Merge(verify.Bound, out...)
	}
	return c
}

// must returns v, panicking on err: for calls whose inputs are valid by
// construction.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// relEq reports |a − b| ≤ tol·(1 + |a| + |b|).
func relEq(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*(1+math.Abs(a)+math.Abs(b))
}

// unif draws uniformly from [lo, hi].
func unif(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// logUnif draws log-uniformly from [lo, hi].
func logUnif(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(unif(r, math.Log(lo), math.Log(hi)))
}

// normalize scales p to sum 1 in place and returns it (it also renormalizes
// a probability vector computed in floating point, so that it passes the
// simplex check).
func normalize(p []float64) []float64 {
	s := sum(p)
	for i := range p {
		p[i] /= s
	}
	return p
}

// sum returns Σ_i p_i.
func sum(p []float64) float64 {
	s := 0.0
	for _, v := range p {
		s += v
	}
	return s
}

// register adds the claims to the registry.
func register(cs ...verify.Claim) {
	for _, c := range cs {
		verify.Register(c)
	}
}
