package scenarios

import (
	"fmt"
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
// carries a claim (shows) that checks it.
var quantityWords = regexp.MustCompile(`(?i)\b(nothing|none|all|every|twice|double|half|zero|empty)\b`)

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
	if w := quantityWords.FindString(strings.ReplaceAll(text, "at all", "")); w != "" && len(c.Shows) == 0 {
		d.at(at, join(path, "text"), "says %q with no claim to check it; add shows: with the figures that make it true", w)
	}
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
