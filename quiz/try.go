package quiz

import (
	"fmt"
	"regexp"
	"strings"
)

// Tries is how many answers a question takes: a second one after a wrong
// first, with a hint (FirstStep). A choice of two takes one, since its
// second try would leave a single choice: the answer, given away. A
// longer choice takes two, the wrong choice set aside for the second.
func (it Item) Tries() int {
	if len(it.Choices) == 2 {
		return 1
	}
	return 2
}

// FirstStep is the hint shown after a wrong first answer: the first step
// towards the answer, never the answer itself. It is the question's own
// hint (a scenario's hint:, or for a generated question its formula with
// its numbers); else the first clause of its explanation, when that does
// not give the answer away; else where in the replay to look. It is empty
// only for a question with none of these.
func (it Item) FirstStep() string {
	if it.Hint != "" {
		return it.Hint
	}
	if c := firstClause(it.Explain); c != "" && !it.givesAway(c) {
		return c + "."
	}
	switch {
	case it.HasAt && it.HasAlgorithm:
		return fmt.Sprintf("Think of what the %s has counted by %s.", lowerFirst(it.Algorithm.Title()), it.At.Short())
	case it.HasAlgorithm:
		return fmt.Sprintf("Think of how the %s counts, over the whole replay.", lowerFirst(it.Algorithm.Title()))
	case it.HasAt:
		return fmt.Sprintf("Think of what each limiter has counted by %s.", it.At.Short())
	}
	return ""
}

// firstClause is s up to its first full stop, semicolon, colon or comma
// followed by a space (so 10,000 and 1.5 stay whole), without the mark.
func firstClause(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	end := len(s)
	for _, mark := range []string{". ", "; ", ": ", ", "} {
		if i := strings.Index(s, mark); i >= 0 && i < end {
			end = i
		}
	}
	return strings.TrimSuffix(strings.TrimSpace(s[:end]), ".")
}

// givesAway reports whether a hint would tell the answer: it holds the
// answer's words, or for a number, the number however it is written, when
// the question does not already say it (a limit the answer equals is no
// secret). The numbers of clock times (the 56 of 10:25:56) are no answer.
func (it Item) givesAway(hint string) bool {
	want, ok := exactNumber(it.Answer)
	if !ok {
		return strings.Contains(words(hint), words(it.Answer))
	}
	holds := func(text string) bool {
		for _, n := range read(clockTimes.ReplaceAllString(text, " ")).numbers {
			if n.Cmp(want) == 0 {
				return true
			}
		}
		return false
	}
	return holds(hint) && !holds(it.Ask)
}

// clockTimes are the times of day a question or hint may name.
var clockTimes = regexp.MustCompile(`\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?`)
