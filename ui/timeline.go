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
	time.Second, 2 * time.Second, 5 * time.Second, 15 * time.Second,
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
// stands two thirds of the way across. Each row also draws its limiter's
// window for the focused client: the fixed window's current window, the
// log's last window sliding with the clock, the counter's current window
// and the part of the previous one its estimate still counts.
type timeline struct {
	window time.Duration
	zoom   int  // index into zoomLevels, once the user zoomed
	chosen bool // the user zoomed; else the zoom follows the width
	client bool // the focused client's requests only, not every client's
}

// Geometry of a timeline row: label, cells, the figures at the end.
const (
	tlLabelWidth = 9
	tlCountWidth = 15
)

func newTimeline(window time.Duration) timeline { return timeline{window: window} }

// level is the zoom at width: the user's, or the finest at which the
// past two thirds of the cells hold two windows, so the counter's previous
// window shows beside its current one.
func (t timeline) level(width int) int {
	if t.chosen {
		return t.zoom
	}
	past := t.cells(width) * 2 / 3
	for i, z := range zoomLevels {
		if 2*int64(t.window/z) <= int64(past) {
			return i
		}
	}
	return len(zoomLevels) - 1
}

func (t timeline) zoomIn(width int) timeline {
	t.zoom, t.chosen = max(t.level(width)-1, 0), true
	return t
}

func (t timeline) zoomOut(width int) timeline {
	t.zoom, t.chosen = min(t.level(width)+1, len(zoomLevels)-1), true
	return t
}

// cellSize is the span of virtual time one cell covers at width.
func (t timeline) cellSize(width int) time.Duration { return zoomLevels[t.level(width)] }

// cell is cellSize in milliseconds, for arithmetic on instants.
func (t timeline) cell(width int) algo.Instant {
	return algo.Instant(t.cellSize(width) / time.Millisecond)
}

func (t timeline) cells(width int) int { return max(width-tlLabelWidth-tlCountWidth, 8) }

// first is the instant the leftmost cell starts at.
func (t timeline) first(now algo.Instant, width int) algo.Instant {
	cell := t.cell(width)
	return now.Truncate(t.cellSize(width)) - algo.Instant(t.cells(width)*2/3)*cell
}

// instantAt is the instant a click at column x selects: the last millisecond
// of the cell under it, so every mark drawn in that cell is decided.
func (t timeline) instantAt(x, width int, now algo.Instant) (algo.Instant, bool) {
	i := x - tlLabelWidth
	if i < 0 || i >= t.cells(width) {
		return 0, false
	}
	cell := t.cell(width)
	return t.first(now, width) + algo.Instant(i)*cell + cell - 1, true
}

// timelineCells are the decisions under each cell of the timeline, read
// from the engine's history whenever the clock, the zoom or the width
// changes, so that drawing reads no engine.
type timelineCells struct {
	first   algo.Instant  // where the leftmost cell starts
	cell    time.Duration // the span of one cell
	client  string        // whose requests, "" for every client's
	total   []int64       // requests decided in each cell
	allowed [][]int64     // [cell][limiter]: how many of them each limiter allowed
}

// cellsAt counts the decisions of history h under each cell of a timeline
// width columns wide with the clock at now: every client's, or with id
// at least 0 the client's of that index only.
func (t timeline) cellsAt(h *sim.History, now algo.Instant, width, limiters int, id int32) timelineCells {
	cells, cell := t.cells(width), t.cell(width)
	d := timelineCells{first: t.first(now, width), cell: t.cellSize(width),
		total: make([]int64, cells), allowed: make([][]int64, cells)}
	for i := range cells {
		d.allowed[i] = make([]int64, limiters)
	}
	if id >= 0 {
		// One pass over the runs in view, keeping the client's.
		from, to := h.FirstAtOrAfter(d.first), h.FirstAtOrAfter(d.first+algo.Instant(cells)*cell)
		for r := range h.Runs(from, to) {
			i := int((r.At - d.first) / cell)
			if r.Client != id || i < 0 || i >= cells {
				continue
			}
			d.total[i] += r.N
			for k := range limiters {
				if r.Allowed&(1<<k) != 0 {
					d.allowed[i][k] += r.N
				}
			}
		}
		return d
	}
	bounds := make([]int64, cells+1)
	for i := range bounds {
		bounds[i] = h.FirstAtOrAfter(d.first + algo.Instant(i)*cell)
	}
	for i := range cells {
		d.total[i] = bounds[i+1] - bounds[i]
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
	c, cell := p.snap.config, p.cellMs()
	start := p.start(i)
	return algo.Instant(c.Window/time.Millisecond) >= 2*cell && c.WindowStart(start+cell-1) >= start
}

// legend is the first line: whose requests, what a cell spans, what the
// glyphs mean, and what the figures at the end count.
func (p timelinePanel) legend() string {
	st, width := p.c.styles, p.c.width
	perCell := human.Duration(p.snap.timeline.cell)
	whose := "all clients"
	if c := p.snap.timeline.client; c != "" {
		whose = human.Visible(c)
	}
	key := st.allowed.Render("✓") + st.faint.Render(" allowed ") + st.denied.Render("✗") + st.faint.Render(" denied ") +
		st.mixed.Render("±") + st.faint.Render(" both ") + st.edge.Render("┃") + st.faint.Render(" edge ") +
		st.winCur.Render("  ") + st.faint.Render(" window")
	legend := st.title.Render("timeline") + st.faint.Render(" · "+whose+" (f) · ") + perCell + st.faint.Render(" per cell (z/Z) · ") + key
	if p.c.cells.StringWidth(legend) > width-tlCountWidth {
		legend = st.title.Render("timeline") + st.faint.Render(" "+whose+" · ") + perCell + st.faint.Render("/cell · ") + key
	}
	if p.c.cells.StringWidth(legend) > width-tlCountWidth {
		legend = st.title.Render("timeline") + st.faint.Render(" "+whose+" · ") + perCell + st.faint.Render("/cell")
	}
	return p.c.spreadCols(legend, st.faint.Render(p.figuresHead()), width)
}

// figuresHead says what the figures at the end of each row count: the
// limiter's totals so far, or for one client, its requests in view.
func (p timelinePanel) figuresHead() string {
	if p.snap.timeline.client != "" {
		return "in view"
	}
	return "so far"
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
		case p.isEdge(i): // over the cursor too: its cells in the rows show where the clock is
			flush()
			ticks.WriteString(st.g.edgeTick)
		case i == cursor:
			flush()
			ticks.WriteString(st.g.cursorTick)
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
// it over its window's shading, and the figures at the end count what it
// decided so far (or, for one client, in view).
func (p timelinePanel) rows() []string {
	st, d, cursor := p.c.styles, p.snap.timeline, p.cursor()
	var lines []string
	for k, a := range p.snap.algorithms {
		var b strings.Builder
		b.WriteString(st.kind(int(a.Kind)).Render(p.c.fit(shortName(a), tlLabelWidth-1)) + " ")
		spans := p.windowSpans(k)
		for i := range p.cells() {
			b.WriteString(st.cellGlyph(p.mark(i, d.total[i], d.allowed[i][k]), tintAt(spans, p.start(i), p.start(i)+p.cellMs()), i == cursor))
		}
		var allowed, denied int64
		if d.client == "" {
			allowed, denied = p.snap.stats[k].Allowed, p.snap.stats[k].Denied
		} else {
			for i := range p.cells() {
				allowed += d.allowed[i][k]
				denied += d.total[i] - d.allowed[i][k]
			}
		}
		b.WriteString("  " + st.allowed.Render(fmt.Sprintf("✓%-5s", human.Compact(allowed))) + " " + st.denied.Render(fmt.Sprintf("✗%-5s", human.Compact(denied))))
		lines = append(lines, b.String())
	}
	return lines
}

// mark is what cell i of one limiter's row shows.
func (p timelinePanel) mark(i int, total, allowed int64) cellMark {
	switch {
	case total == 0 && p.isEdge(i):
		return markEdge
	case total == 0:
		return markNone
	case allowed == total:
		return markOK
	case allowed == 0:
		return markNo
	}
	return markBoth
}

// span is a stretch of a row shaded as part of its limiter's window.
type span struct {
	from, to algo.Instant // [from, to)
	tint     tint
}

// windowSpans are limiter k's windows for the focused client at the clock,
// from the decision a request would get now.
func (p timelinePanel) windowSpans(k int) []span {
	d := p.snap.peek[k]
	now, w := p.snap.now, algo.Instant(d.Window/time.Millisecond)
	if p.snap.client == "" || w <= 0 {
		return nil
	}
	switch d.Kind {
	case algo.KindFixedWindow:
		return []span{{d.WindowStart, d.WindowStart + w, tintCurrent}}
	case algo.KindSlidingLog:
		return []span{{now - w + 1, now + 1, tintCurrent}} // (now − w, now]
	case algo.KindSlidingCounter:
		return []span{
			{d.WindowStart, d.WindowStart + w, tintCurrent},
			{now - w, d.WindowStart, tintOverlap}, // the previous window's part the estimate still counts
			{d.WindowStart - w, now - w, tintPrevious},
		}
	}
	return nil
}

// tintAt is the shading of a cell spanning [from, to): the first span
// that covers most of it, so a window's share is drawn to scale.
func tintAt(spans []span, from, to algo.Instant) tint {
	for _, s := range spans {
		lo, hi := max(s.from, from), min(s.to, to)
		if 2*(hi-lo) >= to-from && hi > lo {
			return s.tint
		}
	}
	return tintNone
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
