package render

import (
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
func BlockRows(text string, sx, sy int) []string {
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

// presenterMin is the fewest lines the presenter's body keeps from the
// timeline: the block verdict and the focused lane's essentials.
const PresenterMin = 14

// presenterFits reports whether the screen is big enough for the
// presenter's layout; smaller ones get the ordinary lanes, bolder.
func PresenterFits(c Common) bool { return c.Width >= 100 && c.Height >= 30 }

// presenterBody is the body of a presenter's screen in h lines: the key
// figure and verdict of lane k in block letters, that lane in full, the
// others one line each. Nothing before any request.
func (lanes Lanes) PresenterBody(k, h int) []string {
	st, s, c := lanes.C.Styles, lanes.Snap, lanes.C
	lanes.stacked = true
	ls := lanes.List()
	if k >= len(ls) {
		return lanes.render(h)
	}
	var compact []string
	for i, l := range ls {
		if i == k {
			continue
		}
		line := st.kind(int(l.kind)).Render(l.title)
		if s.HasLast {
			d := s.Last.Decisions[i]
			line += "  " + mark(st, d.Allowed) + " " + Explain(d)
		}
		compact = append(compact, c.Cells.Truncate(line, c.Width, "…"))
	}
	var big []string
	if s.HasLast {
		d := s.Last.Decisions[k]
		verdict := "DENY"
		style := st.Denied
		if d.Allowed {
			verdict, style = "ALLOW", st.Allowed
		}
		text := keyFigure(d) + " → " + verdict
		// As big as the width and the spare lines allow.
		focused := len(lanes.renderFocused(ls[k], h))
		spare := h - focused - len(compact) - 2
		sx := max(1, min(3, c.Width/max(blockWidth(text, 1), 1)))
		sy := max(1, min(sx, spare/5))
		if spare < 5 {
			sy, sx = 0, 0
		}
		if sy > 0 {
			for _, r := range BlockRows(text, sx, sy) {
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
func (p Lanes) renderFocused(l Lane, h int) []string {
	p.stacked = true
	return fitUnits([][]Unit{p.renderLane(l, p.C.Width)}, max(h, 1), 0)[0]
}
