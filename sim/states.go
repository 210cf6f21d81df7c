package sim

import (
	"slices"
	"time"

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
	// Apart[k] is set when limiter k has no total over clients to chart
	// (TotalsAt): the token bucket, a limiter whose windows are each
	// client's own (algo.Algorithm.ClientWindows).
	Apart []bool
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
	r, ok := e.replayStart(at[0], budget, cur)
	if !ok {
		s.TooMany, s.Known = true, 0
		return s
	}
	s.Decisions = make([][]algo.Decision, len(at))
	s.Lo, s.Hi = make([][]algo.Decision, len(at)), make([][]algo.Decision, len(at))
	var sp *span // the range of the column being read; nil before the first
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
			own := r.next.Client == client && sp != nil
			if own {
				sp.peek(r.ls, r.next.At, client)
			}
			for _, l := range r.ls {
				l.Allow(r.next.At, r.next.Client)
			}
			if own {
				sp.peek(r.ls, r.next.At, client)
			}
			r.n++
			s.Replayed++
			r.next, r.hasNext = r.src.Next()
		}
		row := make([]algo.Decision, len(r.ls))
		for k, l := range r.ls {
			row[k] = l.Peek(t, client)
		}
		if sp == nil {
			sp = newSpan(row)
		}
		sp.widen(row)
		s.Decisions[i], s.Lo[i], s.Hi[i] = row, sp.lo, sp.hi
		sp = newSpan(row) // the next range starts here
	}
	if cur != nil && at[s.Known-1] < e.now {
		*cur = StatesCursor{ls: r.ls, src: r.src, next: r.next, hasNext: r.hasNext, n: r.n, at: at[s.Known-1], ok: true}
	}
	return s
}

// replayStart is where a replay reading states from at0 on starts: the
// cursor when it is no later than at0 and no earlier than the checkpoint,
// else a copy of the latest checkpoint before at0; false when that would
// replay more than budget arrivals to reach the engine's position.
func (e *Engine) replayStart(at0 algo.Instant, budget int64, cur *StatesCursor) (replayState, bool) {
	cp := &e.checkpoints[0]
	for i := len(e.checkpoints) - 1; i > 0; i-- {
		c := &e.checkpoints[i]
		if c.n <= e.n && (!c.hasLast || c.last.Arrival.At <= at0) {
			cp = c
			break
		}
	}
	if cur != nil && cur.ok && cur.at <= at0 && cur.n <= e.n && cur.n >= cp.n && e.n-cur.n <= budget {
		cur.ok = false // taken: the replay moves it on
		return replayState{ls: cur.ls, src: cur.src, next: cur.next, hasNext: cur.hasNext, n: cur.n}, true
	}
	if e.n-cp.n > budget {
		return replayState{}, false
	}
	r := replayState{ls: cp.limiters, src: cp.src, next: cp.next, hasNext: cp.hasNext, n: cp.n}
	return r.clone(), true
}

// span is each limiter's least and greatest decision over a stretch.
type span struct{ lo, hi []algo.Decision }

func newSpan(row []algo.Decision) *span { return &span{slices.Clone(row), slices.Clone(row)} }

// widen takes in one decision of each limiter.
func (s *span) widen(row []algo.Decision) {
	for k, d := range row {
		if less(d, s.lo[k]) {
			s.lo[k] = d
		}
		if less(s.hi[k], d) {
			s.hi[k] = d
		}
	}
}

// peek widens the span by what a request from client at t would meet.
func (s *span) peek(ls []algo.Limiter, t algo.Instant, client string) {
	for k, l := range ls {
		d := l.Peek(t, client)
		if less(d, s.lo[k]) {
			s.lo[k] = d
		}
		if less(s.hi[k], d) {
			s.hi[k] = d
		}
	}
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
// the sliding counter's estimate, the token bucket's tokens; the segmented
// window's count in its S segments.
func StateRat(d algo.Decision) (num, den int64) {
	switch d.Kind {
	case algo.KindSlidingCounter:
		return d.EstimateRat()
	case algo.KindTokenBucket:
		return d.TokensRat()
	}
	return d.Count, 1
}

// TotalsAt is States for every client together: each window limiter's
// count (or estimate) summed over the clients, from the history's counts
// of what it admitted (every request, under Rules.CountRejected) in the
// window that counts. The sliding counter's estimate is linear in its
// counts, so its total is the same weighted sum of the totals. A column's
// range counts its ends and, at each window edge inside it, the state
// before the edge's own requests (the fixed window's reset). The token
// bucket, whose tokens have no sum to compare with a limit, and a limiter
// whose windows are each client's own (a fixed window or sliding counter
// from the client's first request) are Apart. Without a
// history (Options.History) nothing is Known. Its cost is a few searches
// of the history per instant.
func (e *Engine) TotalsAt(at []algo.Instant) States {
	s := States{At: at, Apart: make([]bool, len(e.limiters))}
	if !e.opts.History {
		return s
	}
	for s.Known < len(at) && at[s.Known] <= e.now {
		s.Known++
	}
	algos := make([]algo.Algorithm, len(e.limiters))
	for k, l := range e.limiters {
		algos[k] = algo.Of(l)
		s.Apart[k] = algos[k].Kind == algo.KindTokenBucket || algos[k].ClientWindows()
	}
	w := algo.Instant(e.window / time.Millisecond)
	h := e.history
	// counts are the requests each limiter counts with At in [from, to].
	counts := func(from, to algo.Instant) []int64 {
		i, j := h.FirstAtOrAfter(from), h.FirstAtOrAfter(to+1)
		out := make([]int64, len(e.limiters))
		h.Allowed(i, j, out)
		for k, a := range algos {
			if a.Rules.CountRejected {
				out[k] = max(j-i, 0)
			}
		}
		return out
	}
	// totals at t, with t's own requests counted or (before) not.
	totals := func(t algo.Instant, before bool) []algo.Decision {
		upto := t
		if before {
			upto--
		}
		ws := e.cfg.WindowStart(t)
		cur, win, prev := counts(ws, upto), counts(t-w+1, upto), counts(ws-w, ws-1)
		row := make([]algo.Decision, len(e.limiters))
		for k, a := range algos {
			d := algo.Decision{Kind: a.Kind, At: t, Rules: a.Rules, Limit: e.cfg.Limit, Window: e.window, WindowStart: ws}
			switch a.Kind {
			case algo.KindFixedWindow:
				d.Count = cur[k]
			case algo.KindSlidingLog:
				d.Count = win[k]
			case algo.KindSlidingCounter:
				d.Count, d.Previous, d.Elapsed = cur[k], prev[k], t.Sub(ws)
			case algo.KindSegmentedWindow:
				d = e.segmentedTotal(d, counts, k, upto)
			}
			row[k] = d
		}
		return row
	}
	s.Decisions = make([][]algo.Decision, len(at))
	s.Lo, s.Hi = make([][]algo.Decision, len(at)), make([][]algo.Decision, len(at))
	for i, t := range at[:s.Known] {
		row := totals(t, false)
		sp := newSpan(row)
		if i > 0 {
			sp.widen(s.Decisions[i-1])
			// At most a few dozen edges a column: zoomed far out, the resets
			// are too many to tell apart anyway.
			for edge, n := e.cfg.NextEdge(at[i-1]), 0; edge <= t && n < 48; edge, n = e.cfg.NextEdge(edge), n+1 {
				sp.widen(totals(edge, true))
			}
			for _, edge := range e.segmentEdges(algos, at[i-1], t) {
				sp.widen(totals(edge, true))
			}
		}
		s.Decisions[i], s.Lo[i], s.Hi[i] = row, sp.lo, sp.hi
	}
	return s
}

// segmentedTotal is the segmented window's total at d.At over the
// clients: what it counts in the S segments ending with d.At's, up to upto.
func (e *Engine) segmentedTotal(d algo.Decision, counts func(from, to algo.Instant) []int64, k int, upto algo.Instant) algo.Decision {
	c := e.cfg
	c.Window = e.window
	n := c.SegmentCount()
	c.Window /= time.Duration(n) // one segment: its edges are the calendar's of W/S
	c.Offset %= c.Window
	d.WindowStart, d.Segments = c.WindowStart(d.At), n
	from := d.WindowStart.Add(-time.Duration(n-1) * c.Window)
	d.Count = counts(from, upto)[k]
	d.Previous = counts(from, min(from.Add(c.Window)-1, upto))[k]
	return d
}

// segmentEdges are the segment edges in (from, to] of the segmented
// windows among algos, at most a few dozen: where their totals drop.
func (e *Engine) segmentEdges(algos []algo.Algorithm, from, to algo.Instant) []algo.Instant {
	if !slices.ContainsFunc(algos, func(a algo.Algorithm) bool { return a.Kind == algo.KindSegmentedWindow }) {
		return nil
	}
	c := e.cfg
	c.Window = e.window / time.Duration(c.SegmentCount())
	c.Offset %= c.Window
	var edges []algo.Instant
	for edge := c.NextEdge(from); edge <= to && len(edges) < 48; edge = c.NextEdge(edge) {
		edges = append(edges, edge)
	}
	return edges
}
