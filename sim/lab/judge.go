package lab

import (
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
	w       int64
	wf      float64
	log     *algo.DenseSlidingLog
	counter *algo.DenseSlidingCounter
	fixed   *algo.DenseFixedWindow
	raw     algo.InstantQueue // every request of the source in (t − W, t], unless the log holds them
	logsAll bool              // the log stores every request (its rules count rejected ones)

	src Totals // this source's tallies
	// trace, when set, sees every decision: for the test that compares
	// the lab with the engine.
	trace func(t algo.Instant, exact, counter, fixed algo.Verdict)
}

func newJudge(c algo.Config) *judge {
	w := int64(c.Window / time.Millisecond)
	return &judge{
		w: w, wf: float64(w),
		log:     algo.NewDenseSlidingLog(c, 1),
		counter: algo.NewDenseSlidingCounter(c, 1),
		fixed:   algo.NewDenseFixedWindow(c, 1),
		logsAll: c.Rules.CountRejected,
	}
}

// begin starts a new source.
func (j *judge) begin() {
	j.log.Forget(0)
	j.counter.Forget(0)
	j.fixed.Forget(0)
	j.raw.Reset()
	j.src = Totals{}
}

// decide is one request of the source at t, its instants non-decreasing.
func (j *judge) decide(t algo.Instant) {
	s := &j.src
	s.Requests++
	exact := j.log.Allow(t, 0)
	if j.logsAll {
		// The log holds every request of the window: it has counted them.
		s.Peak = max(s.Peak, exact.Count+1)
	} else {
		j.raw.DropThrough(t - algo.Instant(j.w))
		j.raw.Push(t)
		s.Peak = max(s.Peak, j.raw.Len())
	}
	if !exact.Allowed {
		s.ExactLimited++
	}
	c := j.counter.Allow(t, 0)
	f := j.fixed.Allow(t, 0)
	if j.trace != nil {
		j.trace(t, exact, c, f)
	}

	a := &s.Approx[counterIdx]
	if exact.Count > 0 {
		// estimate = current + previous × (W − elapsed) / W, for the figure only:
		// the decision was taken exactly.
		est := float64(c.Count) + float64(c.Previous)*(j.wf-float64(c.Elapsed))/j.wf
		a.RelativeSum += relative(est, exact.Count)
		a.RelativeCount++
	}
	tally(a, exact.Allowed, c.Allowed)

	a = &s.Approx[fixedIdx]
	if exact.Count > 0 {
		a.RelativeSum += relative(float64(f.Count), exact.Count)
		a.RelativeCount++
	}
	tally(a, exact.Allowed, f.Allowed)
}

func relative(estimate float64, exact int64) float64 {
	d := estimate - float64(exact)
	if d < 0 {
		d = -d
	}
	return d / float64(exact)
}

func tally(a *ApproxTotals, exact, approx bool) {
	if approx {
		if !exact {
			a.WronglyAllowed++
		}
		return
	}
	a.Limited++
	if exact {
		a.WronglyLimited++
	}
}

// end classifies the finished source and adds its tallies to t.
func (j *judge) end(t *Totals) {
	s := &j.src
	s.Sources = 1
	if s.Requests > 0 {
		s.ActiveSources = 1
	}
	above := s.ExactLimited > 0
	if above {
		s.SourcesAbove = 1
	}
	for i := range s.Approx {
		a := &s.Approx[i]
		switch {
		case above && a.Limited == 0:
			a.AllowedAbove, a.PeakAllowedAbove = 1, s.Peak
		case !above && a.Limited > 0:
			a.LimitedBelow = 1
		}
	}
	t.add(s)
}
