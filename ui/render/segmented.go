package render

import (
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// segmentNoun counts the segmented window's segments.
var segmentNoun = human.Noun{One: "segment", Many: "segments"}

// segmentEnds are the labels either side of the segmented window's strip:
// its S segments, [first start, current end).
func segmentEnds(d algo.Decision) (left, right string) {
	return "[" + d.SegmentsFrom().Short() + " ", " " + d.SegmentEnd().Short() + ")"
}

// segmentCells is how many cells wide the segmented window's strip is.
func (p Lanes) segmentCells(d algo.Decision) int {
	left, right := segmentEnds(d)
	return max(p.laneTextWidth()-p.C.Cells.StringWidth(left)-p.C.Cells.StringWidth(right)-2, 4)
}

// segmentStrip draws the segments' counts, oldest first, as numbers
// between bars when they fit in cells (the oldest, which leaves the window
// next, faint-bracketed; the current one bold), otherwise as the log's
// density cells.
func segmentStrip(st *Styles, counts []int64, d algo.Decision, cells int) string {
	if int64(len(counts)) != d.Segments || d.Segments == 0 {
		return logStripOf(st, counts, cells, algo.KindSegmentedWindow)
	}
	texts := make([]string, len(counts))
	width := len(counts) - 1
	for i, n := range counts {
		texts[i] = strconv.FormatInt(n, 10)
		width += len(texts[i])
	}
	if width > cells {
		return logStripOf(st, counts, cells, algo.KindSegmentedWindow)
	}
	// Each number centred in an equal share of the cells.
	share := (cells - (len(counts) - 1)) / len(counts)
	ink := st.kindPlain(int(algo.KindSegmentedWindow))
	var b strings.Builder
	for i, t := range texts {
		if i > 0 {
			b.WriteString(st.Faint.Render("│"))
		}
		pad := max(share-len(t), 0)
		cell := strings.Repeat(" ", pad/2) + t + strings.Repeat(" ", pad-pad/2)
		switch {
		case i == len(texts)-1:
			b.WriteString(st.Value.Render(cell))
		case counts[i] == 0:
			b.WriteString(st.Faint.Render(cell))
		default:
			b.WriteString(ink.Render(cell))
		}
	}
	return b.String()
}

// segmentedFields show the segmented window's S segments with their
// counts, which ones the window holds, the sum against the limit, and
// when the oldest segment, with its count, leaves.
func (p Lanes) segmentedFields(d algo.Decision, window []int64) []field {
	st := p.C.Styles
	if window == nil {
		window = make([]int64, min(d.Segments, int64(p.segmentCells(d))))
	}
	left, right := segmentEnds(d)
	cells := segmentStrip(st, window, d, p.segmentCells(d))
	strip := left + "▕" + cells + "▏" + right
	count := human.Int(d.Count) + "/" + human.Int(d.Limit)
	if d.Count >= d.Limit {
		count = st.Full.Render(count + " full")
	} else {
		count = st.Value.Render(count)
	}
	held := p.bar(d.Count, d.Limit, true) + " " + count + st.Label.Render(" in "+glue(segmentNoun.Of(d.Segments)+" of "+human.Duration(d.Segment())))
	leaves := p.segmentLeaves(d, window)
	if d.Segments == 1 {
		leaves = st.Label.Render("resets in"+NoBreak) + human.Duration(d.SegmentEnd().Sub(d.At))
	}
	return []field{
		{"now", strip, 0},
		{"", held + p.sep() + leaves, 0},
		{"", p.ifNow(d), 3},
	}
}

// segmentLeaves says when the oldest segment with a count leaves the
// window, and what it frees: segment i of the S leaves at the end of the
// current one plus i segments.
func (p Lanes) segmentLeaves(d algo.Decision, window []int64) string {
	st := p.C.Styles
	seg := d.Segment()
	i := 0
	if int64(len(window)) == d.Segments {
		for i < len(window) && window[i] == 0 {
			i++
		}
	}
	switch {
	case d.Count == 0:
		return st.Faint.Render("nothing to leave")
	case i == len(window) || int64(len(window)) != d.Segments: // aggregated: the oldest segment's own count
		return st.Label.Render("oldest segment holds ") + human.Int(d.Previous) + st.Label.Render(", leaves in"+NoBreak) + human.Duration(d.SegmentEnd().Sub(d.At))
	}
	from := d.SegmentsFrom().Add(time.Duration(i) * seg)
	leaves := d.SegmentEnd().Add(time.Duration(i) * seg)
	return st.Label.Render("oldest count ") + human.Int(window[i]) + st.Label.Render(" ("+glue(algo.Range(from, from.Add(seg)))+") leaves in"+NoBreak) +
		human.Duration(leaves.Sub(d.At))
}

// isSegmentEdge reports whether an edge between two of the segments
// limiter k's window holds now falls in cell i, when it is a segmented
// window whose segments span at least two cells (window edges are drawn
// on every row already).
func (p Timeline) isSegmentEdge(i, k int) bool {
	d := p.Snap.Peek[k]
	if d.Kind != algo.KindSegmentedWindow || d.Segments <= 1 {
		return false
	}
	cell := p.CellMs()
	seg := algo.Instant(d.Segment() / time.Millisecond)
	if seg < 2*cell {
		return false
	}
	c := p.Snap.Config
	c.Window = d.Segment()
	c.Offset %= c.Window
	start := p.Start(i)
	edge := c.WindowStart(start + cell - 1)
	// Only the edges of the segments the window holds now: the strip's.
	return edge >= start && edge > d.SegmentsFrom() && edge < d.SegmentEnd()
}
