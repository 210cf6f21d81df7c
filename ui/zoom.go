package ui

import (
	"time"

	"windowlab/algo"
	"windowlab/sim"
	"windowlab/ui/render"
)

// zoomLevels are the timeline's cell sizes, finest first.
var zoomLevels = []time.Duration{
	time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 15 * time.Second,
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
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

func (t timeline) cells(width int) int {
	return max(width-render.TimelineLabelWidth-render.TimelineCountWidth, 8)
}

// first is the instant the leftmost cell starts at.
func (t timeline) first(now algo.Instant, width int) algo.Instant {
	cell := t.cell(width)
	return now.Truncate(t.cellSize(width)) - algo.Instant(t.cells(width)*2/3)*cell
}

// instantAt is the instant a click at column x selects: the last millisecond
// of the cell under it, so every mark drawn in that cell is decided.
func (t timeline) instantAt(x, width int, now algo.Instant) (algo.Instant, bool) {
	i := x - render.TimelineLabelWidth
	if i < 0 || i >= t.cells(width) {
		return 0, false
	}
	cell := t.cell(width)
	return t.first(now, width) + algo.Instant(i)*cell + cell - 1, true
}

// cellsAt counts the decisions of history h under each cell of a timeline
// width columns wide with the clock at now: every client's, or with id
// at least 0 the client's of that index only.
func (t timeline) cellsAt(h *sim.History, now algo.Instant, width, limiters int, id int32) render.TimelineCells {
	cells, cell := t.cells(width), t.cell(width)
	d := render.TimelineCells{First: t.first(now, width), Cell: t.cellSize(width),
		Total: make([]int64, cells), Allowed: make([][]int64, cells)}
	for i := range cells {
		d.Allowed[i] = make([]int64, limiters)
	}
	if id >= 0 {
		// One pass over the runs in view, keeping the client's.
		from, to := h.FirstAtOrAfter(d.First), h.FirstAtOrAfter(d.First+algo.Instant(cells)*cell)
		for r := range h.Runs(from, to) {
			i := int((r.At - d.First) / cell)
			if r.Client != id || i < 0 || i >= cells {
				continue
			}
			d.Total[i] += r.N
			for k := range limiters {
				if r.Allowed&(1<<k) != 0 {
					d.Allowed[i][k] += r.N
				}
			}
		}
		return d
	}
	bounds := make([]int64, cells+1)
	for i := range bounds {
		bounds[i] = h.FirstAtOrAfter(d.First + algo.Instant(i)*cell)
	}
	for i := range cells {
		d.Total[i] = bounds[i+1] - bounds[i]
		h.Allowed(bounds[i], bounds[i+1], d.Allowed[i])
	}
	return d
}
