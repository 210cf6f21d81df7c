package replay

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"windowlab/algo"
)

// The sweep's chart counts each limiter's allowed requests as they come,
// before the log's span is known, and sums them into the chart's buckets
// at the end: the same counts as placing every request in its bucket
// directly, for logs from a few minutes to years long.
func TestHistogramSumsToTheChartsBuckets(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	start := algo.Instant(time.Date(2026, 11, 30, 23, 47, 13, 0, time.UTC).UnixMilli())
	for _, span := range []time.Duration{3 * time.Minute, 59 * time.Minute, 2 * time.Hour, 50 * time.Hour, 300 * time.Hour, 9 * 24 * time.Hour, 400 * 24 * time.Hour, 20 * 365 * 24 * time.Hour} {
		var times []algo.Instant
		for range 20_000 {
			times = append(times, start.Add(time.Duration(rng.Int64N(int64(span)))))
		}
		slices.Sort(times)
		var h histogram
		for _, at := range times {
			h.add(at)
		}
		first, last := times[0], times[len(times)-1]
		bucket := bucketFor(first, last)
		from := first.Truncate(bucket)
		want := make([]int64, chartWidth)
		for _, at := range times {
			want[min(int(at.Sub(from)/bucket), chartWidth-1)]++
		}
		if got := h.sum(from, bucket, chartWidth); !slices.Equal(got, want) {
			t.Errorf("span %v, buckets of %v (counted in spans of %v):\n got %v\nwant %v", span, bucket, histogramSpans[h.span], got, want)
		}
		if len(h.counts) > histogramMax && h.span < len(histogramSpans)-1 {
			t.Errorf("span %v: %d counts of %v", span, len(h.counts), histogramSpans[h.span])
		}
	}
}

// TestHistogramPlus: two histograms, each of some of a log's requests
// (the requests every limiter allowed, and those only some did), add up to
// the one that counted them all, field for field: over spans from minutes
// to months, where each widens at its own time, or not at all.
func TestHistogramPlus(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 5))
		at := algo.Instant(1_790_000_000_000 + rng.Int64N(1_000_000_000))
		step := []int64{1_000, 60_000, 3_600_000, 86_400_000}[rng.IntN(4)]
		var all, a, b histogram
		share := rng.IntN(11) // in tenths: a's share, from none to all
		for range rng.IntN(3000) {
			at += algo.Instant(rng.Int64N(step))
			all.add(at)
			if rng.IntN(10) < share {
				a.add(at)
			} else {
				b.add(at)
			}
		}
		if got := a.plus(b); !reflect.DeepEqual(got, all) {
			t.Fatalf("seed %d: a (span %d) plus b (span %d) is\n%+v\nwant\n%+v", seed, a.span, b.span, got, all)
		}
		if got := b.plus(a); !reflect.DeepEqual(got, all) {
			t.Fatalf("seed %d: b plus a differs from a plus b", seed)
		}
	}
}
