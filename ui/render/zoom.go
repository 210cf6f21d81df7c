package render

import (
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// ZoomLevels are the timeline's cell sizes, finest first.
var ZoomLevels = []time.Duration{
	time.Millisecond, 10 * time.Millisecond, 100 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 15 * time.Second,
	time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour,
}

// Zoom is the geometry of the timeline, the strip of decisions across the
// bottom (Timeline draws it): how much time a cell spans at a width, and
// whose requests it counts. It scrolls with the clock, which always stands
// two thirds of the way across. The view keeps one and changes it with
// the zoom keys, the wheel and f.
type Zoom struct {
	Window time.Duration
	zoom   int  // index into ZoomLevels, once the user zoomed
	chosen bool // the user zoomed; else the zoom follows the width
	Client bool // the focused client's requests only, not every client's
}

// NewZoom is the zoom for a limiter window: it follows the width.
func NewZoom(window time.Duration) Zoom { return Zoom{Window: window} }

// Level is the zoom at width: the user's, or the finest at which the
// past two thirds of the cells hold two windows, so the counter's previous
// window shows beside its current one.
func (t Zoom) Level(width int) int {
	if t.chosen {
		return t.zoom
	}
	past := t.Cells(width) * 2 / 3
	for i, z := range ZoomLevels {
		if 2*int64(t.Window/z) <= int64(past) {
			return i
		}
	}
	return len(ZoomLevels) - 1
}

// In zooms in a level from where the zoom stands at width.
func (t Zoom) In(width int) Zoom {
	t.zoom, t.chosen = max(t.Level(width)-1, 0), true
	return t
}

// Out zooms out a level from where the zoom stands at width.
func (t Zoom) Out(width int) Zoom {
	t.zoom, t.chosen = min(t.Level(width)+1, len(ZoomLevels)-1), true
	return t
}

// cellSize is the span of virtual time one cell covers at width.
func (t Zoom) cellSize(width int) time.Duration { return ZoomLevels[t.Level(width)] }

// cell is cellSize in milliseconds, for arithmetic on instants.
func (t Zoom) cell(width int) algo.Instant {
	return algo.Instant(t.cellSize(width) / time.Millisecond)
}

// Cells is how many cells a timeline width columns wide has.
func (t Zoom) Cells(width int) int {
	return max(width-TimelineLabelWidth-TimelineCountWidth, 8)
}

// first is the instant the leftmost cell starts at.
func (t Zoom) first(now algo.Instant, width int) algo.Instant {
	cell := t.cell(width)
	return now.Truncate(t.cellSize(width)) - algo.Instant(t.Cells(width)*2/3)*cell
}

// InstantAt is the instant a click at column x selects: the last millisecond
// of the cell under it, so every mark drawn in that cell is decided.
func (t Zoom) InstantAt(x, width int, now algo.Instant) (algo.Instant, bool) {
	i := x - TimelineLabelWidth
	if i < 0 || i >= t.Cells(width) {
		return 0, false
	}
	cell := t.cell(width)
	return t.first(now, width) + algo.Instant(i)*cell + cell - 1, true
}

// CellsAt counts the decisions of history h under each cell of a timeline
// width columns wide with the clock at now: every client's, or with id
// at least 0 the client's of that index only.
func (t Zoom) CellsAt(h *sim.History, now algo.Instant, width, limiters int, id int32) TimelineCells {
	cells, cell := t.Cells(width), t.cell(width)
	d := TimelineCells{First: t.first(now, width), Cell: t.cellSize(width),
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
		d.delayed(h, limiters, id)
		d.withoutStore(h, limiters, id)
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
	d.delayed(h, limiters, -1)
	d.withoutStore(h, limiters, -1)
	return d
}

// delayed counts, when the history holds any, the requests each limiter
// delayed under each cell (of client id, or every client's below 0).
func (d *TimelineCells) delayed(h *sim.History, limiters int, id int32) {
	if h.HasDelays() {
		d.Delayed = d.perCell(h, limiters, id, h.Delayed)
	}
}

// withoutStore counts, when the history holds any, the requests each
// limiter decided without its store under each cell (of client id, or
// every client's below 0).
func (d *TimelineCells) withoutStore(h *sim.History, limiters int, id int32) {
	if h.HasWithoutStore() {
		d.WithoutStore = d.perCell(h, limiters, id, h.WithoutStore)
	}
}

// perCell is count's figures for each limiter under each cell: count
// adds, for the history's records from to to, those of client id (every
// client's below 0) into out, a figure a limiter.
func (d *TimelineCells) perCell(h *sim.History, limiters int, id int32, count func(from, to int64, id int32, out []int64)) [][]int64 {
	cell := algo.Instant(d.Cell / time.Millisecond)
	out := make([][]int64, len(d.Total))
	for i := range out {
		out[i] = make([]int64, limiters)
		from := d.First + algo.Instant(i)*cell
		count(h.FirstAtOrAfter(from), h.FirstAtOrAfter(from+cell), id, out[i])
	}
	return out
}
