package quiz

import (
	"strings"

	"windowlab/human"
)

// Matches reports whether a typed answer is the expected one. Numbers
// are compared exactly, whatever their spelling: " 200 " is 200, "3/4" is
// 0.75, "10 billion" and "10,000,000,000" are the same. Anything else is
// compared as words, ignoring case, spacing and a final full stop.
func Matches(want, got string) bool {
	if strings.TrimSpace(got) == "" {
		return false
	}
	if w, ok := human.ParseNumber(want); ok {
		g, ok := human.ParseNumber(got)
		return ok && w.Cmp(g) == 0
	}
	return words(want) == words(got)
}

// words is s in lower case with single spaces and no final full stop.
func words(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".")
}
