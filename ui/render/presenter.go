package render

import (
	"slices"
	"strings"
	"time"

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
	'B': {"### ", "#  #", "### ", "#  #", "### "},
	'C': {" ###", "#   ", "#   ", "#   ", " ###"},
	'D': {"### ", "#  #", "#  #", "#  #", "### "},
	'E': {"####", "#   ", "### ", "#   ", "####"},
	'F': {"####", "#   ", "### ", "#   ", "#   "},
	'G': {" ###", "#   ", "# ##", "#  #", " ###"},
	'H': {"#  #", "#  #", "####", "#  #", "#  #"},
	'I': {"###", " # ", " # ", " # ", "###"},
	'J': {"   #", "   #", "   #", "#  #", " ## "},
	'K': {"#  #", "# # ", "##  ", "# # ", "#  #"},
	'L': {"#   ", "#   ", "#   ", "#   ", "####"},
	'M': {"#   #", "## ##", "# # #", "#   #", "#   #"},
	'N': {"#  #", "## #", "# ##", "#  #", "#  #"},
	'O': {"####", "#  #", "#  #", "#  #", "####"},
	'P': {"### ", "#  #", "### ", "#   ", "#   "},
	'Q': {" ## ", "#  #", "#  #", "# ##", " ###"},
	'R': {"### ", "#  #", "### ", "# # ", "#  #"},
	'S': {" ###", "#   ", " ## ", "   #", "### "},
	'T': {"#####", "  #  ", "  #  ", "  #  ", "  #  "},
	'U': {"#  #", "#  #", "#  #", "#  #", " ## "},
	'V': {"#   #", "#   #", "#   #", " # # ", "  #  "},
	'W': {"#   #", "#   #", "# # #", "## ##", "#   #"},
	'X': {"#   #", " # # ", "  #  ", " # # ", "#   #"},
	'Y': {"#  #", "#  #", " ## ", " #  ", " #  "},
	'Z': {"####", "   #", "  # ", " #  ", "####"},
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

// Subject is what a presenter's screen is about: the lane the caption (or a
// revealed question) speaks of, and which of its figures stand in block
// letters: its key figure and verdict, what it holds in memory, or both.
type Subject struct {
	Lane    int
	Verdict bool
	Memory  bool
}

// bigText is what the focus puts in block letters, the figure the moment
// is about first: "93 → ALLOW", "40,000 TIMESTAMPS".
func (lanes Lanes) bigText(f Subject) []blockText {
	st, s := lanes.C.Styles, lanes.Snap
	var out []blockText
	if f.Memory && f.Lane < len(s.Stats) {
		stat := s.Stats[f.Lane]
		out = append(out, blockText{strings.ToUpper(stat.Kind.Unit().Of(stat.Memory.Entries)), st.Value})
	}
	if (f.Verdict || !f.Memory) && s.HasLast {
		d := s.Last.Decisions[f.Lane]
		verdict, style := "DENY", st.Denied
		if d.Allowed {
			verdict, style = "ALLOW", st.Allowed
		}
		out = append(out, blockText{keyFigure(d) + " → " + verdict, style})
	}
	if len(out) == 0 && f.Lane < len(s.Stats) {
		out = append(out, blockText{limitWords(s.Config), st.Value}) // before any request: the rule
	}
	// Text wider than the screen would be cut mid-letter: leave it out.
	return slices.DeleteFunc(out, func(t blockText) bool { return blockWidth(t.text, 1) > lanes.C.Width })
}

// limitWords is a limit in words for block letters: "100 PER MIN".
func limitWords(c algo.Config) string {
	per := map[time.Duration]string{time.Second: "SEC", time.Minute: "MIN", time.Hour: "HOUR", 24 * time.Hour: "DAY"}[c.Window]
	if per == "" {
		per = strings.ToUpper(human.Duration(c.Window))
	}
	return human.Int(c.Limit) + " PER " + per
}

// blockText is one line of block letters and its ink.
type blockText struct {
	text string
	ink  Ink
}

// presenterBody is the body of a presenter's screen in h lines: the focused
// lane's figure in block letters, that lane in full, the others in full
// when they fit, else one line each. The spare lines go to the letters'
// height, then a few blank lines between the parts, so that no band of the
// screen stands empty.
func (lanes Lanes) PresenterBody(f Subject, h int) []string {
	return lanes.PresenterBodyWith(f, h, nil)
}

// PresenterBodyWith is PresenterBody with panel (the code that decided)
// in the block letters' place: the line it marks is the verdict.
func (lanes Lanes) PresenterBodyWith(f Subject, h int, panel []string) []string {
	lanes.stacked = true
	ls := lanes.List()
	if f.Lane >= len(ls) || f.Lane < 0 {
		return lanes.render(h)
	}
	texts := lanes.bigText(f)
	if panel != nil {
		texts = nil
	}
	others := lanes.otherLanes(ls, f.Lane, false)
	focused := lanes.renderFocused(ls[f.Lane], h)
	if full := lanes.otherLanes(ls, f.Lane, true); len(focused)+len(full)+1+blockLines(texts, 1)+len(panel) <= h {
		others = full
	}
	focused = lanes.renderFocused(ls[f.Lane], h-len(others)-1-len(panel))
	spare := h - len(focused) - len(others) - 1
	// The block letters, as wide as the width allows and as tall as the
	// spare lines do, the most important first when not all fit.
	for len(texts) > 0 && blockLines(texts, 1) > spare {
		texts = texts[:len(texts)-1]
	}
	big := panel
	sx, sy := 1, 1
	if len(texts) > 0 {
		w := 0
		for _, t := range texts {
			w = max(w, blockWidth(t.text, 1))
		}
		sx = max(1, min(3, lanes.C.Width/max(w, 1)))
		for sy < 2*sx && blockLines(texts, sy+1)+6 <= spare {
			sy++
		}
		big = lanes.blocks(texts, sx, sy)
	}
	// Rows still spare once every gap has its three blank lines list the
	// last requests, as the ordinary view does; then make the letters taller.
	// slack is the lines left once each gap between the parts has g blank lines.
	slack := func(g int, parts ...[]string) int {
		n, free := 0, h
		for _, p := range parts {
			if len(p) > 0 {
				n, free = n+1, free-len(p)
			}
		}
		return free - g*(n+1)
	}
	var recent []string
	if n := slack(3, big, focused, others); n > 0 {
		recent = Recent{C: lanes.C, Snap: lanes.Snap}.Render(n + 2)
	}
	for len(texts) > 0 && sy < sx+2 && slack(1, big, focused, others, recent) >= 5*len(texts) {
		sy++
		big = lanes.blocks(texts, sx, sy)
	}
	return spreadOut(h, big, focused, others, recent)
}

// blocks draws texts in block letters, the last first: a memory figure
// under the verdict it explains.
func (lanes Lanes) blocks(texts []blockText, sx, sy int) []string {
	var big []string
	for i := len(texts) - 1; i >= 0; i-- {
		if len(big) > 0 {
			big = append(big, "")
		}
		for _, r := range BlockRows(texts[i].text, sx, sy) {
			big = append(big, texts[i].ink.Render(r))
		}
	}
	return big
}

// blockLines is how many lines texts take in block letters sy tall, a
// blank line between them.
func blockLines(texts []blockText, sy int) int { return len(texts)*(5*sy+1) - 1 }

// spreadOut stacks the parts in h lines with up to three blank lines
// between them, then before and after: what the room reads sits in the
// middle of the screen, and no band of it stands empty.
func spreadOut(h int, parts ...[]string) []string {
	var kept [][]string
	used := 0
	for _, p := range parts {
		if len(p) > 0 {
			kept = append(kept, p)
			used += len(p)
		}
	}
	// gaps[0] is above the first part, gaps[len] below the last; the ones
	// between the parts fill first.
	gaps := make([]int, len(kept)+1)
	order := make([]int, 0, len(gaps))
	for i := 1; i < len(kept); i++ {
		order = append(order, i)
	}
	order = append(order, 0, len(kept))
	for spare := max(h-used, 0); spare > 0; {
		given := false
		for _, g := range order {
			if spare > 0 && gaps[g] < 3 {
				gaps[g]++
				spare--
				given = true
			}
		}
		if !given {
			break
		}
	}
	var out []string
	for i, p := range kept {
		out = append(out, make([]string, gaps[i])...)
		out = append(out, p...)
	}
	return append(out, make([]string, gaps[len(kept)])...)
}

// otherLanes are the lanes besides lane k: in full with a blank line
// between them, or one line each.
func (lanes Lanes) otherLanes(ls []Lane, k int, full bool) []string {
	st, s, c := lanes.C.Styles, lanes.Snap, lanes.C
	var out []string
	for i, l := range ls {
		if i == k {
			continue
		}
		if full {
			if len(out) > 0 {
				out = append(out, "")
			}
			out = append(out, lanes.renderFocused(l, c.Height)...)
			continue
		}
		line := st.kind(int(l.kind)).Render(l.title)
		if s.HasLast {
			d := s.Last.Decisions[i]
			line += "  " + mark(st, d.Allowed) + " " + Explain(d)
		}
		out = append(out, c.Cells.Truncate(line, c.Width, "…"))
	}
	return out
}

// renderFocused draws one lane across the whole width in at most h lines.
func (p Lanes) renderFocused(l Lane, h int) []string {
	p.stacked = true
	return fitUnits([][]Unit{p.renderLane(l, p.C.Width)}, max(h, 1), 0)[0]
}
