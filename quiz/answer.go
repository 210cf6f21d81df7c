package quiz

import (
	"math/big"
	"strings"
)

// Matches reports whether a typed answer is the expected one. Numbers
// are compared exactly, whatever their spelling: " 200 " is 200, "3/4" is
// 0.75, "10 billion" and "10,000,000,000" are the same. Anything else is
// compared as words, ignoring case, spacing and a final full stop.
func Matches(want, got string) bool {
	if strings.TrimSpace(got) == "" {
		return false
	}
	if w, ok := parseNumber(want); ok {
		g, ok := parseNumber(got)
		return ok && w.Cmp(g) == 0
	}
	return words(want) == words(got)
}

// words is s in lower case with single spaces and no final full stop.
func words(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}

// scales are the number words a count may end in.
var scales = map[string]int64{
	"thousand": 1_000,
	"million":  1_000_000,
	"billion":  1_000_000_000,
	"trillion": 1_000_000_000_000,
}

// parseNumber reads an exact number: 200, 0.75, 3/4, 93.0, 1,000, 10 billion.
func parseNumber(s string) (*big.Rat, bool) {
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) == 0 || len(fields) > 2 {
		return nil, false
	}
	scale := int64(1)
	if len(fields) == 2 {
		k, ok := scales[fields[1]]
		if !ok {
			return nil, false
		}
		scale = k
	}
	num := strings.ReplaceAll(strings.ReplaceAll(fields[0], ",", ""), "_", "")
	if num == "" || strings.ContainsAny(num, "eE") { // 1e3 is not how a student writes a count
		return nil, false
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, false
	}
	return r.Mul(r, new(big.Rat).SetInt64(scale)), true
}
