package quiz

import (
	"cmp"
	"math/big"
	"slices"
)

// Group is the answer a given one counts as in a class's tally: the
// question's own answer when Check accepts it (so 3/4, 75% and 0.75 are
// one bar), the one number a typed answer gives, written plainly ("about
// 96 requests" is 96), or else its words in lower case. Two answers that
// Check would treat alike fall in one group.
func (it Item) Group(given string) string {
	if it.Check(given) {
		return it.Answer
	}
	if !it.Typed() {
		return given
	}
	if _, ok := exactNumber(it.Answer); ok {
		if n, ok := numberIn(given); ok {
			return plain(n)
		}
	}
	return words(given)
}

// plain writes r as a whole number, a decimal when it has an exact one of
// at most six places, or else a fraction.
func plain(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	for places := 1; places <= 6; places++ {
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(places)), nil)))
		if scaled.IsInt() {
			return r.FloatString(places)
		}
	}
	return r.RatString()
}

// Bar is one group of a tally: an answer, how many gave it, and whether
// it is right.
type Bar struct {
	Answer string
	Count  int
	Right  bool
}

// Tally groups answers (one a student) into bars, the most given first,
// ties in the order the answers first came.
func (it Item) Tally(answers []string) []Bar {
	var bars []Bar
	for _, a := range answers {
		g := it.Group(a)
		if i := slices.IndexFunc(bars, func(b Bar) bool { return b.Answer == g }); i >= 0 {
			bars[i].Count++
			continue
		}
		bars = append(bars, Bar{Answer: g, Count: 1, Right: it.Check(a)})
	}
	slices.SortStableFunc(bars, func(a, b Bar) int { return cmp.Compare(b.Count, a.Count) })
	return bars
}

// MaxAnswer is how long a typed answer may be, in characters: room for
// "about 96 requests, I think", never a page.
const MaxAnswer = 80
