package algo

// Dense limiters keep each client's state at an index of a slice instead of
// behind a string key: for a simulation that numbers its clients 0 … n−1,
// such as the accuracy lab (sim/lab). They decide through the same per-client
// code as the keyed limiters (fixedState.allow, counterState.allow, and for
// the log logDecides, on a ring of its timestamps rather than a queue), so a
// client's decisions are identical to the keyed limiter's for the same
// instants.
//
// Each client's instants must not go backwards; different clients are
// independent, so a caller may replay one client's whole stream, then the
// next. Nothing is swept: an idle client keeps its few bytes, and a stale
// state decides exactly as no state would. Config.NoExpiry changes nothing
// here, since it changes no decision, only what a store holds.

// Verdict is a dense limiter's answer to one request: the decision and the
// counts it was made on, the part of a Decision the accuracy lab reads.
type Verdict struct {
	Allowed bool
	// Count is what the limit was checked against, before this request: the
	// fixed window's count in its window, the log's timestamps in
	// (t − W, t], the sliding counter's current-window count.
	Count int64
	// Previous is the sliding counter's count for the window before.
	Previous int64
	// Elapsed is the sliding counter's time since its window began, in ms.
	Elapsed int64
}

// DenseFixedWindow is a FixedWindow for clients numbered 0 … n−1.
type DenseFixedWindow struct {
	limit, w, o int64
	rules       Rules
	states      []fixedState
}

// NewDenseFixedWindow returns a fixed window for clients clients; c must be
// valid (Config.Validate).
func NewDenseFixedWindow(c Config, clients int) *DenseFixedWindow {
	return &DenseFixedWindow{limit: c.Limit, w: c.windowMs(), o: c.offsetMs(), rules: c.Rules, states: make([]fixedState, clients)}
}

// Allow decides one request from client at t and records it if counted.
func (l *DenseFixedWindow) Allow(t Instant, client int) Verdict {
	_, count, allowed := l.states[client].allow(t, l.w, l.o, l.limit, l.rules)
	return Verdict{Allowed: allowed, Count: count}
}

// AllowEach decides requests from client at each of ts in turn, as Allow
// one after another would, and writes their verdicts to out[:len(ts)]: one
// call for a run of one client's requests, such as the lab's.
func (l *DenseFixedWindow) AllowEach(ts []Instant, client int, out []Verdict) {
	s := &l.states[client]
	out = out[:len(ts)]
	for i, t := range ts {
		_, count, allowed := s.allow(t, l.w, l.o, l.limit, l.rules)
		out[i] = Verdict{Allowed: allowed, Count: count}
	}
}

// Forget drops a client's state, as if it had sent no request.
func (l *DenseFixedWindow) Forget(client int) { l.states[client] = fixedState{} }

// Clients is how many client ids the limiter holds.
func (l *DenseFixedWindow) Clients() int { return len(l.states) }

// DenseSlidingCounter is a SlidingCounter for clients numbered 0 … n−1.
type DenseSlidingCounter struct {
	w, o     int64
	est      estimateRule
	states   []counterState
	anchored bool // windows from the client's first request (WindowFirstEvent)
}

// NewDenseSlidingCounter returns a sliding counter for clients clients; c
// must be valid.
func NewDenseSlidingCounter(c Config, clients int) *DenseSlidingCounter {
	w := c.windowMs()
	return &DenseSlidingCounter{w: w, o: c.offsetMs(), est: c.Rules.estimate(w, c.Limit), states: make([]counterState, clients),
		anchored: c.Rules.WindowStart == WindowFirstEvent}
}

// Allow decides one request from client at t and records it if counted.
func (l *DenseSlidingCounter) Allow(t Instant, client int) Verdict {
	return l.allow(&l.states[client], t)
}

// AllowEach decides requests from client at each of ts in turn, as Allow
// one after another would, and writes their verdicts to out[:len(ts)].
func (l *DenseSlidingCounter) AllowEach(ts []Instant, client int, out []Verdict) {
	s := &l.states[client]
	out = out[:len(ts)]
	if l.anchored {
		for i, t := range ts {
			out[i] = l.allow(s, t)
		}
		return
	}
	w, o := l.w, l.o
	for i, t := range ts {
		// allow, written out: a call fewer a request.
		u := int64(t) - o
		idx := s.window
		if d := uint64(u) - uint64(idx*w); d >= uint64(w) {
			if d < 2*uint64(w) {
				idx++ // the next window, the usual move: no division
			} else {
				idx = floorDiv(u, w)
			}
		}
		current, previous, allowed := s.allow(Instant(u), idx, &l.est)
		out[i] = Verdict{Allowed: allowed, Count: current, Previous: previous, Elapsed: u - idx*w}
	}
}

func (l *DenseSlidingCounter) allow(s *counterState, t Instant) Verdict {
	if l.anchored {
		start, current, previous, allowed := s.allowFrom(t, &l.est)
		return Verdict{Allowed: allowed, Count: current, Previous: previous, Elapsed: elapsedFrom(t, int64(start))}
	}
	u := int64(t) - l.o
	// The client's last window usually still holds t, or the next one
	// does: no division then.
	idx := s.window
	if d := uint64(u) - uint64(idx*l.w); d >= uint64(l.w) {
		if d < 2*uint64(l.w) {
			idx++
		} else {
			idx = floorDiv(u, l.w)
		}
	}
	current, previous, allowed := s.allow(Instant(u), idx, &l.est)
	return Verdict{Allowed: allowed, Count: current, Previous: previous, Elapsed: u - idx*l.w}
}

// Forget drops a client's state, as if it had sent no request.
func (l *DenseSlidingCounter) Forget(client int) { l.states[client] = counterState{} }

// Clients is how many client ids the limiter holds.
func (l *DenseSlidingCounter) Clients() int { return len(l.states) }

// DenseSlidingLog is a SlidingLog for clients numbered 0 … n−1. Its
// clients' timestamps are InstantRings, not the keyed log's InstantQueues:
// a dense log decides a busy client at a time (the lab's sources, whose
// window may hold thousands of requests), and a ring pushes and drops
// without encoding. It decides by the keyed log's rule (logDecides).
type DenseSlidingLog struct {
	limit, w int64
	rules    Rules
	states   []InstantRing
}

// NewDenseSlidingLog returns a sliding log for clients clients; c must be valid.
func NewDenseSlidingLog(c Config, clients int) *DenseSlidingLog {
	return &DenseSlidingLog{limit: c.Limit, w: c.windowMs(), rules: c.Rules, states: make([]InstantRing, clients)}
}

// Allow decides one request from client at t and records it if counted.
func (l *DenseSlidingLog) Allow(t Instant, client int) Verdict {
	var v [1]Verdict
	l.AllowEach([]Instant{t}, client, v[:])
	return v[0]
}

// AllowEach decides requests from client at each of ts in turn, as Allow
// one after another would, and writes their verdicts to out[:len(ts)]. For
// each it drops the timestamps that have left the window, counts those in
// (t − W, t], decides as the keyed log does (logDecides) and records t if
// the rules say so.
func (l *DenseSlidingLog) AllowEach(ts []Instant, client int, out []Verdict) {
	if q := &l.states[client]; q.fits(len(ts)) {
		l.eachInRing(q, ts, out)
	} else {
		l.eachSpilled(q, ts, out)
	}
}

// eachInRing is AllowEach on a ring that has room for ts.
func (l *DenseSlidingLog) eachInRing(q *InstantRing, ts []Instant, out []Verdict) {
	out = out[:len(ts)]
	w, limit, rules := Instant(l.w), l.limit, l.rules
	c := q.open()
	c.reserve(len(ts))
	// The ring's state in locals (registers) through the loop.
	runs, head, tail, at, atN, n := c.runs, c.head, c.tail, c.at, c.atN, c.n
	for i, t := range ts {
		head, n = ringDrop(runs, head, tail, at, n, t-w)
		count := n
		allowed, record := rules.logDecides(count, limit)
		if record {
			tail, at, atN, n = ringPush(runs, tail, at, atN, n, t)
		}
		out[i] = Verdict{Allowed: allowed, Count: count}
	}
	c.head, c.tail, c.at, c.atN, c.n = head, tail, at, atN, n
	q.close(&c)
}

// eachSpilled is AllowEach on a ring that has spilled into a queue, or
// that would pass RingMaxRuns making room for ts: it spills, and each
// request is decided on the queue.
func (l *DenseSlidingLog) eachSpilled(q *InstantRing, ts []Instant, out []Verdict) {
	if q.spilled() == nil {
		c := q.open()
		q.spill(&c)
	}
	w, limit, rules := Instant(l.w), l.limit, l.rules
	for i, t := range ts {
		q.DropThrough(t - w)
		count := q.Len()
		allowed, record := rules.logDecides(count, limit)
		if record {
			q.Push(t)
		}
		out[i] = Verdict{Allowed: allowed, Count: count}
	}
}

// Forget drops a client's timestamps, as if it had sent no request. The
// ring's room is kept for the next client to use that id.
func (l *DenseSlidingLog) Forget(client int) {
	l.states[client].Reset()
}

// Clients is how many client ids the limiter holds.
func (l *DenseSlidingLog) Clients() int { return len(l.states) }
