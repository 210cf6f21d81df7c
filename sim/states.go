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

// StatesCursor is where a StatesAt left its copies of the limiters: at
// the last instant it read before the clock, every arrival up to it
// decided. A later StatesAt of the same engine whose first instant is not
// before it goes on from there instead of from a checkpoint, so that a
// chart following the clock replays only what is new. The zero value is
// empty.
type StatesCursor struct {
	ls      []algo.Limiter
	src     Source
	next    Arrival
	hasNext bool
	n       int64
	at      algo.Instant
	ok      bool
}

// replayState is a replay of copies of the limiters.
type replayState struct {
	ls      []algo.Limiter
	src     Source
	next    Arrival
	hasNext bool
	n       int64
}

func (r *replayState) clone() replayState {
	c := replayState{ls: make([]algo.Limiter, len(r.ls)), src: r.src.Clone(), next: r.next, hasNext: r.hasNext, n: r.n}
	for k, l := range r.ls {
		c.ls[k] = l.Clone()
	}
	return c
}

// StatesAt is each limiter's state for client at every instant of at
// (ascending) up to the clock. It decides again, on copies of the
// limiters, the arrivals from the latest checkpoint before at[0] (or from
// cur, when it is no later) to the engine's position, peeking at each
// instant: the engine itself does not move. Its cost is the arrivals
// replayed (at most budget, else TooMany and nothing computed), a copy of
// the limiters, and a Peek per instant and limiter (and two per request
// of client's replayed, for the ranges). With cur non-nil, it is left at
// the last instant read before the clock.
func (e *Engine) StatesAt(client string, at []algo.Instant, budget int64, cur *StatesCursor) States {
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
	var r replayState
	switch {
	case cur != nil && cur.ok && cur.at <= at[0] && cur.n <= e.n && cur.n >= cp.n:
		r = replayState{ls: cur.ls, src: cur.src, next: cur.next, hasNext: cur.hasNext, n: cur.n}
		cur.ok = false // taken: the replay moves it on
	case e.n-cp.n > budget:
		s.TooMany, s.Known = true, 0
		return s
	default:
		r = replayState{ls: cp.limiters, src: cp.src, next: cp.next, hasNext: cp.hasNext, n: cp.n}
		r = r.clone()
	}
	if e.n-r.n > budget {
		s.TooMany, s.Known = true, 0
		return s
	}
	s.Decisions = make([][]algo.Decision, len(at))
	s.Lo, s.Hi = make([][]algo.Decision, len(at)), make([][]algo.Decision, len(at))
	var lo, hi []algo.Decision
	widen := func(ds []algo.Decision, peek bool) {
		for k, l := range r.ls {
			var d algo.Decision
			if peek {
				d = l.Peek(r.next.At, client)
			} else {
				d = ds[k]
			}
			if less(d, lo[k]) {
				lo[k] = d
			}
			if less(hi[k], d) {
				hi[k] = d
			}
		}
	}
	for i, t := range at[:s.Known] {
		if cur != nil && t >= e.now && i > 0 && at[i-1] < e.now {
			// Past the last instant before the clock: leave the cursor there.
			*cur = StatesCursor{ls: r.ls, src: r.src, next: r.next, hasNext: r.hasNext, n: r.n, at: at[i-1], ok: true}
			r = r.clone()
		}
		// Only the client's own requests change its state by a step; in
		// between it only falls (timestamps leave, the previous window's
		// weight shrinks) or, for the bucket, only rises: its extremes are
		// where the range starts, just before and after each of its
		// requests, and at t.
		for r.hasNext && r.n < e.n && r.next.At <= t {
			own := r.next.Client == client
			if own && lo != nil {
				widen(nil, true)
			}
			for _, l := range r.ls {
				l.Allow(r.next.At, r.next.Client)
			}
			if own && lo != nil {
				widen(nil, true)
			}
			r.n++
			s.Replayed++
			r.next, r.hasNext = r.src.Next()
		}
		row := make([]algo.Decision, len(r.ls))
		for k, l := range r.ls {
			row[k] = l.Peek(t, client)
		}
		if lo == nil {
			lo, hi = slices.Clone(row), slices.Clone(row)
		}
		widen(row, false)
		s.Decisions[i], s.Lo[i], s.Hi[i] = row, lo, hi
		lo, hi = slices.Clone(row), slices.Clone(row) // the next range starts here
	}
	if cur != nil && at[s.Known-1] < e.now {
		*cur = StatesCursor{ls: r.ls, src: r.src, next: r.next, hasNext: r.hasNext, n: r.n, at: at[s.Known-1], ok: true}
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
