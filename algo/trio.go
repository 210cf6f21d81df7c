package algo

import (
	"math"
	"unsafe"
)

// Trio is the lesson's three limiters of one Config, the fixed window, the
// sliding log and the sliding counter with the lesson's rules, deciding a
// request in all three at once over one table of clients: one record a
// client holds each one's state, so a request loads one record, not three,
// and one sweep a window expires all three. Each decides by the same code
// its own limiter does (fixedState, counterState, InstantQueue) and keeps
// the same Memory, figure for figure, as its limiter would after every
// request; TestTrioDecidesAsTheThree holds it to that.
//
// It is what a report's engine decides the default setting by
// (sim.Options.FiguresOnly), where the engine's generality (a limiter
// behind an interface each, a Decision of evidence written for each, a
// table and a sweep each) cost more than the rules themselves: a third of
// the deciding of `windowlab replay` (BENCHMARKS.md). Its clients are
// numbered by a Names it shares, as ByID's are.
type Trio struct {
	trioMember
	recs  table[trioState]
	clock clock
}

// trioMember is one configuration's three limiters, as a Trio or a
// TrioSet decides them: the rules and the figures, not the clients.
type trioMember struct {
	cfg  Config
	w, o int64
	est  estimateRule
	mem  [3]Memory // Trio's order: fixed window, sliding log, sliding counter
	peak [3]Memory // the most of mem after any request, each field its own
}

// newTrioMember is c's, when a Trio decides c (NewTrio).
func newTrioMember(c Config) (trioMember, bool) {
	if c.Rules != (Rules{}) || c.NoExpiry || c.Validate() != nil {
		return trioMember{}, false
	}
	w := c.windowMs()
	return trioMember{cfg: c, w: w, o: c.offsetMs(), est: c.Rules.estimate(w, c.Limit)}, true
}

// TrioKinds are the Trio's limiters, in the order its figures are.
var TrioKinds = [3]Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter}

// trioState is one client's record, in one cache line: the fixed
// window's state and the counter's with their counts in 32 bits (under
// the lesson's rules a count is of requests allowed, at most the limit,
// at most MaxLimit), unpacked to the limiters' own states (fixedState,
// counterState) to be decided by their code. 80 bytes with the counts
// whole, every record spanned two lines: a request and an expiry sweep
// loaded two where they now load one.
type trioState struct {
	q       InstantQueue // the log's timestamps
	fStart  Instant      // fixedState.start
	cWindow int64        // counterState.window
	fCount  int32        // fixedState.count
	cCount  [2]int32     // counterState.current, .previous
	held    uint8        // the limiters holding state: bit k for TrioKinds[k]
}

// A count of MaxLimit fits a trioState's 32 bits (this fails to compile
// if it does not).
const _ = uint32(math.MaxInt32 - MaxLimit)

// fixed is the client's fixed-window state.
func (s *trioState) fixed() fixedState { return fixedState{start: s.fStart, count: int64(s.fCount)} }

// setFixed stores it.
func (s *trioState) setFixed(f fixedState) { s.fStart, s.fCount = f.start, int32(f.count) }

// counter is the client's sliding-counter state.
func (s *trioState) counter() counterState {
	return counterState{window: s.cWindow, current: int64(s.cCount[0]), previous: int64(s.cCount[1])}
}

// setCounter stores it.
func (s *trioState) setCounter(c counterState) {
	s.cWindow, s.cCount = c.window, [2]int32{int32(c.current), int32(c.previous)}
}

// NewTrio returns the Trio of c, or false when c is not one it decides as
// the three limiters do: the lesson's rules, with expiry.
func NewTrio(c Config) (*Trio, bool) {
	m, ok := newTrioMember(c)
	if !ok {
		return nil, false
	}
	return &Trio{trioMember: m, clock: newClock()}, true
}

// Config is the Trio's configuration.
func (l *Trio) Config() Config { return l.cfg }

// UseNames numbers the Trio's clients by names, as ByID.UseNames does.
func (l *Trio) UseNames(names *Names) bool { return l.recs.share(names) }

// Memory is the state limiter k (TrioKinds' order) holds now, as its own
// limiter's Memory would be.
func (l *Trio) Memory(k int) Memory { return l.mem[k] }

// Peak is the most limiter k (TrioKinds' order) held after any request,
// each field its own most, as sim.Stats.PeakMemory counts it: raised as
// the Trio decides, and only when a limiter's memory grew (an expiry
// lowers it, and a request that adds nothing leaves it).
func (l *Trio) Peak(k int) Memory { return l.peak[k] }

// raise raises limiter k's peak to its memory now.
func (l *trioMember) raise(k int) {
	m, p := &l.mem[k], &l.peak[k]
	p.Clients, p.Entries, p.Bytes = max(p.Clients, m.Clients), max(p.Entries, m.Entries), max(p.Bytes, m.Bytes)
}

// Touch loads the record of the client numbered id (Toucher).
func (l *Trio) Touch(id int32) byte { return l.recs.touch(id) }

// TrioDecision is what the Trio decided for one request: whether each of
// TrioKinds allowed it, and when the log did, the timestamps it then held
// in the window ending at the request ((t − W, t], this one counted): the
// most it admitted to the client in one window, so far, is the most of
// these (sim's running figure; the other two need a record of what they
// admitted, which sim keeps).
type TrioDecision struct {
	Allowed  [3]bool
	LogCount int64
}

// Allow decides a request at t of the client numbered id in the three
// limiters, into d.
func (l *Trio) Allow(t Instant, id int32, d *TrioDecision) {
	l.recs.mustShare()
	t, sweep := l.clock.advance(t)
	if sweep {
		l.clock.schedule(t, l.w)
		l.expire(t)
	}
	s := l.recs.getOrAddID(id)
	var kb int
	if s.held != 7 {
		kb = l.recs.keyBytes(id)
	}
	l.decide(s, t, kb, d)
}

// decide decides a request at t in the three limiters of the client whose
// record is s, whose name is kb bytes long (read only when s.held is not
// 7), into d.
func (l *trioMember) decide(s *trioState, t Instant, kb int, d *TrioDecision) {
	edge := t - Instant(l.w)
	*d = TrioDecision{}

	// The fixed window (FixedWindow.AllowIDInto).
	if s.held&1 == 0 {
		l.hold(s, 0, kb)
	}
	// The lesson's rules (NewTrio takes no others) as a literal, not
	// l.cfg.Rules: the compiler then folds them away, where copying the
	// field's seven bytes stalled a store's forwarding at every request.
	f := s.fixed()
	if _, _, ok := f.allow(t, l.w, l.o, l.cfg.Limit, Rules{}); ok {
		d.Allowed[0] = true
	}
	s.setFixed(f)

	// The sliding log (SlidingLog.counted).
	grown := s.held&2 == 0
	if grown {
		l.hold(s, 1, kb)
	}
	q := &s.q
	var added int64
	count := q.Len()
	if count > 0 && q.Oldest() <= edge {
		added = -q.DropThrough(edge)
		count = q.Len()
	}
	if allowed, record := (Rules{}).logDecides(count, l.cfg.Limit); record {
		q.Push(t)
		added++
		if allowed {
			d.Allowed[1], d.LogCount = true, count+1
		}
	}
	l.mem[1].Entries += added
	l.mem[1].Bytes += added * timestampBytes
	if grown || added > 0 {
		l.raise(1)
	}

	// The sliding counter (SlidingCounter.AllowIDInto).
	idx := floorDiv(int64(t)-l.o, l.w)
	if s.held&4 == 0 {
		s.setCounter(counterState{window: idx})
		l.hold(s, 2, kb)
	}
	c := s.counter()
	if _, _, ok := c.allow(t-Instant(l.o), idx, &l.est); ok {
		d.Allowed[2] = true
	}
	s.setCounter(c)
}

// hold records that limiter k (TrioKinds' order) holds the client's state
// from now, as its limiter counts a client it meets: the client, the
// entries it starts with (the log's come as it pushes) and their bytes.
func (l *trioMember) hold(s *trioState, k int, kb int) {
	s.held |= 1 << k
	m := &l.mem[k]
	m.Clients++
	switch k {
	case 0:
		m.Entries++
		m.Bytes += clientBytes[fixedState](kb)
	case 1:
		m.Bytes += clientBytes[logState](kb)
	case 2:
		m.Entries += countersPerClient
		m.Bytes += clientBytes[counterState](kb)
	}
	l.raise(k)
}

// LogOldest is the oldest timestamp the log holds for the client
// numbered id: after a request it allowed, the first of the window its
// count (TrioDecision.LogCount) was of.
func (l *Trio) LogOldest(id int32) Instant { return l.recs.states[id].q.Oldest() }

// LogLen is how many timestamps the log holds for the client numbered id:
// after a request, those in the window ending at it.
func (l *Trio) LogLen(id int32) int64 {
	if s := l.recs.getID(id); s != nil {
		return s.q.Len()
	}
	return 0
}

// LogRuns yields the timestamps the log holds for the client numbered id,
// oldest first, a run of equal ones at a time (InstantQueue.Runs).
func (l *Trio) LogRuns(id int32) func(yield func(at Instant, n int64) bool) {
	return l.recs.getID(id).logRuns()
}

// logRuns yields the timestamps the record's log holds (none for nil).
func (s *trioState) logRuns() func(yield func(at Instant, n int64) bool) {
	if s != nil {
		return s.q.Runs
	}
	return func(func(Instant, int64) bool) {}
}

// expire is each limiter's Expire at t, in one sweep: the fixed window's
// ended windows, the log's timestamps out of the window and its clients
// left with none, the counter's clients whose counters no request can
// read again.
func (l *Trio) expire(t Instant) {
	edge, idx := l.clock.sweepAt(t, l.w, l.o)
	ms := unsafe.Slice(&l.trioMember, 1)
	l.recs.each(func(kb int, s *trioState) bool {
		return expireRecord(ms, kb, s, t, edge, idx)
	})
}

// expireRecord drops from the record s, of a client whose name is kb bytes
// long, what no request at t can read again (the fixed window's ended
// window, the log's timestamps through edge, t less the window, and the
// counters once idx, t's window, is two past theirs) and takes it off the
// memory of every member sharing the record; it reports whether s holds
// anything still.
func expireRecord(ms []trioMember, kb int, s *trioState, t, edge Instant, idx int64) bool {
	if f := s.fixed(); s.held&1 != 0 && !(t < f.start || f.live(t, ms[0].w)) {
		s.held &^= 1
		s.setFixed(fixedState{})
		for g := range ms {
			m := &ms[g].mem[0]
			m.Clients--
			m.Entries--
			m.Bytes -= clientBytes[fixedState](kb)
		}
	}
	if s.held&2 != 0 {
		n := s.q.DropThrough(edge)
		empty := s.q.Len() == 0
		if empty {
			s.held &^= 2
		}
		for g := range ms {
			ms[g].forgetLog(kb, n, empty)
		}
	}
	if s.held&4 != 0 && s.cWindow < idx-1 {
		s.held &^= 4
		s.setCounter(counterState{})
		for g := range ms {
			m := &ms[g].mem[2]
			m.Clients--
			m.Entries -= countersPerClient
			m.Bytes -= clientBytes[counterState](kb)
		}
	}
	return s.held != 0
}

// forgetLog takes n of the log's timestamps, and with empty the client, off
// its memory (of a client whose name is kb bytes long).
func (l *trioMember) forgetLog(kb int, n int64, empty bool) {
	m := &l.mem[1]
	m.Entries -= n
	m.Bytes -= n * timestampBytes
	if empty {
		m.Clients--
		m.Bytes -= clientBytes[logState](kb)
	}
}

// MemoryAt is what limiter k (TrioKinds' order) holds live at t, as its
// limiter's MemoryAt says.
func (l *Trio) MemoryAt(t Instant, k int) Memory {
	var m Memory
	l.recs.each(func(kb int, s *trioState) bool {
		l.addLive(&m, s, kb, t, k)
		return true
	})
	return m
}

// addLive adds to m what limiter k (TrioKinds' order) holds live at t in
// the record s of a client whose name is kb bytes long.
func (l *trioMember) addLive(m *Memory, s *trioState, kb int, t Instant, k int) {
	edge := t - Instant(l.w)
	idx := floorDiv(int64(t)-l.o, l.w)
	switch {
	case k == 0 && s.held&1 != 0 && (t < s.fStart || s.fixed().live(t, l.w)):
		m.Clients++
		m.Entries++
		m.Bytes += clientBytes[fixedState](kb)
	case k == 1 && s.held&2 != 0:
		if n, _ := s.q.CountAfter(edge); n > 0 {
			m.Clients++
			m.Entries += n
			m.Bytes += clientBytes[logState](kb) + n*timestampBytes
		}
	case k == 2 && s.held&4 != 0 && s.cWindow >= idx-1:
		m.Clients++
		m.Entries += countersPerClient
		m.Bytes += clientBytes[counterState](kb)
	}
}
