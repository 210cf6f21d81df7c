package sim

import (
	"slices"

	"windowlab/algo"
)

// States are each limiter's state for one client at a row of instants,
// as the chart under the timeline draws them: what a request from the
// client would have been decided on at each instant, with only the
// arrivals the engine has decided by then counted. Decisions[i][k] is
// limiter k's at At[i]; the exact value is StateRat of it. Lo[i][k] and
// Hi[i][k] are the decisions with the least and the greatest value from
// At[i-1] to At[i] (both included; At[0] alone for i = 0), so that a
// change inside a column (the fixed window's reset and refill at an edge)
// shows however wide the column.
type States struct {
	At        []algo.Instant
	Decisions [][]algo.Decision
	Lo, Hi    [][]algo.Decision
	Known     int   // instants computed: those at or before the clock (a prefix of At)
	Replayed  int64 // arrivals decided again to compute them
	TooMany   bool  // the replay would exceed its budget: nothing computed
}

// StatesAt is each limiter's state for client at every instant of at
// (ascending) up to the clock. It restores copies of the limiters from the
// latest checkpoint before at[0] and decides again, on the copies, the
// arrivals from there to the engine's position, peeking at each instant:
// the engine itself does not move. Its cost is the arrivals replayed (at
// most budget, else TooMany and nothing computed) plus one Peek per
// instant and limiter.
func (e *Engine) StatesAt(client string, at []algo.Instant, budget int64) States {
	s := States{At: at}
	for s.Known < len(at) && at[s.Known] <= e.now {
		s.Known++
	}
	if s.Known == 0 {
		return s
	}
	cp := &e.checkpoints[0]
	for i := len(e.checkpoints) - 1; i > 0; i-- {
		c := &e.checkpoints[i]
		if c.n <= e.n && (!c.hasLast || c.last.Arrival.At <= at[0]) {
			cp = c
			break
		}
	}
	if e.n-cp.n > budget {
		s.TooMany = true
		s.Known = 0
		return s
	}
	ls := make([]algo.Limiter, len(cp.limiters))
	for k, l := range cp.limiters {
		ls[k] = l.Clone()
	}
	src, next, hasNext, n := cp.src.Clone(), cp.next, cp.hasNext, cp.n
	s.Decisions = make([][]algo.Decision, len(at))
	s.Lo, s.Hi = make([][]algo.Decision, len(at)), make([][]algo.Decision, len(at))
	var lo, hi []algo.Decision
	widen := func() { // by the state a request from client would meet now
		for k, l := range ls {
			d := l.Peek(next.At, client)
			if less(d, lo[k]) {
				lo[k] = d
			}
			if less(hi[k], d) {
				hi[k] = d
			}
		}
	}
	for i, t := range at[:s.Known] {
		// Only the client's own requests change its state by a step; in
		// between it only falls (timestamps leave, the previous window's
		// weight shrinks) or, for the bucket, only rises: its extremes are
		// where the range starts, just before and after each of its
		// requests, and at t.
		for hasNext && n < e.n && next.At <= t {
			own := next.Client == client
			if own && lo != nil {
				widen()
			}
			for _, l := range ls {
				l.Allow(next.At, next.Client)
			}
			if own && lo != nil {
				widen()
			}
			n++
			s.Replayed++
			next, hasNext = src.Next()
		}
		row := make([]algo.Decision, len(ls))
		for k, l := range ls {
			row[k] = l.Peek(t, client)
		}
		if lo == nil {
			lo, hi = slices.Clone(row), slices.Clone(row)
		}
		for k, d := range row {
			if less(d, lo[k]) {
				lo[k] = d
			}
			if less(hi[k], d) {
				hi[k] = d
			}
		}
		s.Decisions[i], s.Lo[i], s.Hi[i] = row, lo, hi
		lo, hi = slices.Clone(row), slices.Clone(row) // the next range starts here
	}
	return s
}

// less compares two decisions of one limiter by StateRat, whose
// denominator one limiter keeps (1, or its window in ms).
func less(a, b algo.Decision) bool {
	an, _ := StateRat(a)
	bn, _ := StateRat(b)
	return an < bn
}

// StateRat is the exact value a chart of limiter state draws for d, as
// num/den: the fixed window's count, the log's timestamps in the window,
// the sliding counter's estimate, the token bucket's tokens.
func StateRat(d algo.Decision) (num, den int64) {
	switch d.Kind {
	case algo.KindSlidingCounter:
		return d.EstimateRat()
	case algo.KindTokenBucket:
		return d.TokensRat()
	}
	return d.Count, 1
}
