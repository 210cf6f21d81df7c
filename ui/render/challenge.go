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
	for _, l := range strings.Split(c.Wrap(text, max(w, 10)), "\n") {
		out = append(out, ink.Render(l))
	}
	return out
}

// section is a paragraph of the panel, and how soon it gives way when
// the panel has too few lines: the highest first, the last of equals first.
type section struct {
	lines []string
	drop  int
}

// Render draws the panel in at most h lines. The title and where the
// student stands are always there; then the proof's last line (what it
// teaches), the hint, the statement, the proof's moments, in that order,
// give way from the last.
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
	secs := []section{{[]string{c.Spread(title, state, w, true)}, 0}}
	switch {
	case p.Problem != "":
		secs = append(secs, section{c.wrap(st.Warn, "✗ "+p.Problem, w), 1})
	case p.Reached && len(p.Proof) > 0:
		// The proof's first line says what was reached; the moments follow,
		// and its last line what it teaches.
		secs = append(secs, section{c.wrap(st.Allowed, "✓ "+p.Proof[0], w), 1})
		for i, l := range p.Proof[1:] {
			switch {
			case i == len(p.Proof)-2:
				secs = append(secs, section{c.wrap(st.Caption, l, w), 2})
			case strings.HasPrefix(l, "  "):
				secs = append(secs, section{c.wrap(st.Value, l, w), 4})
			default:
				secs = append(secs, section{c.wrap(st.Value, l, w), 5})
			}
		}
	default:
		secs = append(secs, section{c.wrap(st.Value, p.Progress, w), 1}, section{c.wrap(st.Caption, p.Statement, w), 3})
		if p.Hint != "" {
			secs = append(secs, section{c.wrap(st.Warn, "hint: "+p.Hint, w), 2})
		}
	}
	return fitSections(c, secs, h)
}

// fitSections drops sections, the most droppable first, until they fit
// in h lines, then cuts the last line that fits with an ellipsis.
func fitSections(c Common, secs []section, h int) []string {
	count := func() (n int) {
		for _, s := range secs {
			n += len(s.lines)
		}
		return n
	}
	for count() > h {
		worst := -1
		for i, s := range secs {
			if s.drop > 1 && (worst < 0 || s.drop >= secs[worst].drop) {
				worst = i
			}
		}
		if worst < 0 {
			break
		}
		secs = append(secs[:worst:worst], secs[worst+1:]...)
	}
	var out []string
	for _, s := range secs {
		out = append(out, s.lines...)
	}
	if len(out) > h {
		out = out[:h]
		out[h-1] = c.Cells.Truncate(out[h-1], max(c.Width-1, 1), "") + "…"
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
