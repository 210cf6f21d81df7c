package quiz

import (
	"math/big"
	"slices"
	"strings"
	"unicode"
)

// Matches reports whether a typed answer is the expected one.
//
// When the expected answer is a number (200, 0.75, 3/4, 75%, 10 billion),
// the answer must hold exactly one number, compared exactly as a fraction,
// whatever its spelling: 25.8 is 25.80 and 129/5, 90% is 0.9, 1,000 is 1000
// and 10 billion is 10,000,000,000. Words around it are fine, a unit or an
// "about" (about 96, ~96, ≈96, 96 requests, 96 req), but not a second
// number (between 90 and 96) nor a word or sign that makes it another claim
// (not 96, under 96, 96 or more, 96+).
//
// Anything else is compared as words, ignoring case, spacing and a final
// full stop.
func Matches(want, got string) bool {
	if w, ok := exactNumber(want); ok {
		g, ok := numberIn(got)
		return ok && w.Cmp(g) == 0
	}
	if strings.TrimSpace(got) == "" {
		return false
	}
	return words(want) == words(got)
}

// words is s in lower case with single spaces and no final full stop.
func words(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}

// exactNumber reads s as a number and nothing else: "200", "3/4", "75%",
// "10 billion". An expected answer that is not one is compared as words.
func exactNumber(s string) (*big.Rat, bool) {
	r := read(s)
	if r.bad || len(r.numbers) != 1 || strings.TrimSuffix(strings.TrimSpace(r.rest), ".") != "" {
		return nil, false
	}
	return r.numbers[0], true
}

// numberIn is the one number a typed answer gives, with whatever words
// around it that leave it the same number.
func numberIn(s string) (*big.Rat, bool) {
	r := read(s)
	if r.bad || len(r.numbers) != 1 {
		return nil, false
	}
	for _, w := range strings.FieldsFunc(r.rest, func(c rune) bool { return !unicode.IsLetter(c) }) {
		if slices.Contains(qualifiers, w) {
			return nil, false
		}
	}
	return r.numbers[0], true
}

// qualifiers are the words that make "96" a claim other than 96.
var qualifiers = []string{
	"not", "no", "never", "except", "less", "fewer", "more", "under", "over", "below", "above",
	"beyond", "least", "most", "than", "between", "almost", "nearly", "minus", "plus",
}

// operators are the signs that do the same: 96+, < 96, ≥ 96, 96 ± 1.
const operators = "<>≤≥≠±+×*÷^"

// scales are the words a number may be multiplied by.
var scales = map[string]int64{
	"k":        1_000,
	"thousand": 1_000,
	"million":  1_000_000,
	"mn":       1_000_000,
	"billion":  1_000_000_000,
	"bn":       1_000_000_000,
	"trillion": 1_000_000_000_000,
}

// reading is an answer split into its numbers and the rest of its text.
type reading struct {
	numbers []*big.Rat
	rest    string // the text between the numbers, in lower case
	bad     bool   // a number that is no number (3/0), or an operator
}

func isDigit(c rune) bool { return '0' <= c && c <= '9' }

// read finds the numbers in s: decimals with an optional fraction
// (129/5), thousands grouped by commas in threes (1,000; "12,5" is two
// numbers, not 125), a sign, a per cent sign or word, a scale (10 billion,
// 96k). An exponent (1e3) is two numbers, and so not an answer.
func read(s string) reading {
	rs := []rune(strings.ToLower(s))
	var r reading
	var rest []rune
	for i := 0; i < len(rs); {
		startsNumber := isDigit(rs[i]) ||
			(rs[i] == '.' && i+1 < len(rs) && isDigit(rs[i+1]) && (i == 0 || !isDigit(rs[i-1])))
		if !startsNumber {
			rest = append(rest, rs[i])
			i++
			continue
		}
		v, end, ok := readNumber(rs, i)
		if !ok {
			r.bad = true
		}
		// A minus sign right before the number, at the start or after a
		// space, is its sign; "client-1" holds a 1, not a −1.
		if n := len(rest); n > 0 && (rest[n-1] == '-' || rest[n-1] == '−') && (n == 1 || unicode.IsSpace(rest[n-2])) {
			rest = rest[:n-1]
			if v != nil {
				v.Neg(v)
			}
		}
		if v != nil {
			r.numbers = append(r.numbers, v)
		}
		rest = append(rest, ' ')
		i = end
	}
	r.rest = string(rest)
	if strings.ContainsAny(r.rest, operators) {
		r.bad = true
	}
	return r
}

// readNumber reads the number starting at rs[i], with its fraction, per
// cent and scale, and returns where it ends. ok is false for a fraction
// over zero.
func readNumber(rs []rune, i int) (v *big.Rat, end int, ok bool) {
	digits := func(j int) int {
		for j < len(rs) && isDigit(rs[j]) {
			j++
		}
		return j
	}
	var text []rune
	j := digits(i)
	text = append(text, rs[i:j]...)
	// Thousands grouped in threes: 1,000 and 10,000,000, but not 12,5.
	if j-i <= 3 {
		for j+4 <= len(rs) && rs[j] == ',' && digits(j+1) == j+4 {
			text = append(text, rs[j+1:j+4]...)
			j += 4
		}
	}
	if j+1 < len(rs) && rs[j] == '.' && isDigit(rs[j+1]) {
		k := digits(j + 1)
		text = append(text, rs[j:k]...)
		j = k
	}
	if len(text) > 0 && text[0] == '.' {
		text = append([]rune{'0'}, text...)
	}
	v, _ = new(big.Rat).SetString(string(text))
	ok = true
	skip := func(j int) int {
		for j < len(rs) && unicode.IsSpace(rs[j]) {
			j++
		}
		return j
	}
	// A fraction: 3/4, 129 / 5.
	if k := skip(j); k < len(rs) && rs[k] == '/' {
		if d := skip(k + 1); d < len(rs) && isDigit(rs[d]) {
			e := digits(d)
			den, _ := new(big.Rat).SetString(string(rs[d:e]))
			if den.Sign() == 0 {
				v, ok = nil, false
			} else {
				v.Quo(v, den)
			}
			j = e
		}
	}
	// A word right after the number: per cent, or a scale.
	k := skip(j)
	if k < len(rs) && rs[k] == '%' {
		if v != nil {
			v.Quo(v, big.NewRat(100, 1))
		}
		return v, k + 1, ok
	}
	e := k
	for e < len(rs) && unicode.IsLetter(rs[e]) {
		e++
	}
	word := string(rs[k:e])
	if word == "per" { // per cent
		if c := skip(e); c+4 <= len(rs) && string(rs[c:c+4]) == "cent" && (c+4 == len(rs) || !unicode.IsLetter(rs[c+4])) {
			word, e = "percent", c+4
		}
	}
	switch scale, isScale := scales[word]; {
	case word == "percent" || word == "pct":
		if v != nil {
			v.Quo(v, big.NewRat(100, 1))
		}
		return v, e, ok
	case isScale:
		if v != nil {
			v.Mul(v, big.NewRat(scale, 1))
		}
		return v, e, ok
	}
	return v, j, ok
}
