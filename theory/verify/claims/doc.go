// Package claims registers, in its init functions, one verify.Claim per
// numbered result of the paper. Import it for its side effect:
//
//	import _ "github.com/llpfc/llpfc/theory/verify/claims"
package claims
