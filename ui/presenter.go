package ui

import (
	"slices"
	"strings"

	"windowlab/algo"
	"windowlab/human"
)

// Presenter mode draws for the back of a room: the lane the moment is
// about, large, its key figure and verdict in block letters several rows
// tall ("93 → ALLOW"); the other lanes one line each.

// blockFont draws the glyphs the verdict needs, five rows tall.
var blockFont = map[rune][5]string{
	'0': {"####", "#  #", "#  #", "#  #", "####"},
	'1': {"  # ", " ## ", "  # ", "  # ", " ###"},
	'2': {"####", "   #", "####", "#   ", "####"},
	'3': {"####", "   #", " ###", "   #", "####"},
	'4': {"#  #", "#  #", "####", "   #", "   #"},
	'5': {"####", "#   ", "####", "   #", "####"},
	'6': {"####", "#   ", "####", "#  #", "####"},
	'7': {"####", "   #", "  # ", " #  ", " #  "},
	'8': {"####", "#  #", "####", "#  #", "####"},
	'9': {"####", "#  #", "####", "   #", "####"},
	'.': {" ", " ", " ", " ", "#"},
	',': {"  ", "  ", "  ", " #", "# "},
	'≈': {"    ", " # #", "# # ", " # #", "# # "},
	'→': {"   #  ", "    # ", "######", "    # ", "   #  "},
	' ': {"  ", "  ", "  ", "  ", "  "},
	'A': {" ## ", "#  #", "####", "#  #", "#  #"},
	'D': {"### ", "#  #", "#  #", "#  #", "### "},
	'E': {"####", "#   ", "### ", "#   ", "####"},
	'L': {"#   ", "#   ", "#   ", "#   ", "####"},
	'N': {"#  #", "## #", "# ##", "#  #", "#  #"},
	'O': {"####", "#  #", "#  #", "#  #", "####"},
	'W': {"#   #", "#   #", "# # #", "## ##", "#   #"},
	'Y': {"#  #", "#  #", " ## ", " #  ", " #  "},
}

// blockRows is text in block letters, each glyph scaled sx wide and sy
// tall; glyphs it has no shape for are left out.
func blockRows(text string, sx, sy int) []string {
	rows := make([]strings.Builder, 5)
	for _, r := range text {
		g, ok := blockFont[r]
		if !ok {
			continue
		}
		for i, line := range g {
			for _, c := range line + " " {
				cell := " "
				if c == '#' {
					cell = "█"
				}
				rows[i].WriteString(strings.Repeat(cell, sx))
			}
		}
	}
	var out []string
	for i := range rows {
		for range sy {
			out = append(out, strings.TrimRight(rows[i].String(), " "))
		}
	}
	return out
}

// blockWidth is how many cells blockRows(text, sx, 1) takes.
func blockWidth(text string, sx int) int {
	w := 0
	for _, r := range text {
		if g, ok := blockFont[r]; ok {
			w += (len([]rune(g[0])) + 1) * sx
		}
	}
	return w
}

// keyFigure is the number a decision turns on: a count for the fixed
// window and the log, the estimate for a counter, the level for a bucket.
func keyFigure(d algo.Decision) string {
	switch d.Kind {
	case algo.KindSlidingCounter:
		return human.Decimal(d.EstimateRat())
	case algo.KindTokenBucket:
		return human.Decimal(d.TokensRat())
	}
	return human.Int(d.Count)
}

// presenterLane is the lane a presenter's screen is about: the revealed
// question's, else the first the caption on screen makes a claim about,
// else the first.
func (m Model) presenterLane() int {
	if i, ok := m.quizLane(); ok {
		return i
	}
	if i := m.captionIndex(); i >= 0 {
		for _, x := range m.sc.Captions[i].Shows {
			if k := slices.Index(m.sc.Algorithms, x.Algorithm); k >= 0 && x.Last != nil {
				return k
			}
		}
	}
	return 0
}

// presenterMin is the fewest lines the presenter's body keeps from the
// timeline: the block verdict and the focused lane's essentials.
const presenterMin = 14

// presenterFits reports whether the screen is big enough for the
// presenter's layout; smaller ones get the ordinary lanes, bolder.
func (m Model) presenterFits() bool { return m.c.width >= 100 && m.c.height >= 30 }

// presenterBody is the body of a presenter's screen in h lines: the key
// figure and verdict of the focused lane in block letters, that lane in
// full, the others one line each. Nothing before any request.
func (m Model) presenterBody(h int) []string {
	st, s := m.c.styles, m.snap
	k := m.presenterLane()
	lanes := m.lanes()
	lanes.stacked = true
	ls := lanes.lanes()
	if k >= len(ls) {
		return lanes.render(h)
	}
	var compact []string
	for i, l := range ls {
		if i == k {
			continue
		}
		line := st.kind(int(l.kind)).Render(l.title)
		if s.hasLast {
			d := s.last.Decisions[i]
			line += "  " + mark(st, d.Allowed) + " " + explain(d)
		}
		compact = append(compact, m.c.cells.Truncate(line, m.c.width, "…"))
	}
	var big []string
	if s.hasLast {
		d := s.last.Decisions[k]
		verdict := "DENY"
		style := st.denied
		if d.Allowed {
			verdict, style = "ALLOW", st.allowed
		}
		text := keyFigure(d) + " → " + verdict
		// As big as the width and the spare lines allow.
		focused := len(lanes.renderFocused(ls[k], h))
		spare := h - focused - len(compact) - 2
		sx := max(1, min(3, m.c.width/max(blockWidth(text, 1), 1)))
		sy := max(1, min(sx, spare/5))
		if spare < 5 {
			sy, sx = 0, 0
		}
		if sy > 0 {
			for _, r := range blockRows(text, sx, sy) {
				big = append(big, style.Render(r))
			}
			big = append(big, "")
		}
	}
	focused := lanes.renderFocused(ls[k], h-len(big)-len(compact)-1)
	// What the room reads sits in the middle of the screen, not on top.
	spare := max(h-len(big)-len(focused)-len(compact)-1, 0)
	pad := func(n int) []string { return make([]string, n) }
	body := append(pad(spare/3), big...)
	body = append(body, pad(spare/3)...)
	body = append(body, focused...)
	body = append(body, "")
	return append(body, compact...)
}

// renderFocused draws one lane across the whole width in at most h lines.
func (p lanesPanel) renderFocused(l lane, h int) []string {
	p.stacked = true
	return fitUnits([][]unit{p.renderLane(l, p.c.width)}, max(h, 1), 0)[0]
}
