package lab

import (
	"math"
	"time"

	"windowlab/algo"
)

// The approximations the lab measures against the exact log, in report order.
var Approximations = []algo.Kind{algo.KindSlidingCounter, algo.KindFixedWindow}

const (
	counterIdx = iota
	fixedIdx
)

// Totals are the lab's integer tallies (and one sum of fractions), added up
// source by source.
type Totals struct {
	Sources       int64 // sources decided to the end
	ActiveSources int64 // of which sent at least one request
	Requests      int64 // their requests
	// ExactLimited is how many requests the exact log limited.
	ExactLimited int64
	// SourcesAbove is how many sources are above the threshold: the exact
	// log limited at least one of their requests.
	SourcesAbove int64
	// Peak is the most requests any source sent in one window, (t − W, t].
	Peak   int64
	Approx [2]ApproxTotals // sliding counter, fixed window
}

// ApproxTotals are one approximation's tallies against the exact log.
type ApproxTotals struct {
	Limited        int64 // requests it limited
	WronglyAllowed int64 // requests it allowed that the log limited
	WronglyLimited int64 // requests it limited that the log allowed
	// RelativeSum and RelativeCount make the mean relative difference
	// |estimate − exact| / exact over the decisions where exact > 0.
	RelativeSum   float64
	RelativeCount int64
	// AllowedAbove is how many sources above the threshold it never limited.
	AllowedAbove int64
	// PeakAllowedAbove is the most requests one of those sent in one window.
	PeakAllowedAbove int64
	// LimitedBelow is how many sources the log never limited that it did.
	LimitedBelow int64
}

func (t *Totals) add(u *Totals) {
	t.Sources += u.Sources
	t.ActiveSources += u.ActiveSources
	t.Requests += u.Requests
	t.ExactLimited += u.ExactLimited
	t.SourcesAbove += u.SourcesAbove
	t.Peak = max(t.Peak, u.Peak)
	for i := range t.Approx {
		a, b := &t.Approx[i], &u.Approx[i]
		a.Limited += b.Limited
		a.WronglyAllowed += b.WronglyAllowed
		a.WronglyLimited += b.WronglyLimited
		a.RelativeSum += b.RelativeSum
		a.RelativeCount += b.RelativeCount
		a.AllowedAbove += b.AllowedAbove
		a.PeakAllowedAbove = max(a.PeakAllowedAbove, b.PeakAllowedAbove)
		a.LimitedBelow += b.LimitedBelow
	}
}

// judge decides one source's requests with the exact log and the two
// approximations, and tallies where they differ. It holds one client id of
// each dense limiter, forgotten between sources.
type judge struct {
	w        int64
	wf       float64
	log      *algo.DenseSlidingLog
	counterL *algo.DenseSlidingCounter
	fixedL   *algo.DenseFixedWindow
	raw      algo.InstantRing // every request of the source in (t − W, t], unless the log holds them
	logsAll  bool             // the log stores every request (its rules count rejected ones)

	// This source's tallies, kept without a branch a request (whether a
	// request is allowed, or the first in a while, follows no pattern a
	// processor could predict): its requests by the three verdicts
	// (exact | counter<<1 | fixed<<2, 1 for allowed), those with an exact
	// count, and the sums of relative differences.
	verdicts [8]int64
	counted  int64
	relative [2]float64
	peak     int64
	requests int64

	// The verdicts of the requests being tallied.
	exact, counter, fixed [arrivalBlock]algo.Verdict
	// over[k] is 1/(k·W), 0 for k = 0: the usual exact counts' divisor.
	over [1024]float64

	// trace, when set, sees every decision: for the test that compares
	// the lab with the engine.
	trace func(t algo.Instant, exact, counter, fixed algo.Verdict)
}

func newJudge(c algo.Config) *judge {
	w := int64(c.Window / time.Millisecond)
	j := &judge{
		w: w, wf: float64(w),
		log:      algo.NewDenseSlidingLog(c, 1),
		counterL: algo.NewDenseSlidingCounter(c, 1),
		fixedL:   algo.NewDenseFixedWindow(c, 1),
		logsAll:  c.Rules.CountRejected,
	}
	for k := 1; k < len(j.over); k++ {
		j.over[k] = 1 / (float64(k) * j.wf)
	}
	return j
}

// begin starts a new source.
func (j *judge) begin() {
	j.log.Forget(0)
	j.counterL.Forget(0)
	j.fixedL.Forget(0)
	j.raw.Reset()
	j.verdicts, j.counted, j.relative, j.peak, j.requests = [8]int64{}, 0, [2]float64{}, 0, 0
}

// decide is one request of the source at t, its instants non-decreasing.
func (j *judge) decide(t algo.Instant) {
	j.decideEach([]algo.Instant{t})
}

// decideEach is the source's next requests, at ts (non-decreasing, at most
// arrivalBlock of them): each limiter decides them all, then they are
// tallied.
func (j *judge) decideEach(ts []algo.Instant) {
	n := len(ts)
	exact, counter, fixed := j.exact[:n], j.counter[:n], j.fixed[:n]
	j.log.AllowEach(ts, 0, exact)
	j.counterL.AllowEach(ts, 0, counter)
	j.fixedL.AllowEach(ts, 0, fixed)
	j.requests += int64(n)
	// The tallies in locals for the loop, stored back after it.
	w, wf, over := j.w, j.wf, &j.over
	peak, counted, rc, rf := j.peak, j.counted, j.relative[counterIdx], j.relative[fixedIdx]
	verdicts := &j.verdicts
	for i, t := range ts {
		exact, c, f := &exact[i], &counter[i], &fixed[i]
		if j.logsAll {
			// The log holds every request of the window: it has counted them.
			peak = max(peak, exact.Count+1)
		} else {
			j.raw.DropThrough(t - algo.Instant(w))
			j.raw.Push(t)
			peak = max(peak, j.raw.Len())
		}
		if j.trace != nil {
			j.trace(t, *exact, *c, *f)
		}
		verdicts[bit(exact.Allowed)|bit(c.Allowed)<<1|bit(f.Allowed)<<2]++

		// |estimate − exact| / exact for both, where the exact count k is not
		// 0: |estimate·W − k·W| / k·W, with the counter's estimate·W =
		// current·W + previous·(W − elapsed), for the figure only (the
		// decision was taken exactly), and the fixed window's count·W. The
		// usual case in integers, over k·W from a table (0 for k = 0).
		k := exact.Count
		if uint64(k) < uint64(len(over)) && uint64(c.Count|c.Previous|f.Count) < 1<<30 {
			// Below 2^30 each, times W below 2^30: no product overflows.
			dc := c.Count*w + c.Previous*(w-c.Elapsed) - k*w
			df := (f.Count - k) * w
			rc += float64(abs(dc)) * over[k]
			rf += float64(abs(df)) * over[k]
		} else {
			e := float64(k) * wf
			est := float64(c.Count)*wf + float64(c.Previous)*float64(w-c.Elapsed)
			rc += math.Abs(est-e) * (1 / e)
			rf += math.Abs(float64(f.Count)*wf-e) * (1 / e)
		}
		counted += bit(k > 0)
	}
	j.peak, j.counted, j.relative[counterIdx], j.relative[fixedIdx] = peak, counted, rc, rf
}

// abs is |x|, without a branch on its sign.
func abs(x int64) int64 {
	m := x >> 63
	return (x ^ m) - m
}

// bit is 1 for true, 0 for false.
func bit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// end classifies the finished source and adds its tallies to t.
func (j *judge) end(t *Totals) {
	s := Totals{Sources: 1, Requests: j.requests, Peak: j.peak}
	if s.Requests > 0 {
		s.ActiveSources = 1
	}
	for v, n := range j.verdicts {
		exact, counter, fixed := v&1 != 0, v&2 != 0, v&4 != 0
		if !exact {
			s.ExactLimited += n
		}
		for i, approx := range [2]bool{counter, fixed} {
			a := &s.Approx[i]
			switch {
			case !approx:
				a.Limited += n
				if exact {
					a.WronglyLimited += n
				}
			case !exact:
				a.WronglyAllowed += n
			}
		}
	}
	above := s.ExactLimited > 0
	if above {
		s.SourcesAbove = 1
	}
	for i := range s.Approx {
		a := &s.Approx[i]
		a.RelativeSum, a.RelativeCount = j.relative[i], j.counted
		switch {
		case above && a.Limited == 0:
			a.AllowedAbove, a.PeakAllowedAbove = 1, s.Peak
		case !above && a.Limited > 0:
			a.LimitedBelow = 1
		}
	}
	t.add(&s)
}
