package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Chart draws each limiter's state over the timeline's own columns (the
// same cells, the same zoom): the fixed window's count, the log's
// timestamps in the last window, the sliding counter's estimate, the token
// bucket's tokens, with the limit as a line and the focused request's
// column marked. States holds the exact values, one instant per column
// (sim.Engine.StatesAt); floats are used only to place a glyph.
type Chart struct {
	C      Common
	Snap   *Snapshot
	States *sim.States
	Total  bool // every client's state summed (sim.Engine.TotalsAt)
}

// Chart geometry: the fewest plotted rows worth drawing; the fewest worth
// drawing beside the whole timeline (with fewer, the chart takes the
// timeline's place); the most drawn.
const (
	ChartMinRows    = 4
	ChartBesideRows = 8
	ChartMaxRows    = 14
)

// chartGlyphs mark each limiter's line, by kind, then (a second limiter of
// a kind) the hollow forms: the chart reads without colour.
var chartGlyphs = [][2]rune{
	algo.KindFixedWindow:     {'■', '□'},
	algo.KindSlidingLog:      {'●', '○'},
	algo.KindSlidingCounter:  {'◆', '◇'},
	algo.KindTokenBucket:     {'▲', '△'},
	algo.KindSegmentedWindow: {'▼', '▽'},
}

// glyphs is the glyph of each limiter's line, in engine order.
func (p Chart) glyphs() []rune {
	seen := map[algo.Kind]int{}
	out := make([]rune, len(p.Snap.Algorithms))
	for i, a := range p.Snap.Algorithms {
		g := '*'
		if int(a.Kind) < len(chartGlyphs) && chartGlyphs[a.Kind][0] != 0 {
			g = chartGlyphs[a.Kind][min(seen[a.Kind], 1)]
		}
		seen[a.Kind]++
		out[i] = g
	}
	return out
}

// Fit is the chart with the timeline in at most h lines: both whole when
// the chart gets ChartBesideRows, else the chart with the timeline's axis
// in its place (the
// timeline's rows give way: the lanes' totals never do), else the
// timeline and a line saying how many rows the chart needs.
func (p Chart) Fit(h int) []string {
	tl := Timeline{C: p.C, Snap: p.Snap}
	full := tl.Render()
	switch {
	case h >= len(full)+1+ChartBesideRows:
		return append(full, p.lines(min(h-len(full)-1, ChartMaxRows))...)
	case h >= 3+ChartMinRows:
		lines := p.lines(min(h-3, ChartMaxRows))
		return append(append(lines[:1:1], tl.axis()...), lines[1:]...)
	}
	need := fmt.Sprintf("chart: needs %d rows, has %d (a taller terminal; v hides)", 3+ChartMinRows, max(h, 0))
	out := tl.Fit(h - 1)
	if h >= 1 {
		out = append([]string{p.C.Styles.Warn.Render(p.C.Cells.Truncate(need, p.C.Width, "…"))}, out...)
	}
	return out
}

// lines is the legend and rows plotted rows.
func (p Chart) lines(rows int) []string {
	legend := p.legend()
	s := p.States
	switch {
	case p.Snap.Client == "" && !p.Total:
		return append([]string{legend}, p.blank(rows, "no request yet: the chart follows the focused client")...)
	case s == nil || s.TooMany:
		return append([]string{legend}, p.blank(rows, "too many requests in view to replay for the chart: zoom in (z)")...)
	}
	return append([]string{legend}, p.plot(rows)...)
}

// blank is rows empty rows, the first saying why.
func (p Chart) blank(rows int, why string) []string {
	out := make([]string, rows)
	out[0] = strings.Repeat(" ", TimelineLabelWidth) + p.C.Styles.Faint.Render(p.C.Cells.Truncate(why, p.C.Width-TimelineLabelWidth, "…"))
	return out
}

// legend names whose state it is, each line by its glyph, and the limit.
func (p Chart) legend() string {
	st := p.C.Styles
	whose, limit := "no client (c)", "┄ limit "+human.Int(p.Snap.Config.Limit)
	switch {
	case p.Total:
		whose, limit = "all clients (V)", limit+" per client"
	case p.Snap.Client != "":
		whose = human.Visible(p.Snap.Client) + " (c, V)"
	}
	items := []string{st.Title.Render("chart") + st.Faint.Render(" "+whose+" ·")}
	gl := p.glyphs()
	for i, a := range p.Snap.Algorithms {
		what := stateWord(a.Kind)
		if p.apart(i) {
			what = "per client only"
		}
		items = append(items, st.kind(int(a.Kind)).Render(string(gl[i]))+st.Faint.Render(" "+ShortName(a)+" "+what))
	}
	items = append(items, st.Faint.Render(limit), st.Faint.Render("│ focused · v hides"))
	line := strings.Join(items, " ")
	if p.C.Cells.StringWidth(line) > p.C.Width { // the short form: glyphs and names only
		items = items[:1]
		for i, a := range p.Snap.Algorithms {
			if !p.apart(i) {
				items = append(items, st.kind(int(a.Kind)).Render(string(gl[i]))+st.Faint.Render(ShortName(a)))
			}
		}
		items = append(items, st.Faint.Render("┄limit │focus v"))
		line = strings.Join(items, " ")
	}
	return p.C.Cells.Truncate(line, p.C.Width, "…")
}

// apart reports whether limiter k has no line: no total over clients.
func (p Chart) apart(k int) bool {
	return p.States != nil && k < len(p.States.Apart) && p.States.Apart[k]
}

// stateWord names what a limiter's line plots.
func stateWord(k algo.Kind) string {
	switch k {
	case algo.KindSlidingLog:
		return "in window"
	case algo.KindSlidingCounter:
		return "estimate"
	case algo.KindTokenBucket:
		return "tokens"
	case algo.KindSegmentedWindow:
		return "in window"
	}
	return "count"
}

// value is the exact state as a float, to place its glyph.
func value(d algo.Decision) float64 {
	n, den := sim.StateRat(d)
	return float64(n) / float64(den)
}

// scale is the top of the y axis: the limit, or the largest value shown
// (a bucket's capacity, or counts past the limit under CountRejected).
func (p Chart) scale() float64 {
	top := float64(p.Snap.Config.Limit)
	s := p.States
	for i := range s.Known {
		for k, d := range s.Hi[i] {
			if !p.apart(k) {
				top = max(top, value(d))
			}
		}
	}
	return max(top, 1)
}

// plot draws rows rows of the lines over the timeline's columns, with a
// label column at the left and each line's value at the clock at the right.
// ntcharts' line chart places the glyphs (its scaling and its lines
// between points); the rows are written from its canvas in runs of one
// ink, as the timeline's are, rather than a style rendered per cell.
func (p Chart) plot(rows int) []string {
	st, s := p.C.Styles, p.States
	cells := len(s.At)
	top := p.scale()
	lc := linechart.New(cells, rows, 0, float64(max(cells-1, 1)), 0, top, linechart.WithXYSteps(0, 0))
	pt := func(x int, y float64) canvas.Float64Point { return canvas.Float64Point{X: float64(x), Y: y} }
	focus := p.focusCol()
	if focus >= 0 {
		lc.DrawRuneLine(pt(focus, 0), pt(focus, top), '│')
	}
	limit := float64(p.Snap.Config.Limit)
	lc.DrawRuneLine(pt(0, limit), pt(cells-1, limit), '┄')
	gl := p.glyphs()
	inks := map[rune]Ink{'┄': st.Faint, '│': st.Faint}
	for _, k := range p.drawOrder() { // the log last: where the counter's estimate meets the true count, the true count shows
		inks[gl[k]] = st.kind(int(p.Snap.Algorithms[k].Kind))
		if p.apart(k) {
			continue
		}
		for i := range s.Known {
			if lo, hi := value(s.Lo[i][k]), value(s.Hi[i][k]); lo != hi { // a change inside the column: its whole range
				lc.DrawRuneLine(pt(i, lo), pt(i, hi), gl[k])
			}
			lc.DrawRune(pt(i, value(s.Decisions[i][k])), gl[k])
		}
	}
	limitRow := rows - 1 - int(math.Round(limit*float64(rows-1)/top))
	right := p.atClock(gl)
	out := make([]string, rows)
	for r := range rows {
		label := ""
		switch r {
		case 0:
			label = human.Compact(int64(math.Ceil(top)))
		case limitRow:
			label = human.Compact(p.Snap.Config.Limit)
		case rows - 1:
			label = "0"
		}
		var b strings.Builder
		b.WriteString(st.Faint.Render(fmt.Sprintf("%7s ┤", label)))
		p.row(&b, &lc.Canvas, r, cells, focus, inks)
		if r < len(right) {
			b.WriteString("  " + right[r])
		}
		out[r] = b.String()
	}
	return out
}

// row writes row r of the canvas in runs of one glyph, the focused
// column reversed.
func (p Chart) row(b *strings.Builder, c *canvas.Model, r, cells, focus int, inks map[rune]Ink) {
	var run []rune
	flush := func() {
		if len(run) > 0 {
			if ink, ok := inks[run[0]]; ok {
				b.WriteString(ink.Render(string(run)))
			} else {
				b.WriteString(string(run))
			}
			run = run[:0]
		}
	}
	for x := range cells {
		g := c.Cell(canvas.Point{X: x, Y: r}).Rune
		if g == 0 {
			g = ' '
		}
		if x == focus {
			flush()
			b.WriteString(inks[g].Style.Reverse(true).Render(string(g)))
			continue
		}
		if len(run) > 0 && run[0] != g {
			flush()
		}
		run = append(run, g)
	}
	flush()
}

// drawOrder draws the token bucket first and the sliding log last.
func (p Chart) drawOrder() []int {
	rank := map[algo.Kind]int{algo.KindTokenBucket: 0, algo.KindFixedWindow: 1, algo.KindSegmentedWindow: 2, algo.KindSlidingCounter: 3, algo.KindSlidingLog: 4}
	var out []int
	for r := range 5 {
		for k, a := range p.Snap.Algorithms {
			if rank[a.Kind] == r {
				out = append(out, k)
			}
		}
	}
	return out
}

// atClock is each line's exact value at the clock (the last column
// known), for the column at the right.
func (p Chart) atClock(gl []rune) []string {
	s := p.States
	if s.Known == 0 {
		return nil
	}
	var out []string
	for k, d := range s.Decisions[s.Known-1] {
		if p.apart(k) {
			continue
		}
		n, den := sim.StateRat(d)
		text := string(gl[k]) + " " + human.Decimal(n, den)
		out = append(out, p.C.Styles.kind(int(d.Kind)).Render(p.C.Cells.Truncate(text, TimelineCountWidth-2, "…")))
	}
	return out
}

// focusCol is the column holding the focused request, or −1.
func (p Chart) focusCol() int {
	if !p.Snap.HasLast || p.Snap.Timeline.Cell <= 0 {
		return -1
	}
	cell := algo.Instant(p.Snap.Timeline.Cell.Milliseconds())
	i := int((p.Snap.Last.Arrival.At - p.Snap.Timeline.First) / cell)
	if p.Snap.Last.Arrival.At < p.Snap.Timeline.First || i >= len(p.States.At) {
		return -1
	}
	return i
}

// ChartInstants are the instants a chart over the timeline's cells reads
// each limiter's state at: each column's last millisecond, the clock's
// own column at the clock.
func ChartInstants(t TimelineCells, now algo.Instant) []algo.Instant {
	cell := algo.Instant(t.Cell.Milliseconds())
	out := make([]algo.Instant, len(t.Total))
	for i := range out {
		start := t.First + algo.Instant(i)*cell
		out[i] = start + cell - 1
		if start <= now {
			out[i] = min(out[i], now)
		}
	}
	return out
}
