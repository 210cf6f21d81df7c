package ui

import (
	"fmt"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// zoomLevels are the timeline's cell sizes, finest first.
var zoomLevels = []time.Duration{
	time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 5 * time.Second, 15 * time.Second,
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
}

// labelSteps are the spacings the axis labels may take.
var labelSteps = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// timeline is the strip of decisions across the bottom: an axis, one row per
// limiter, a cursor at the clock. It scrolls with the clock, which always
// stands two thirds of the way across.
type timeline struct {
	zoom int
}

// Geometry of a timeline row: label, cells, counts in the cursor's cell.
const (
	tlLabelWidth = 9
	tlCountWidth = 15
)

// newTimeline picks the finest zoom at which one window spans at most 60 cells.
func newTimeline(window time.Duration) timeline {
	for i, z := range zoomLevels {
		if window/z <= 60 {
			return timeline{zoom: i}
		}
	}
	return timeline{zoom: len(zoomLevels) - 1}
}

func (t timeline) zoomIn() timeline  { t.zoom = max(t.zoom-1, 0); return t }
func (t timeline) zoomOut() timeline { t.zoom = min(t.zoom+1, len(zoomLevels)-1); return t }

// cellSize is the span of virtual time one cell covers.
func (t timeline) cellSize() time.Duration { return zoomLevels[min(max(t.zoom, 0), len(zoomLevels)-1)] }

// cell is cellSize in milliseconds, for arithmetic on instants.
func (t timeline) cell() algo.Instant { return algo.Instant(t.cellSize() / time.Millisecond) }

// height is the lines the timeline takes: legend, labels, ticks, rows.
func (t timeline) height(limiters int) int { return 3 + limiters }

func (t timeline) cells(width int) int { return max(width-tlLabelWidth-tlCountWidth, 8) }

// first is the instant the leftmost cell starts at.
func (t timeline) first(now algo.Instant, width int) algo.Instant {
	cell := t.cell()
	return now.Truncate(t.cellSize()) - algo.Instant(t.cells(width)*2/3)*cell
}

// instantAt is the instant a click at column x selects: the last millisecond
// of the cell under it, so every mark drawn in that cell is decided.
func (t timeline) instantAt(x, width int, now algo.Instant) (algo.Instant, bool) {
	i := x - tlLabelWidth
	if i < 0 || i >= t.cells(width) {
		return 0, false
	}
	cell := t.cell()
	return t.first(now, width) + algo.Instant(i)*cell + cell - 1, true
}

// timelineCells are the decisions under each cell of the timeline, read
// from the engine's history whenever the clock, the zoom or the width
// changes, so that drawing reads no engine.
type timelineCells struct {
	first   algo.Instant  // where the leftmost cell starts
	cell    time.Duration // the span of one cell
	total   []int64       // requests decided in each cell
	allowed [][]int64     // [cell][limiter]: how many of them each limiter allowed
}

// cellsAt counts the decisions of history h under each cell of a timeline
// width columns wide with the clock at now.
func (t timeline) cellsAt(h *sim.History, now algo.Instant, width, limiters int) timelineCells {
	cells, cell := t.cells(width), t.cell()
	d := timelineCells{first: t.first(now, width), cell: t.cellSize(),
		total: make([]int64, cells), allowed: make([][]int64, cells)}
	bounds := make([]int64, cells+1)
	for i := range bounds {
		bounds[i] = h.FirstAtOrAfter(d.first + algo.Instant(i)*cell)
	}
	for i := range cells {
		d.total[i] = bounds[i+1] - bounds[i]
		d.allowed[i] = make([]int64, limiters)
		h.Allowed(bounds[i], bounds[i+1], d.allowed[i])
	}
	return d
}

// timelinePanel draws the timeline from a snapshot: an axis with window
// edges, one row of decisions per limiter and a cursor at the clock.
type timelinePanel struct {
	c    common
	snap *snapshot
}

func (p timelinePanel) render() []string {
	lines := []string{p.legend()}
	lines = append(lines, p.axis()...)
	return append(lines, p.rows()...)
}

func (p timelinePanel) cells() int { return len(p.snap.timeline.total) }

// cellMs is one cell's span in milliseconds, for arithmetic on instants.
func (p timelinePanel) cellMs() algo.Instant {
	return algo.Instant(p.snap.timeline.cell / time.Millisecond)
}

// start is where cell i starts.
func (p timelinePanel) start(i int) algo.Instant {
	return p.snap.timeline.first + algo.Instant(i)*p.cellMs()
}

// cursor is the cell holding the clock.
func (p timelinePanel) cursor() int {
	return int((p.snap.now.Truncate(p.snap.timeline.cell) - p.snap.timeline.first) / p.cellMs())
}

// isEdge reports whether a window edge falls in cell i (drawn only when a
// window spans at least two cells).
func (p timelinePanel) isEdge(i int) bool {
	w, cell := p.snap.config.Window, p.cellMs()
	start := p.start(i)
	return algo.Instant(w/time.Millisecond) >= 2*cell && (start+cell-1).Truncate(w) >= start
}

// legend is the first line: what the cells and glyphs mean, and what the
// count column counts.
func (p timelinePanel) legend() string {
	st, width := p.c.styles, p.c.width
	cell := p.cellMs()
	perCell := human.Duration(p.snap.timeline.cell)
	key := st.allowed.Render("✓") + st.faint.Render(" allowed ") + st.denied.Render("✗") + st.faint.Render(" denied ") +
		st.mixed.Render("±") + st.faint.Render(" both ") + st.edge.Render("┃") + st.faint.Render(" window edge")
	legend := st.title.Render("timeline") + st.faint.Render(" · all clients · ") + perCell + st.faint.Render(" per cell (z/Z zoom) · ") + key
	if p.c.cells.StringWidth(legend) > width-tlCountWidth {
		legend = st.title.Render("timeline") + " " + perCell + st.faint.Render("/cell · ") + key
	}
	countHead := st.faint.Render("in ▼ " + timeText(p.snap.now.Truncate(p.snap.timeline.cell), cell))
	return p.c.spreadCols(legend, countHead, width)
}

// labelStep is the spacing of the axis labels: the first that is a whole
// number of cells and leaves room for a label of lw cells.
func (p timelinePanel) labelStep(lw int) time.Duration {
	cell := p.cellMs()
	for _, s := range labelSteps {
		d := algo.Instant(s / time.Millisecond)
		if d%cell == 0 && int(d/cell) >= lw+3 {
			return s
		}
	}
	return labelSteps[len(labelSteps)-1]
}

// axis is the labels line and the ticks line, window edges standing out.
func (p timelinePanel) axis() []string {
	st, cells, cell := p.c.styles, p.cells(), p.cellMs()
	lw := 8
	if cell < 1000 {
		lw = 12
	}
	step := p.labelStep(lw)
	cursor := p.cursor()
	labels := []rune(strings.Repeat(" ", cells+lw))
	var edgeLabels []int
	var ticks strings.Builder
	baseline := 0 // a run of ─ not yet written
	flush := func() {
		if baseline > 0 {
			ticks.WriteString(st.faint.Render(strings.Repeat("─", baseline)))
			baseline = 0
		}
	}
	for i := range cells {
		start := p.start(i)
		t0 := (start + cell - 1).Truncate(step)
		labelled := t0 >= start
		switch {
		case i == cursor:
			flush()
			ticks.WriteString(st.g.cursorTick)
		case p.isEdge(i):
			flush()
			ticks.WriteString(st.g.edgeTick)
		case labelled:
			flush()
			ticks.WriteString(st.g.tick)
		default:
			baseline++
		}
		if labelled {
			copy(labels[i:], []rune(timeText(t0, cell)))
			if p.isEdge(i) {
				edgeLabels = append(edgeLabels, i)
			}
		}
	}
	flush()
	// Labels at window edges stand out from the other ticks' labels.
	var lb strings.Builder
	pos := 0
	for _, i := range edgeLabels {
		end := min(i+lw, len(labels))
		lb.WriteString(st.faint.Render(string(labels[pos:i])) + st.title.Render(string(labels[i:end])))
		pos = end
	}
	lb.WriteString(st.faint.Render(string(labels[pos:])))
	labelLine := p.c.cells.Truncate(lb.String(), cells+tlCountWidth-1, "")
	pad := strings.Repeat(" ", tlLabelWidth)
	return []string{pad + labelLine, pad + ticks.String()}
}

// rows is one row per limiter: each cell shows what the limiter decided in
// it, and the column at the end counts the cell under the cursor.
func (p timelinePanel) rows() []string {
	st, d, cursor := p.c.styles, p.snap.timeline, p.cursor()
	var lines []string
	for k, a := range p.snap.algorithms {
		var b strings.Builder
		b.WriteString(st.kind(int(a.Kind)).Render(p.c.fit(shortName(a), tlLabelWidth-1)) + " ")
		for i := range p.cells() {
			b.WriteString(p.glyph(i, d.total[i], d.allowed[i][k], i == cursor))
		}
		var total, allowed int64
		if cursor >= 0 && cursor < p.cells() {
			total, allowed = d.total[cursor], d.allowed[cursor][k]
		}
		b.WriteString("  " + st.allowed.Render(fmt.Sprintf("✓%-5s", human.Compact(allowed))) + " " + st.denied.Render(fmt.Sprintf("✗%-5s", human.Compact(total-allowed))))
		lines = append(lines, b.String())
	}
	return lines
}

// glyph is cell i of one limiter's row: total requests, allowed of them.
func (p timelinePanel) glyph(i int, total, allowed int64, atCursor bool) string {
	g := p.c.styles.g
	switch {
	case total == 0 && p.isEdge(i):
		return pick(atCursor, g.edgeCur, g.edge)
	case total == 0:
		return pick(atCursor, g.cur, " ")
	case allowed == total:
		return pick(atCursor, g.okCur, g.ok)
	case allowed == 0:
		return pick(atCursor, g.noCur, g.no)
	}
	return pick(atCursor, g.bothCur, g.both)
}

// timeText labels an instant on the axis, with milliseconds when cells are finer than a second.
// The axis shows the time of day; the day itself is in the header's clock.
func timeText(t algo.Instant, cell algo.Instant) string { return t.TimeOfDay(cell < 1000) }

// shortName labels a limiter's row: its kind in a word, or its preset's name.
func shortName(a algo.Algorithm) string {
	if n := a.Rules.Name(); n != "" {
		return n
	}
	switch a.Kind {
	case algo.KindFixedWindow:
		return "fixed"
	case algo.KindSlidingLog:
		return "log"
	case algo.KindSlidingCounter:
		return "counter"
	case algo.KindTokenBucket:
		return "bucket"
	}
	return a.Kind.String()
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
