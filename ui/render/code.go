package render

import (
	"strings"

	"windowlab/algo"
	"windowlab/human"
)

// Code is the panel of the code that decided: one lane's decision on the
// focused request written as its limiter's code, the values it held beside
// each variable and the line that decided marked (algo.Code, the same
// text windowlab run --trace --code prints).
type Code struct {
	C    Common
	Snap *Snapshot
	Lane int
}

// codeBesideMin is the narrowest the lanes stay beside the panel.
const codeBesideMin = 64

// listing is the lane's listing for the focused request; false before any.
func (p Code) listing() (algo.Listing, algo.Decision, bool) {
	s := p.Snap
	if !s.HasLast || p.Lane < 0 || p.Lane >= len(s.Last.Decisions) || p.Lane >= len(s.Algorithms) {
		return algo.Listing{}, algo.Decision{}, false
	}
	d := s.Last.Decisions[p.Lane]
	return algo.Code(s.Algorithms[p.Lane], d), d, true
}

// Beside is the panel's width beside the lanes, box included, and
// whether it goes there: on a wide terminal whose lanes keep
// codeBesideMin columns; otherwise it goes under them.
func (p Code) Beside() (int, bool) {
	if !p.C.wide() {
		return 0, false
	}
	w := min(p.Width(), p.C.Width-codeBesideMin)
	return w, w >= 40
}

// Width is the panel's natural width, box included: its widest line, at
// most the terminal's.
func (p Code) Width() int {
	l, _, ok := p.listing()
	w := 44 // the title's and the empty panel's
	if ok {
		for _, line := range l.Text() {
			w = max(w, p.C.Cells.StringWidth(line))
		}
	}
	return min(w+4, p.C.Width)
}

// Lines draws the panel at width w in at most h lines, in a box when
// boxed. Short of height it keeps its title and the lines around the one
// that decided.
func (p Code) Lines(w, h int, boxed bool) []string {
	inner := w
	if boxed {
		inner, h = w-4, h-2
	}
	if h <= 0 || inner <= 0 {
		return nil
	}
	body := p.body(inner)
	if len(body) > h {
		here := 0
		for i, line := range body {
			if strings.Contains(line, algo.HereMark) {
				here = i
			}
		}
		from := max(min(here-(h-2)+1, len(body)-(h-1)), 1) // the title stays, and a line after the mark when there is one
		body = append(body[:1:1], body[from:from+h-1]...)
	}
	if !boxed {
		return body
	}
	st := p.C.Styles
	out := []string{st.BoxLine.Render("╭" + strings.Repeat("─", w-2) + "╮")}
	for _, line := range body {
		out = append(out, st.BoxLine.Render("│")+" "+p.C.Fit(line, inner)+" "+st.BoxLine.Render("│"))
	}
	return append(out, st.BoxLine.Render("╰"+strings.Repeat("─", w-2)+"╯"))
}

// Height is the lines the whole panel takes, box included when boxed.
func (p Code) Height(w int, boxed bool) int {
	if boxed {
		return len(p.body(w-4)) + 2
	}
	return len(p.body(w))
}

// body is the title and the listing at width w, a comment too wide to
// stay beside its code moved under it.
func (p Code) body(w int) []string {
	st := p.C.Styles
	l, d, ok := p.listing()
	if !ok {
		return []string{st.Label.Render("the code that decided"), st.Faint.Render("no request yet: a decision shows here once one is made")}
	}
	r := p.Snap.Last
	title := st.kind(int(d.Kind)).Render("the code that decided · " + l.Title)
	who := st.Faint.Render(human.Glue("#"+human.Int(r.Index+1)+" "+r.Arrival.At.Short()+" "+human.Visible(r.Arrival.Client)) + " · d: next lane")
	out := []string{p.C.Spread(title, who, w, false)}
	width := l.CodeWidth()
	mark := st.Allowed
	if !d.Allowed {
		mark = st.Denied
	}
	for _, line := range l.Lines {
		code := line.Pad(width)
		comment := line.Comment()
		if comment == "" {
			out = append(out, strings.TrimRight(code, " "))
			continue
		}
		styled := comment
		if line.Here {
			values := strings.TrimSuffix(comment, algo.HereMark)
			styled = st.Value.Render(values) + mark.Render(algo.HereMark)
		} else {
			styled = st.Value.Render(comment)
		}
		if p.C.Cells.StringWidth(code+comment) > w {
			out = append(out, strings.TrimRight(code, " "))
			code = strings.Repeat(" ", 4*line.Indent+4)
		}
		out = append(out, p.C.Cells.Truncate(code+styled, w, "…"))
	}
	return out
}
