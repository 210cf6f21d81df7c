package human

import (
	"math/big"
	"strings"
)

// scales are the number words a count may end in.
var scales = map[string]int64{
	"thousand": 1_000,
	"million":  1_000_000,
	"billion":  1_000_000_000,
	"trillion": 1_000_000_000_000,
}

// ParseNumber reads a number as a person writes it, exactly: 200, 0.75,
// 3/4, 93.0, 1,000, 10 billion. An exponent (1e3) is not a count a student
// writes, and is refused.
func ParseNumber(s string) (*big.Rat, bool) {
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
