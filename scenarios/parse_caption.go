package scenarios

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// captionText reads a caption's text and the references in it.
func (d *decoder) captionText(path string, o *object, s *Scenario, c *Caption) {
	c.Text, _ = d.text(o, "text")
	c.Source = c.Text
	_, at := o.value("text")
	c.TextLine, c.TextColumn = nodePos(at)
	refs, msg := parseRefs(c.Text, s.Algorithms)
	if msg != "" {
		d.at(at, join(path, "text"), "%s", msg)
	}
	c.Refs = refs
}

// quantityWords state a quantity without a digit; a caption that says one
// carries a claim (shows) that checks it. "all" and "every" are mostly the
// language's ("all three", "every request"): any claim will do for them.
var quantityWords = regexp.MustCompile(`(?i)\b(nothing|none|all|every|twice|double|half|zero|empty)\b`)

// zeroWords state that a figure is 0: their claim must check a 0.
var zeroWords = regexp.MustCompile(`(?i)\b(nothing|none|zero|empty)\b`)

// numberWords are figures written as words ("three clients", "400
// million"): like a digit, each is a reference's or listed under given:
// ("one" is left to the language: "one window", "one client").
var numberWords = regexp.MustCompile(`(?i)\b(two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion)\b`)

// unreferenced finds a figure written out in a caption: a run of digits
// (with its commas and point) outside every reference.
var unreferenced = regexp.MustCompile(`[0-9][0-9,.:]*[0-9]|[0-9]`)

// captionFigures holds a caption's text to its figures: every digit it
// states is a reference resolved from the engine, or a figure from outside
// the replay that its given: lists (a measurement quoted, a scale
// imagined), and a quantity it states in words comes with a claim.
func (d *decoder) captionFigures(path string, o *object, c *Caption) {
	var given []string
	if items, ok := d.list(o, "given"); ok {
		for i, item := range items {
			field := fmt.Sprintf("%s.given[%d]", path, i)
			v, ok := item.(*ast.StringNode)
			if !ok {
				d.at(item, field, "expected the figure as the text writes it, in quotes, such as \"0.003%%\"; got %s", describe(item))
				continue
			}
			if !strings.Contains(c.Source, v.Value) || v.Value == "" {
				d.at(item, field, "%q is not in the caption's text; given lists figures the text states from outside the replay", truncate(v.Value))
				continue
			}
			given = append(given, v.Value)
		}
	}
	_, at := o.value("text")
	text := stripRefs(c.Source)
	for _, g := range given {
		text = strings.ReplaceAll(text, g, " ")
	}
	if digits := unreferenced.FindString(text); digits != "" {
		d.at(at, join(path, "text"), "states %q outside a reference; write the engine's figure as a reference "+
			"such as {fixed-window.count}, {sliding-counter.estimate} or {limit}, so the caption prints what the lane shows, "+
			"or list a figure from outside the replay under given:", digits)
		return
	}
	for _, w := range numberWords.FindAllString(text, -1) {
		if n, ok := wordValues[strings.ToLower(w)]; ok && claims(c.Shows, func(v int64) bool { return v == n }) {
			continue // "three clients" beside a claim of 3
		}
		d.at(at, join(path, "text"), "states %q in words with no claim of it; add the shows: claim that makes it true, "+
			"or list the phrase under given: when the replay cannot tell it (a count of servers, a scale imagined)", w)
		return
	}
	text = strings.ReplaceAll(text, "at all", "")
	if w := quantityWords.FindString(text); w != "" && len(c.Shows) == 0 {
		d.at(at, join(path, "text"), "says %q with no claim to check it; add shows: with the figures that make it true", w)
		return
	}
	if w := zeroWords.FindString(text); w != "" && !claimsAZero(c.Shows) {
		d.at(at, join(path, "text"), "says %q but none of its shows: claims a 0; add the claim that makes it true, such as denied: 0", w)
	}
}

// wordValues are the number words a claim can check.
var wordValues = map[string]int64{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100}

// claims reports whether one of the claims checks a figure for which ok
// holds (a fraction's only when it is whole).
func claims(shows []Expectation, ok func(int64) bool) bool {
	is := func(n *int64) bool { return n != nil && ok(*n) }
	isRat := func(r *big.Rat) bool { return r != nil && r.IsInt() && r.Num().IsInt64() && ok(r.Num().Int64()) }
	for _, x := range shows {
		if is(x.Allowed) || is(x.Denied) || is(x.MaxInWindow) || is(x.PeakEntries) || is(x.LiveEntries) {
			return true
		}
		if l := x.Last; l != nil && (is(l.Count) || is(l.Previous) || is(l.Current) ||
			isRat(l.Weight) || isRat(l.Estimate) || isRat(l.Tokens)) {
			return true
		}
	}
	return false
}

// claimsAZero reports whether a claim checks a figure is 0.
func claimsAZero(shows []Expectation) bool {
	return claims(shows, func(v int64) bool { return v == 0 })
}

// stripRefs is text with each reference replaced by a space.
func stripRefs(text string) string {
	var b strings.Builder
	for {
		open := strings.IndexByte(text, '{')
		closing := strings.IndexByte(text, '}')
		if open < 0 || closing < open {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:open])
		b.WriteByte(' ')
		text = text[closing+1:]
	}
}
