package claims

import "github.com/llpfc/llpfc/theory/verify"

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

// register adds the claims to the registry.
func register(cs ...verify.Claim) {
	for _, c := range cs {
		verify.Register(c)
	}
}
