package algo

// SlidingCounter keeps two counters per client, for the current calendar
// window and the previous one, and estimates the sliding count by weighting
// the previous window by how much of it still overlaps the last W:
//
//	estimate = current + previous × (W − elapsed) / W
//
// It allows iff the estimate is below the limit, decided exactly as
// current·W + previous·(W − elapsed) < limit·W.
//
// Config.Rules may count rejected requests too, round the estimate (exactly,
// on the integer numerator) and change the comparison; products are then
// taken in 128 bits, since counts can grow past the limit. Its windows are
// aligned to the clock, or (WindowFirstEvent, firstevent.go) start at the
// client's first request.
type SlidingCounter struct {
	cfg     Config
	w, o    int64               // the window and its edges' offset, in ms
	clients table[counterState] // by id, when an engine numbers the clients (ByID)
	keyed   keyed[counterState] // by name, otherwise
	retired []retiredWindow     // with expiry off: every window that fell out of use
	clock   clock
	mem     Memory
	est     estimateRule // Config.Rules' test, for this window and limit
	// anchored: windows start at the client's first request
	// (WindowFirstEvent); a state's window is then its start instant.
	anchored bool
	_        [64]byte // a cache line from whatever is allocated next (sim.Engine's padding): clock and mem are written at every request
}

type counterState struct {
	window   int64 // index of the current window
	current  int64 // accepted in the current window
	previous int64 // accepted in the window before it
}

// countersPerClient is the lesson's "two counters per key".
const countersPerClient = 2

// NewSlidingCounter returns a sliding-counter limiter; c must be valid.
func NewSlidingCounter(c Config) *SlidingCounter {
	w := c.windowMs()
	return &SlidingCounter{cfg: c, w: w, o: c.offsetMs(), keyed: newKeyed(counterPacking), clock: newClock(), est: c.Rules.estimate(w, c.Limit),
		anchored: c.Rules.WindowStart == WindowFirstEvent}
}

func (l *SlidingCounter) Kind() Kind     { return KindSlidingCounter }
func (l *SlidingCounter) Config() Config { return l.cfg }
func (l *SlidingCounter) Memory() Memory { return l.mem }

// Held is where the limiter keeps Memory's figures (Writer).
func (l *SlidingCounter) Held() *Memory { return &l.mem }

func (l *SlidingCounter) Allow(t Instant, client string) Decision {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client))
	}
	t = l.advance(t)
	idx, current, previous, allowed := l.allowKeyed(t, client)
	return l.decision(t, idx, current, previous, allowed)
}

// Admit decides as Allow does, recording the same, and says only whether
// the request is allowed.
//
// Its usual request, from a client the store holds by a short name while
// no sweep is due, is decided in place in the client's record; every
// other goes through allowKeyed.
func (l *SlidingCounter) Admit(t Instant, client string) bool {
	if l.clients.names == nil && !l.keyed.wide && !l.anchored && l.clock.quiet(t) {
		if p, fresh := l.keyed.keys.hot(client); p != nil {
			b := (*[8 + 4 + 4]byte)(p)[:]
			if s := loadCounter(b, false); s.current < packedCountMax { // else widen first
				var allowed bool
				if u := int64(t) - l.o; !fresh && uint64(u-s.window*l.w) < uint64(l.w) {
					// allowState's usual request, in the client's own
					// window, without its call: with expiry off too, as
					// such a request rolls and retires nothing.
					_, _, allowed = s.allow(Instant(u), s.window, &l.est)
				} else {
					_, _, _, allowed = l.allowState(t, &s, fresh, client)
				}
				storeCounter(b, s, false)
				return allowed
			}
		}
	}
	return l.admit(t, client)
}

// admit is Admit's every other request.
func (l *SlidingCounter) admit(t Instant, client string) bool {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client)).Allowed
	}
	_, _, _, allowed := l.allowKeyed(l.advance(t), client)
	return allowed
}

// allowKeyed decides for a client by name, in the limiter's keyStore, in
// window idx = ⌊(t − offset) / W⌋.
func (l *SlidingCounter) allowKeyed(t Instant, client string) (idx, current, previous int64, allowed bool) {
	k := &l.keyed
	b, fresh := k.keys.take(client)
	if !fresh && !k.wide && getCount(b[8:]) >= packedCountMax {
		k.widen()
		b, _ = k.keys.take(client)
	}
	s := loadCounter(b, k.wide)
	idx, current, previous, allowed = l.allowState(t, &s, fresh, client)
	storeCounter(b, s, k.wide)
	return idx, current, previous, allowed
}

// allowState decides for the client named client, whose state is s, fresh
// (and zero) when it had none.
func (l *SlidingCounter) allowState(t Instant, s *counterState, fresh bool, client string) (idx, current, previous int64, allowed bool) {
	if l.anchored { // idx is then the window's start
		if fresh {
			l.added(s, 0, len(client))
		} else if l.cfg.NoExpiry {
			l.retireRolledFrom(client, s, t)
		}
		start, current, previous, allowed := s.allowFrom(t, &l.est)
		return int64(start), current, previous, allowed
	}
	u := int64(t) - l.o
	if fresh {
		idx = floorDiv(u, l.w)
		l.added(s, idx, len(client))
	} else {
		// The window from the client's own, without a division when it is
		// that one or the next.
		switch d := u - s.window*l.w; {
		case d >= 0 && d < l.w:
			idx = s.window
		case d >= l.w && d < 2*l.w:
			idx = s.window + 1
		default:
			idx = floorDiv(u, l.w)
		}
		if l.cfg.NoExpiry {
			l.retireRolled(client, s, idx)
		}
	}
	current, previous, allowed = s.allow(Instant(u), idx, &l.est)
	return idx, current, previous, allowed
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *SlidingCounter) UseNames(names *Names) bool {
	return l.keyed.keys.Len() == 0 && l.clients.share(names)
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *SlidingCounter) AllowID(t Instant, id int32) Decision {
	var d Decision
	l.AllowIDInto(t, id, &d)
	return d
}

// AllowIDInto is AllowID, written in d (Writer).
func (l *SlidingCounter) AllowIDInto(t Instant, id int32, d *Decision) {
	l.clients.mustShare()
	t = l.advance(t)
	if l.anchored {
		*d = l.allowIDFrom(t, id)
		return
	}
	idx := floorDiv(int64(t)-l.o, l.w)
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.added(s, idx, l.clients.keyBytes(id))
	} else if l.cfg.NoExpiry {
		l.retireRolled(l.clients.key(id), s, idx)
	}
	current, previous, allowed := s.allow(t-Instant(l.o), idx, &l.est)
	l.write(d, t, idx, current, previous, allowed)
}

// added counts a client that has just got its state, in window idx.
func (l *SlidingCounter) added(s *counterState, idx int64, keyBytes int) {
	s.window = idx
	l.mem.Clients++
	l.mem.Entries += countersPerClient
	l.mem.Bytes += clientBytes[counterState](keyBytes)
}

// allow decides one request at t, in window idx = ⌊t / W⌋ (t counted from
// the first window edge: Config.Offset taken off), from the client
// whose state s is (the zero value for a client with no requests): it rolls
// the counters forward, tests the estimate by e, and counts the request if
// the rules say so. The keyed and the dense sliding counters both decide
// here.
func (s *counterState) allow(t Instant, idx int64, e *estimateRule) (current, previous int64, allowed bool) {
	s.roll(idx)
	current, previous = s.current, s.previous
	allowed = e.admits(current, previous, e.w-(int64(t)-idx*e.w))
	if allowed || e.countRejected {
		s.current = satAdd(current, 1)
	}
	return current, previous, allowed
}

// roll moves a client's counters forward to window idx.
func (s *counterState) roll(idx int64) {
	switch idx {
	case s.window:
		return
	case s.window + 1:
		s.previous, s.current = s.current, 0
	default:
		s.previous, s.current = 0, 0
	}
	s.window = idx
}

// retireRolled keeps, with expiry off, the counters a roll to idx drops.
func (l *SlidingCounter) retireRolled(client string, s *counterState, idx int64) {
	switch idx {
	case s.window:
	case s.window + 1:
		if s.previous > 0 {
			l.retire(client, s.window-1, s.previous)
		}
	default:
		if s.previous > 0 {
			l.retire(client, s.window-1, s.previous)
		}
		if s.current > 0 {
			l.retire(client, s.window, s.current)
		}
	}
}

func (l *SlidingCounter) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	idx := floorDiv(int64(t)-l.o, l.w)
	var current, previous int64
	var s counterState
	found := false
	if l.clients.names != nil {
		if p := l.clients.get(client); p != nil {
			s, found = *p, true
		}
	} else {
		s, found = l.keyed.peek(client)
	}
	if l.anchored {
		return l.peekFrom(t, s)
	}
	if found {
		switch idx {
		case s.window:
			current, previous = s.current, s.previous
		case s.window + 1:
			previous = s.current
		}
	}
	return l.decide(t, idx, current, previous)
}

func (l *SlidingCounter) decide(t Instant, idx, current, previous int64) Decision {
	// current·W + previous·(W − elapsed) against the rules' bound, in 128
	// bits: with the lesson's rules the counts stay at most Limit and every
	// product would fit in int64, but counting rejected requests lets them
	// grow past it.
	allowed := l.est.admits(current, previous, l.w-(int64(t)-l.o-idx*l.w))
	return l.decision(t, idx, current, previous, allowed)
}

// decision is the Decision on the counts of window idx, or (anchored) of
// the window starting at idx.
func (l *SlidingCounter) decision(t Instant, idx, current, previous int64, allowed bool) Decision {
	var d Decision
	l.write(&d, t, idx, current, previous, allowed)
	return d
}

// write writes decision's Decision in d, field by field (FixedWindow.write).
func (l *SlidingCounter) write(d *Decision, t Instant, idx, current, previous int64, allowed bool) {
	start := idx*l.w + l.o
	if l.anchored {
		start = idx
	}
	*d = Decision{}
	d.Kind, d.At, d.Allowed, d.Rules = KindSlidingCounter, t, allowed, l.cfg.Rules
	d.Limit, d.Window, d.WindowStart, d.Count = l.cfg.Limit, l.cfg.Window, Instant(start), current
	d.Previous, d.Elapsed = previous, Instant(int64(t)-start).Sub(0)
}

func (l *SlidingCounter) retire(client string, window, count int64) {
	l.retired = append(l.retired, retiredWindow{client, window, count})
	l.mem.Entries++
	l.mem.Bytes += retiredBytes
}

// Expire drops clients whose current window is older than the previous
// window at t: both their counters now weigh nothing.
func (l *SlidingCounter) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	idx := floorDiv(int64(t)-l.o, l.w)
	sweepClients(&l.clients, &l.keyed, func(keyBytes int, s *counterState) bool {
		if l.live(s, t, idx) {
			return true
		}
		l.mem.Clients--
		l.mem.Entries -= countersPerClient
		l.mem.Bytes -= clientBytes[counterState](keyBytes)
		return false
	})
}

func (l *SlidingCounter) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(nil)
	c.keyed = l.keyed.clone()
	c.retired = append([]retiredWindow(nil), l.retired...)
	return &c
}

func (l *SlidingCounter) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	idx := floorDiv(int64(t)-l.o, l.w)
	var m Memory
	eachClient(&l.clients, &l.keyed, func(keyBytes int, s *counterState) {
		if l.live(s, t, idx) {
			m.Clients++
			m.Entries += countersPerClient
			m.Bytes += clientBytes[counterState](keyBytes)
		}
	})
	return m
}

// live reports whether a client's counts still weigh anything at t, in
// calendar window idx: it is in idx or the window before, or (anchored)
// its window started less than two windows before t.
func (l *SlidingCounter) live(s *counterState, t Instant, idx int64) bool {
	if l.anchored {
		return liveFrom(t, s.start(), l.w)
	}
	return s.window >= idx-1
}

// advance reads t on the clock and sweeps idle clients when a sweep is due.
func (l *SlidingCounter) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.sweepAt(t)
	}
	return t
}

// sweepAt makes the sweep due at t.
func (l *SlidingCounter) sweepAt(t Instant) {
	l.clock.schedule(t, l.w)
	l.Expire(t)
}

// Touch loads the state of the client numbered id (Toucher).
func (l *SlidingCounter) Touch(id int32) byte { return l.clients.touch(id) }
