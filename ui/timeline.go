package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"windowlab/algo"
	"windowlab/human"
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

func (m Model) timelineView() []string {
	st, t := m.c.styles, m.timeline
	width := m.c.width
	cells := t.cells(width)
	cell := t.cell()
	now := m.snap.now
	first := t.first(now, width)
	cursor := int((now.Truncate(t.cellSize()) - first) / cell)
	w := algo.Instant(m.window / time.Millisecond)
	ls := m.eng.Limiters()

	isEdge := func(i int) bool {
		start := first + algo.Instant(i)*cell
		return w >= 2*cell && (start+cell-1).Truncate(m.window) >= start
	}

	// Legend, with what the count column shows.
	cursorSpan := now.Truncate(t.cellSize())
	perCell := human.Duration(time.Duration(cell) * time.Millisecond)
	key := st.allowed.Render("✓") + st.faint.Render(" allowed ") + st.denied.Render("✗") + st.faint.Render(" denied ") +
		st.mixed.Render("±") + st.faint.Render(" both ") + st.edge.Render("┃") + st.faint.Render(" window edge")
	legend := st.title.Render("timeline") + st.faint.Render(" · all clients · ") + perCell + st.faint.Render(" per cell (z/Z zoom) · ") + key
	if ansi.StringWidth(legend) > width-tlCountWidth {
		legend = st.title.Render("timeline") + " " + perCell + st.faint.Render("/cell · ") + key
	}
	countHead := st.faint.Render("in ▼ " + timeText(cursorSpan, cell))
	lines := []string{spreadCols(legend, countHead, width)}

	// Axis labels and ticks.
	lw := 8
	if cell < 1000 {
		lw = 12
	}
	step := labelSteps[len(labelSteps)-1]
	for _, s := range labelSteps {
		d := algo.Instant(s / time.Millisecond)
		if d%cell == 0 && int(d/cell) >= lw+3 {
			step = s
			break
		}
	}
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
		start := first + algo.Instant(i)*cell
		labelled := (start + cell - 1).Truncate(step) >= start
		switch {
		case i == cursor:
			flush()
			ticks.WriteString(st.g.cursorTick)
		case isEdge(i):
			flush()
			ticks.WriteString(st.g.edgeTick)
		case labelled:
			flush()
			ticks.WriteString(st.g.tick)
		default:
			baseline++
		}
		if t0 := (start + cell - 1).Truncate(step); labelled && t0 >= 0 {
			copy(labels[i:], []rune(timeText(t0, cell)))
			if isEdge(i) {
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
	labelLine := ansi.Truncate(lb.String(), cells+tlCountWidth-1, "")
	lines = append(lines, strings.Repeat(" ", tlLabelWidth)+labelLine)
	lines = append(lines, strings.Repeat(" ", tlLabelWidth)+ticks.String())

	// One row per limiter: each cell shows what the limiter decided in it.
	h := m.eng.History()
	bounds := make([]int, cells+1)
	for i := range bounds {
		bounds[i] = firstAtOrAfter(h, first+algo.Instant(i)*cell)
	}
	allowed := make([][]int64, cells)
	for i := range cells {
		allowed[i] = make([]int64, len(ls))
		if bounds[i] < bounds[i+1] {
			m.marks.allowed(h, bounds[i], bounds[i+1], allowed[i])
		}
	}
	for k, l := range ls {
		var b strings.Builder
		b.WriteString(st.kind(int(l.Kind())).Render(fmt.Sprintf("%-*s", tlLabelWidth-1, ansi.Truncate(shortName(l), tlLabelWidth-1, "…"))) + " ")
		for i := range cells {
			total := int64(bounds[i+1] - bounds[i])
			a := allowed[i][k]
			at := i == cursor
			switch {
			case total == 0 && isEdge(i):
				b.WriteString(pick(at, st.g.edgeCur, st.g.edge))
			case total == 0:
				b.WriteString(pick(at, st.g.cur, " "))
			case a == total:
				b.WriteString(pick(at, st.g.okCur, st.g.ok))
			case a == 0:
				b.WriteString(pick(at, st.g.noCur, st.g.no))
			default:
				b.WriteString(pick(at, st.g.bothCur, st.g.both))
			}
		}
		var total, a int64
		if cursor >= 0 && cursor < cells {
			total, a = int64(bounds[cursor+1]-bounds[cursor]), allowed[cursor][k]
		}
		b.WriteString("  " + st.allowed.Render(fmt.Sprintf("✓%-5s", human.Compact(a))) + " " + st.denied.Render(fmt.Sprintf("✗%-5s", human.Compact(total-a))))
		lines = append(lines, b.String())
	}
	return lines
}

// timeText labels an instant on the axis, with milliseconds when cells are finer than a second.
func timeText(t algo.Instant, cell algo.Instant) string {
	if cell < 1000 {
		return t.String()
	}
	return t.Short()
}

// shortName labels a limiter's row: its kind in a word, or its preset's name.
func shortName(l algo.Limiter) string {
	if n := l.Config().RulesName(); n != "" {
		return n
	}
	switch k := l.Kind(); k {
	case algo.KindFixedWindow:
		return "fixed"
	case algo.KindSlidingLog:
		return "log"
	case algo.KindSlidingCounter:
		return "counter"
	case algo.KindTokenBucket:
		return "bucket"
	default:
		return k.String()
	}
}

// spreadCols is spread, but drops the left side's tail rather than the right.
func spreadCols(left, right string, w int) string {
	rw := ansi.StringWidth(right)
	if ansi.StringWidth(left)+2+rw > w {
		left = ansi.Truncate(left, max(w-rw-2, 0), "…")
	}
	return spread(left, right, w, false)
}

func pick(cond bool, yes, no string) string {
	if cond {
		return yes
	}
	return no
}
