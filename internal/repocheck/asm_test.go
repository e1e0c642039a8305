package repocheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vectorReg matches an XMM, YMM or ZMM register as Go's assembler names them
// (X0…X31, Y0…, Z0…); the general-purpose registers are AX…R15.
var vectorReg = regexp.MustCompile(`\b[XYZ][0-9]{1,2}\b`)

// legacySSE returns whether an assembly line is an instruction with a
// vector register operand that is not VEX- or EVEX-encoded (its mnemonic
// does not start with V): a legacy-SSE instruction. Run after VEX code has
// left the upper halves of the YMM registers dirty, one costs an Intel core
// an SSE/AVX transition (hundreds of cycles on the Xeons measured: a
// constant loaded with MOVQ AX, X15 made F(4×4, 3×3)'s input-gradient
// transform 7× slower, bench/NOTES.md, "Lever 17"); VMOVQ and the like
// load the same bits without it.
//
// A macro's body is checked where it is defined (its lines, continued by
// backslashes, with instructions separated by semicolons); a macro's use,
// NAME(args), is not an instruction.
func legacySSE(line string) bool {
	code, _, _ := strings.Cut(line, "//")
	code = strings.TrimSuffix(strings.TrimSpace(code), "\\")
	for _, ins := range strings.Split(code, ";") {
		ins = strings.TrimSpace(ins)
		if ins == "" || strings.HasSuffix(ins, ":") || strings.HasPrefix(ins, "#") ||
			strings.HasPrefix(ins, "TEXT") || strings.HasPrefix(ins, "DATA") || strings.HasPrefix(ins, "GLOBL") {
			continue
		}
		mnemonic, operands, _ := strings.Cut(ins, " ")
		if strings.Contains(mnemonic, "(") {
			continue // a macro's use
		}
		if !strings.HasPrefix(mnemonic, "V") && vectorReg.MatchString(operands) {
			return true
		}
	}
	return false
}

// The checker flags what it should: legacy-SSE loads, moves and
// arithmetic on vector registers, and not their VEX forms, general-purpose
// instructions, labels, comments or directives.
func TestLegacySSEChecker(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"\tMOVQ AX, X13", true},
		{"\tMOVSS (SI), X0", true},
		{"\tADDPS X1, X2", true},
		{"\tPXOR X0, X0", true},
		{"\tCVTSS2SD X3, X4", true},
		{"\tVMOVQ AX, X13", false},
		{"\tVPBROADCASTD X13, Y13", false},
		{"\tVFMADD231PS Z1, Z2, Z3", false},
		{"\tMOVQ x+0(FP), SI", false},
		{"\tADDQ $32, R8", false},
		{"\tVZEROUPPER", false},
		{"loop:", false},
		{"// MOVQ AX, X13 in a comment", false},
		{"\tMOVQ AX, DX // into X13 later", false},
		{"TEXT ·f(SB), NOSPLIT, $0-8", false},
		{"\tADDROW(Y4, Y5)", false},
		{"\tVADDPS (DI), a, a; MOVUPS X1, (DI); \\", true},
		{"\tVADDPS (DI), a, a; VMOVUPS a, (DI); \\", false},
		{"#define ADDROW(a, b) \\", false},
	} {
		assert.Equal(t, tc.want, legacySSE(tc.line), "%q", tc.line)
	}
}

// No tracked amd64 assembly file has a legacy-SSE instruction: every
// routine that touches a vector register uses the VEX or EVEX forms, so none
// can pay an SSE/AVX transition whatever ran before it.
func TestAssemblyIsVEXOnly(t *testing.T) {
	n := 0
	for _, f := range trackedFiles(t) {
		if !strings.HasSuffix(f, "_amd64.s") {
			continue
		}
		n++
		b, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		for i, line := range strings.Split(string(b), "\n") {
			if legacySSE(line) {
				t.Errorf("%s:%d: legacy-SSE instruction %q: use its VEX form (V…)", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	require.Positive(t, n, "no amd64 assembly file found")
}
