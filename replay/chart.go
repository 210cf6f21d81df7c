package replay

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim/report"
)

// chartWidth is how many buckets the sweep's chart has at most: its rows
// fit report.Width, with a label of the lesson's limiters under their
// setting.
const chartWidth = 52

// bucketOf is the chart's bucket: the first of the steps below that makes
// the log's span fit chartWidth buckets.
func bucketOf(l *accesslog.Log) time.Duration { return bucketFor(l.First(), l.Last()) }

// bucketFor is bucketOf for a log from first to last.
func bucketFor(first, last algo.Instant) time.Duration {
	span := last.Sub(first)
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour} {
		if span/d < chartWidth {
			return d
		}
	}
	day := 24 * time.Hour
	return (span/chartWidth/day + 1) * day // whole days, for a log of years
}

// bucketIndex is the chart's bucket of instant t.
func bucketIndex(l *accesslog.Log, bucket time.Duration, t algo.Instant) int {
	return min(int(t.Sub(l.First().Truncate(bucket))/bucket), chartWidth-1)
}

// printChart draws, for the log and for each limiter and setting, the
// requests allowed in each bucket of time as a line of bars, all on one
// scale (the log's busiest bucket is a full bar): where a limiter cuts
// the traffic shows as a dip under the log's own line.
func printChart(w io.Writer, l *accesslog.Log, rows []Outcome) {
	bucket := bucketOf(l)
	used := bucketIndex(l, bucket, l.Last()) + 1
	bars := []rune(" ▁▂▃▄▅▆▇█")
	line := func(counts []int64, top int64) string {
		var b strings.Builder
		for _, n := range counts[:used] {
			level := 0
			if n > 0 && top > 0 {
				level = max(1, int((n*int64(len(bars)-1)+top-1)/top)) // any request shows; the busiest is full
			}
			b.WriteRune(bars[level])
		}
		return b.String()
	}
	from, to := l.First().Truncate(bucket), l.First().Truncate(bucket).Add(time.Duration(used)*bucket)
	// Counted as the rows were decided: a streamed log keeps no request.
	sent := rows[0].sent.sum(from, bucket, chartWidth)
	width := len("sent (the log)")
	for _, o := range rows {
		width = max(width, len(rowIndent)+utf8.RuneCountInString(o.stats.Algorithm.Title()))
	}
	// Each row under its setting, as in the table.
	rowsOf := func(counts [][]int64, top int64) {
		for i, o := range rows {
			if i == 0 || o.settingText() != rows[i-1].settingText() {
				fmt.Fprintf(w, "  %s\n", o.settingText())
			}
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %-*s %s", width, rowIndent+o.stats.Algorithm.Title(), line(counts[i], top)), " "))
		}
	}
	top := slices.Max(sent)
	io.WriteString(w, "\n"+human.Wrap("", "  ", fmt.Sprintf("allowed per %s, %s %s the log's busiest %s):",
		human.Duration(bucket), human.Glue(algo.Range(from, to)+" UTC"), human.Glue("(a full bar: "+requestsNoun.Of(top)+","), human.Duration(bucket)), report.Width))
	fmt.Fprintf(w, "  %-*s %s\n", width, "sent (the log)", line(sent, top))
	allowed := make([][]int64, len(rows))
	for i, o := range rows {
		allowed[i] = o.allowed.sum(from, bucket, chartWidth)
	}
	rowsOf(allowed, top)
	denied := make([][]int64, len(rows))
	var most int64
	for i := range rows {
		denied[i] = make([]int64, chartWidth)
		for b := range used {
			denied[i][b] = sent[b] - allowed[i][b]
			most = max(most, denied[i][b])
		}
	}
	if most == 0 {
		return
	}
	fmt.Fprintf(w, "denied per %s (a full bar: %s):\n", human.Duration(bucket), requestsNoun.Of(most))
	rowsOf(denied, most)
}

// histogram counts requests by when they came, in spans that grow as the
// log does (a minute, then 5 and 15 minutes, an hour, 3, 6 and 24 hours:
// each a whole number of the one before, aligned as Truncate aligns), so
// that it needs no span known beforehand: a log still being read. Any
// chart bucket of bucketOf at least as long as its span is a whole number
// of them.
type histogram struct {
	from   algo.Instant // the first span's start
	span   int          // index in histogramSpans
	counts []int64
	// The span last counted in, counts[at], is [lo, hi): a log in order
	// counts most requests there, with no division (a pass adds each
	// request to a histogram a limiter that allowed it).
	lo, hi algo.Instant
	at     int
}

var histogramSpans = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 24 * time.Hour}

// histogramMax is how many spans a histogram holds before it widens them
// (past days, it only grows: a span of years is still a few thousand).
const histogramMax = 4096

// add counts a request at t, no earlier than the first one counted.
func (h *histogram) add(t algo.Instant) {
	if t >= h.lo && t < h.hi {
		h.counts[h.at]++
		return
	}
	h.addN(t, 1)
}

// addN counts n requests at t, no earlier than the first one counted.
func (h *histogram) addN(t algo.Instant, n int64) {
	width := histogramSpans[h.span]
	if h.counts == nil {
		h.from = t.Truncate(width)
	}
	i := int(t.Sub(h.from) / width)
	for i >= histogramMax && h.span < len(histogramSpans)-1 {
		h.widen()
		width = histogramSpans[h.span]
		i = int(t.Sub(h.from) / width)
	}
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i] += n
	h.at, h.lo = i, h.from.Add(time.Duration(i)*width)
	h.hi = h.lo.Add(width)
}

// plus is h and o as one histogram: what one would be that had counted
// the requests of both. Their spans are counted into it in the order they
// start, each at its start: it widens to span as long a time as both do,
// so its spans are at least as long as theirs, and each of theirs lies in
// one of its (histogramSpans nest and align).
func (h histogram) plus(o histogram) histogram {
	var m histogram
	wh, wo := histogramSpans[h.span], histogramSpans[o.span]
	for i, j := 0, 0; i < len(h.counts) || j < len(o.counts); {
		var at algo.Instant
		var n int64
		if hi := h.from.Add(time.Duration(i) * wh); i < len(h.counts) && (j == len(o.counts) || hi <= o.from.Add(time.Duration(j)*wo)) {
			at, n = hi, h.counts[i]
			i++
		} else {
			at, n = o.from.Add(time.Duration(j)*wo), o.counts[j]
			j++
		}
		if n > 0 {
			m.addN(at, n)
		}
	}
	return m
}

// widen moves the counts to the next, longer span.
func (h *histogram) widen() {
	old, oldFrom, oldWidth := h.counts, h.from, histogramSpans[h.span]
	h.span++
	width := histogramSpans[h.span]
	h.from = oldFrom.Truncate(width)
	h.counts = nil
	for i, n := range old {
		j := int(oldFrom.Add(time.Duration(i)*oldWidth).Sub(h.from) / width)
		if j >= len(h.counts) {
			h.counts = append(h.counts, make([]int64, j+1-len(h.counts))...)
		}
		h.counts[j] += n
	}
}

// sum is the counts in buckets of bucket from from (from aligned to
// bucket, no later than the first request), the last one taking all after
// it, as bucketIndex places them.
func (h *histogram) sum(from algo.Instant, bucket time.Duration, buckets int) []int64 {
	out := make([]int64, buckets)
	width := histogramSpans[h.span]
	for i, n := range h.counts {
		at := h.from.Add(time.Duration(i) * width)
		out[min(int(at.Sub(from)/bucket), buckets-1)] += n
	}
	return out
}
