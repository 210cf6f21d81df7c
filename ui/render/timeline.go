package render

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// labelSteps are the spacings the axis labels may take.
var labelSpacings = []time.Duration{
	time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond,
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// Geometry of a timeline row: label, cells, the figures at the end.
const (
	TimelineLabelWidth = 9
	TimelineCountWidth = 15
)

// timelineCells are the decisions under each cell of the timeline, read
// from the engine's history whenever the clock, the zoom or the width
// changes, so that drawing reads no engine.
type TimelineCells struct {
	First   algo.Instant  // where the leftmost cell starts
	Cell    time.Duration // the span of one cell
	Client  string        // whose requests, "" for every client's
	Total   []int64       // requests decided in each cell
	Allowed [][]int64     // [cell][limiter]: how many of them each limiter allowed
	Delayed [][]int64     // [cell][limiter]: how many of those it delayed; nil when none was
	// WithoutStore is [cell][limiter]: how many it decided without its
	// store (--on-store-error allow or deny); nil when none was.
	WithoutStore [][]int64
}

// timelinePanel draws the timeline from a snapshot: an axis with window
// edges, one row of decisions per limiter and a cursor at the clock.
type Timeline struct {
	C    Common
	Snap *Snapshot
}

func (p Timeline) Render() []string {
	lines := []string{p.legend()}
	lines = append(lines, p.axis()...)
	return append(lines, p.rows()...)
}

// fit is the timeline in at most h lines: whole, or without its legend,
// then without its labels and ticks; nothing when even its rows do not fit.
func (p Timeline) Fit(h int) []string {
	rows := p.rows()
	axis := p.axis()
	switch {
	case h >= 1+len(axis)+len(rows):
		return append(append([]string{p.legend()}, axis...), rows...)
	case h >= 1+len(rows):
		return append([]string{axis[1]}, rows...)
	case h >= len(rows) && len(rows) > 0:
		return rows
	}
	return nil
}

func (p Timeline) Cells() int { return len(p.Snap.Timeline.Total) }

// cellMs is one cell's span in milliseconds, for arithmetic on instants.
func (p Timeline) CellMs() algo.Instant {
	return algo.Instant(p.Snap.Timeline.Cell / time.Millisecond)
}

// start is where cell i starts.
func (p Timeline) Start(i int) algo.Instant {
	return p.Snap.Timeline.First + algo.Instant(i)*p.CellMs()
}

// cursor is the cell holding the clock.
func (p Timeline) cursor() int {
	return int((p.Snap.Now.Truncate(p.Snap.Timeline.Cell) - p.Snap.Timeline.First) / p.CellMs())
}

// isEdge reports whether a window edge falls in cell i (drawn only when a
// window spans at least two cells).
func (p Timeline) isEdge(i int) bool {
	c, cell := p.Snap.Config, p.CellMs()
	start := p.Start(i)
	return algo.Instant(c.Window/time.Millisecond) >= 2*cell && c.WindowStart(start+cell-1) >= start
}

// legend is the first line: whose requests, what a cell spans, what each
// mark means (the windows' glyphs too, with their shading), and what the
// figures at the end count; shorter forms first drop words, then the
// figures' heading, never a mark.
func (p Timeline) legend() string {
	st, width := p.C.Styles, p.C.Width
	perCell := human.Duration(p.Snap.Timeline.Cell)
	whose := "all clients"
	if c := p.Snap.Timeline.Client; c != "" {
		whose = human.Visible(c)
	}
	title := st.Title.Render("timeline")
	wide, narrow := p.key(false), p.key(true)
	head := st.Faint.Render(p.figuresHead())
	withHead := []string{
		title + st.Faint.Render(" · "+whose+" (f) · ") + perCell + st.Faint.Render(" per cell (z/Z) · ") + wide,
		title + st.Faint.Render(" "+whose+" (f) · ") + perCell + st.Faint.Render("/cell (z/Z) · ") + wide,
		title + st.Faint.Render(" "+whose+" (f) · ") + perCell + st.Faint.Render("/cell (z/Z) · ") + narrow,
		title + st.Faint.Render(" "+whose+" · ") + perCell + st.Faint.Render("/cell · ") + wide,
		title + st.Faint.Render(" "+whose+" · ") + perCell + st.Faint.Render("/cell · ") + narrow,
	}
	for _, l := range withHead {
		if p.C.Cells.StringWidth(l) <= width-TimelineCountWidth {
			return p.C.spreadCols(l, head, width)
		}
	}
	for _, l := range []string{withHead[len(withHead)-1], title + " " + perCell + st.Faint.Render("/cell ") + narrow, title + " " + narrow, narrow} {
		if p.C.Cells.StringWidth(l) <= width {
			return l
		}
	}
	return p.C.Cells.Truncate(narrow, width, "…")
}

// key names each mark a row may show: the verdicts, the window edges, and,
// when rows show the focused client's windows, each window's glyph.
func (p Timeline) key(short bool) string {
	st := p.C.Styles
	item := func(mark, what string) string { return mark + st.Faint.Render(" "+what) }
	items := []string{item(st.Allowed.Render("✓"), "allowed"), item(st.Denied.Render("✗"), "denied"),
		item(st.Mixed.Render("±"), "both"), item(st.Edge.Render("┃"), "edge")}
	if delaying(p.Snap.Algorithms) {
		items = slices.Insert(items, 2, item(st.Allowed.Render(DelayedGlyph), "delayed"))
	}
	if p.Snap.Timeline.WithoutStore != nil {
		what := "decided without the store"
		if short {
			what = "no store"
		}
		items = slices.Insert(items, 2, item(st.Mixed.Render(StorelessGlyph), what))
	}
	windows, counter := false, false
	for i, a := range p.Snap.Algorithms {
		windows = windows || len(p.WindowSpans(i)) > 0
		counter = counter || a.Kind == algo.KindSlidingCounter
	}
	if windows {
		items = append(items, item(st.Cells[markNone][TintCurrent][0], "window"))
		if counter {
			counted := "part of the previous window counted"
			if short {
				counted = "previous, counted"
			}
			items = append(items, item(st.Cells[markNone][TintOverlap][0], counted))
		}
	}
	return strings.Join(items, " ")
}

// figuresHead says what the figures at the end of each row count: the
// limiter's totals so far, or for one client, its requests in view.
func (p Timeline) figuresHead() string {
	if p.Snap.Timeline.Client != "" {
		return "in view"
	}
	return "so far"
}

// labelSpacing is the spacing of the axis labels: the first that is a whole
// number of cells and leaves room for a label of lw cells.
func (p Timeline) labelSpacing(lw int) time.Duration {
	cell := p.CellMs()
	for _, s := range labelSpacings {
		d := algo.Instant(s / time.Millisecond)
		if d%cell == 0 && int(d/cell) >= lw+3 {
			return s
		}
	}
	return labelSpacings[len(labelSpacings)-1]
}

// axis is the labels line and the ticks line, window edges standing out.
func (p Timeline) axis() []string {
	st, cells, cell := p.C.Styles, p.Cells(), p.CellMs()
	lw := 8
	if cell < 1000 {
		lw = 12
	}
	spacing := p.labelSpacing(lw)
	cursor := p.cursor()
	labels := []rune(strings.Repeat(" ", cells+lw))
	var edgeLabels []int
	var ticks strings.Builder
	baseline := 0 // a run of ─ not yet written
	flush := func() {
		if baseline > 0 {
			ticks.WriteString(st.Faint.Render(strings.Repeat("─", baseline)))
			baseline = 0
		}
	}
	for i := range cells {
		start := p.Start(i)
		t0 := (start + cell - 1).Truncate(spacing)
		labelled := t0 >= start
		switch {
		case p.isEdge(i): // over the cursor too: its cells in the rows show where the clock is
			flush()
			ticks.WriteString(st.Glyphs.EdgeTick)
		case i == cursor:
			flush()
			ticks.WriteString(st.Glyphs.CursorTick)
		case labelled:
			flush()
			ticks.WriteString(st.Glyphs.Tick)
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
		lb.WriteString(st.Faint.Render(string(labels[pos:i])) + st.Title.Render(string(labels[i:end])))
		pos = end
	}
	lb.WriteString(st.Faint.Render(string(labels[pos:])))
	labelLine := p.C.Cells.Truncate(lb.String(), cells+TimelineCountWidth-1, "")
	pad := strings.Repeat(" ", TimelineLabelWidth)
	return []string{pad + labelLine, pad + ticks.String()}
}

// rows is one row per limiter: each cell shows what the limiter decided in
// it over its window's shading, and the figures at the end count what it
// decided so far (or, for one client, in view).
func (p Timeline) rows() []string {
	st, d, cursor := p.C.Styles, p.Snap.Timeline, p.cursor()
	var lines []string
	for k, a := range p.Snap.Algorithms {
		var b strings.Builder
		b.WriteString(st.kind(int(a.Kind)).Render(p.C.Fit(ShortName(a), TimelineLabelWidth-1)) + " ")
		spans := p.WindowSpans(k)
		for i := range p.Cells() {
			m := p.mark(i, d.Total[i], d.Allowed[i][k], a.ClientWindows())
			if m == markNone && p.isSegmentEdge(i, k) {
				m = markEdge
			}
			if m == markOK && d.Delayed != nil && d.Delayed[i][k] > 0 {
				m = markDelayed
			}
			if d.WithoutStore != nil && d.WithoutStore[i][k] > 0 {
				m = storeless(m)
			}
			b.WriteString(st.cellGlyph(m, TintAt(spans, p.Start(i), p.Start(i)+p.CellMs()), i == cursor))
		}
		var allowed, denied int64
		if d.Client == "" {
			allowed, denied = p.Snap.Stats[k].Allowed, p.Snap.Stats[k].Denied
		} else {
			for i := range p.Cells() {
				allowed += d.Allowed[i][k]
				denied += d.Total[i] - d.Allowed[i][k]
			}
		}
		b.WriteString("  " + st.Allowed.Render(fmt.Sprintf("✓%-5s", human.Compact(allowed))) + " " + st.Denied.Render(fmt.Sprintf("✗%-5s", human.Compact(denied))))
		lines = append(lines, b.String())
	}
	return lines
}

// mark is what cell i of one limiter's row shows: a calendar edge only in
// the row of a limiter whose windows are the clock's, not each client's own.
func (p Timeline) mark(i int, total, allowed int64, own bool) cellMark {
	switch {
	case total == 0 && !own && p.isEdge(i):
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
type Span struct {
	From, To algo.Instant // [from, to)
	Tint     Tint
}

// windowSpans are limiter k's windows for the focused client at the clock,
// from the decision a request would get now.
func (p Timeline) WindowSpans(k int) []Span {
	d := p.Snap.Peek[k]
	now, w := p.Snap.Now, algo.Instant(d.Window/time.Millisecond)
	if p.Snap.Client == "" || w <= 0 {
		return nil
	}
	switch d.Kind {
	case algo.KindFixedWindow:
		return []Span{{d.WindowStart, d.WindowStart + w, TintCurrent}}
	case algo.KindSlidingLog:
		return []Span{{now - w + 1, now + 1, TintCurrent}} // (now − w, now]
	case algo.KindSegmentedWindow:
		return []Span{{d.SegmentsFrom(), d.SegmentEnd(), TintCurrent}} // its S segments
	case algo.KindSlidingCounter:
		return []Span{
			{d.WindowStart, d.WindowStart + w, TintCurrent},
			{now - w, d.WindowStart, TintOverlap}, // the previous window's part the estimate still counts
			{d.WindowStart - w, now - w, TintPrevious},
		}
	}
	return nil
}

// tintAt is the shading of a cell spanning [from, to): the first span
// that covers most of it, so a window's share is drawn to scale.
func TintAt(spans []Span, from, to algo.Instant) Tint {
	for _, s := range spans {
		lo, hi := max(s.From, from), min(s.To, to)
		if 2*(hi-lo) >= to-from && hi > lo {
			return s.Tint
		}
	}
	return TintNone
}

// timeText labels an instant on the axis, with milliseconds when cells are finer than a second.
// The axis shows the time of day; the day itself is in the header's clock.
func timeText(t algo.Instant, cell algo.Instant) string { return t.TimeOfDay(cell < 1000) }

// shortName labels a limiter's row: its kind in a word, or its preset's name.
func ShortName(a algo.Algorithm) string {
	if n := sharingName(a); n != "" {
		return n
	}
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
	case algo.KindSegmentedWindow:
		return "segments"
	}
	return a.Kind.String()
}

// delaying reports whether any of the algorithms may delay a request
// (nginx limit_req without nodelay): only then does the legend name ◔.
func delaying(algos []algo.Algorithm) bool {
	return slices.ContainsFunc(algos, func(a algo.Algorithm) bool { return a.Rules.Bucket == algo.BucketNginx })
}
