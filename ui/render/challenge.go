package render

import (
	"fmt"
	"strings"
)

// ChallengePanel is the challenge a student is trying, drawn above the
// lanes: its statement, where the student stands, and the proof once it
// is reached or the hint once it is due. Every text is the challenge
// package's, checked over the records up to the clock; the panel only
// lays them out.
type ChallengePanel struct {
	C         Common
	Number    int
	Title     string
	Statement string
	Progress  string // where the student stands, until Reached
	Reached   bool
	Proof     []string // shown when Reached, its first line in Progress's place
	Hint      string   // "" until it is due
	Problem   string   // the scenario cannot check it: why (no progress then)
}

// wrap cuts text into lines of width w, each drawn with ink.
func (c Common) wrap(ink Ink, text string, w int) []string {
	var out []string
	for _, l := range strings.Split(c.Cells.Wrap(text, max(w, 10), " "), "\n") {
		out = append(out, ink.Render(l))
	}
	return out
}

// Render draws the panel in at most h lines; the proof and the hint give
// way to the title, the progress and the statement, in that order.
func (p ChallengePanel) Render(h int) []string {
	c, st := p.C, p.C.Styles
	w := c.Width
	if h <= 0 {
		return nil
	}
	state := st.Faint.Render("not yet")
	if p.Reached {
		state = st.Allowed.Render("✓ reached")
	}
	if p.Problem != "" {
		state = st.Warn.Render("cannot be checked here")
	}
	title := st.Title.Render(fmt.Sprintf("challenge %d", p.Number)) + st.Faint.Render(" · ") + st.Label.Render(p.Title)
	out := []string{c.Spread(title, state, w, true)}
	var progress, more []string
	switch {
	case p.Problem != "":
		progress = c.wrap(st.Warn, "✗ "+p.Problem, w)
	case p.Reached && len(p.Proof) > 0:
		// The proof's first line says what was reached; the rest, how.
		progress = c.wrap(st.Allowed, "✓ "+p.Proof[0], w)
		for i, l := range p.Proof[1:] {
			ink := st.Value
			if i == len(p.Proof)-2 {
				ink = st.Caption
			}
			more = append(more, c.wrap(ink, l, w)...)
		}
	default:
		progress = c.wrap(st.Value, p.Progress, w)
		if p.Hint != "" {
			more = c.wrap(st.Warn, "hint: "+p.Hint, w)
		}
	}
	statement := c.wrap(st.Caption, p.Statement, w)
	if p.Reached {
		statement = nil // the proof says it better
	}
	for _, part := range [][]string{progress, statement, more} {
		room := h - len(out)
		if room <= 0 {
			break
		}
		if len(part) > room {
			part = append(part[:room-1:room-1], c.Cells.Truncate(part[room-1], max(w-1, 1), "")+"…")
		}
		out = append(out, part...)
	}
	return out
}

// ChallengeItem is one row of the list of challenges.
type ChallengeItem struct {
	Number    int
	Title     string
	Statement string
	Trying    bool // the one the panel shows now
}

// ChallengeList is the list the challenge key opens: a row each, the one
// under the cursor with its statement below the list.
type ChallengeList struct {
	C      Common
	Items  []ChallengeItem
	Cursor int
	Note   string // under the list: how to leave the panel, or why a choice failed
}

// Render draws the list in h lines.
func (l ChallengeList) Render(h int) []string {
	c, st := l.C, l.C.Styles
	out := []string{st.Title.Render("Challenges") + st.Faint.Render(" · reach each by making traffic; the engine checks it"), ""}
	for i, it := range l.Items {
		mark, ink := "  ", st.Label
		if i == l.Cursor {
			mark, ink = "▸ ", st.Selected
		}
		row := mark + ink.Render(fmt.Sprintf("%d  %s", it.Number, it.Title))
		if it.Trying {
			row += st.Faint.Render("  (trying)")
		}
		out = append(out, c.Cells.Truncate(row, c.Width, "…"))
	}
	if l.Cursor >= 0 && l.Cursor < len(l.Items) {
		out = append(out, "")
		out = append(out, c.wrap(st.Caption, l.Items[l.Cursor].Statement, c.Width-2)...)
	}
	if l.Note != "" {
		out = append(out, "")
		out = append(out, c.wrap(st.Faint, l.Note, c.Width-2)...)
	}
	if len(out) > h {
		out = out[:max(h, 0)]
	}
	return out
}
