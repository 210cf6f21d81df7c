package scenarios

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Scenario files are YAML 1.2, whose core schema writes numbers one way:
// integers in decimal (leading zeros allowed: 0100 is one hundred, not the
// octal 64 of YAML 1.1), 0o17 in octal, 0x1F in hexadecimal; floats with a
// point and an optional exponent (1.5, .5, 1e3). The YAML library reads
// 1.1's forms (0100 as octal, 1_000, 0b101) and leaves 1e3 a string, so
// every number is read here from the text as written, the same in every
// field.
var (
	yamlDecimal = regexp.MustCompile(`^[-+]?[0-9]+$`)
	yamlOctal   = regexp.MustCompile(`^0o[0-7]+$`)
	yamlHex     = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	yamlFloat   = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
)

// yamlNumber reads a scalar as YAML 1.2 reads it: the exact value of an
// integer or a float written plainly (not in quotes), and whether it is an
// integer. ok is false for anything else, 1.1-only spellings included.
func yamlNumber(n ast.Node) (v *big.Rat, isInt, ok bool) {
	var text string
	switch x := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		text = x.GetToken().Value
	case *ast.StringNode:
		if x.GetToken().Type != token.StringType { // quoted: text, not a number
			return nil, false, false
		}
		text = x.Value
	default:
		return nil, false, false
	}
	if i, ok := yamlInt(text); ok {
		return new(big.Rat).SetInt(i), true, true
	}
	if yamlFloat.MatchString(text) {
		r, ok := new(big.Rat).SetString(text)
		return r, false, ok
	}
	return nil, false, false
}

// yamlInt reads a YAML 1.2 integer.
func yamlInt(text string) (*big.Int, bool) {
	switch {
	case yamlDecimal.MatchString(text):
		return new(big.Int).SetString(strings.TrimPrefix(text, "+"), 10)
	case yamlOctal.MatchString(text):
		return new(big.Int).SetString(text[2:], 8)
	case yamlHex.MatchString(text):
		return new(big.Int).SetString(text[2:], 16)
	}
	return nil, false
}

// looksNumeric reports whether the YAML library took a scalar for a number
// (in YAML 1.1's forms, say 1_000 or 0b101) that YAML 1.2 does not read as
// one: the error should say how to write it, not call it text.
func looksNumeric(n ast.Node) bool {
	switch n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return true
	}
	return false
}

// notYAML12 is the message for such a scalar: what 1.1 meant, as 1.2 writes
// it ("1_000 ... write 1000").
func notYAML12(n ast.Node) string {
	meant := ""
	switch x := n.(type) {
	case *ast.IntegerNode:
		meant = fmt.Sprint(x.Value)
	case *ast.FloatNode:
		meant = strconv.FormatFloat(x.Value, 'f', -1, 64)
	}
	return fmt.Sprintf("%s is not a number in YAML 1.2, which scenario files are written in; write %s", n.GetToken().Value, meant)
}
