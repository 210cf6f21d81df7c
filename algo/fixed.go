package algo

import "unsafe"

// FixedWindow keeps one counter per client per calendar window
// ⌊t / W⌋ and allows while that window's count of accepted requests is
// below the limit. Cheap and simple; lets up to twice the limit through
// across a window edge.
//
// Config.Rules may count rejected requests too, change the comparison, or
// start each client's window at its first request (WindowFirstRequest): the
// window then runs [first, first + W), and the next starts at the client's
// first request at or after its end.
type FixedWindow struct {
	cfg     Config
	w, o    int64             // window length and its edges' offset (Config.Offset), in ms
	clients table[fixedState] // by id, when an engine numbers the clients (ByID)
	keyed   keyed[fixedState] // by name, otherwise
	retired []retiredWindow   // with expiry off: every finished window, forever
	clock   clock
	mem     Memory
	_       [64]byte // a cache line from whatever is allocated next (sim.Engine's padding): clock and mem are written at every request
}

type fixedState struct {
	start Instant // start of the client's current window
	count int64   // requests counted in that window (accepted ones, unless Rules.CountRejected)
}

// retiredWindow is a counter a store without TTLs would still hold.
type retiredWindow struct {
	client string
	window int64 // window index, or (fixed windows) start instant
	count  int64
}

const retiredBytes = int64(unsafe.Sizeof(retiredWindow{}))

// NewFixedWindow returns a fixed-window limiter; c must be valid (Config.Validate).
func NewFixedWindow(c Config) *FixedWindow {
	return &FixedWindow{cfg: c, w: c.windowMs(), o: c.offsetMs(), keyed: newKeyed(fixedPacking), clock: newClock()}
}

func (l *FixedWindow) Kind() Kind     { return KindFixedWindow }
func (l *FixedWindow) Config() Config { return l.cfg }
func (l *FixedWindow) Memory() Memory { return l.mem }

// Held is where the limiter keeps Memory's figures (Writer).
func (l *FixedWindow) Held() *Memory { return &l.mem }

func (l *FixedWindow) Allow(t Instant, client string) Decision {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client))
	}
	t = l.advance(t)
	start, count, allowed := l.allowKeyed(t, client)
	return l.decision(t, start, count, allowed)
}

// Admit decides as Allow does, recording the same, and says only whether
// the request is allowed.
//
// Its usual request, from a client the store holds by a short name while
// no sweep is due, is decided in place in the client's record, as
// allowKeyed would decide it; every other goes through allowKeyed.
func (l *FixedWindow) Admit(t Instant, client string) bool {
	if l.clients.names == nil && !l.keyed.wide && l.clock.quiet(t) {
		if p, fresh := l.keyed.keys.hot(client); p != nil {
			b := (*[8 + 4]byte)(p)[:]
			if s := loadFixed(b, false); s.count < packedCountMax { // else widen first
				var allowed bool
				if s.holds(t, l.w) {
					// allowState's usual request, inside the client's
					// window (never a fresh one's: it has no count),
					// without its call: with expiry off too, as such a
					// request retires nothing.
					_, allowed = s.take(l.cfg.Limit, l.cfg.Rules)
				} else {
					_, allowed = l.allowState(t, &s, fresh, client)
				}
				storeFixed(b, s, false)
				return allowed
			}
		}
	}
	return l.admit(t, client)
}

// admit is Admit's every other request.
func (l *FixedWindow) admit(t Instant, client string) bool {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client)).Allowed
	}
	_, _, allowed := l.allowKeyed(l.advance(t), client)
	return allowed
}

// allowKeyed decides for a client by name, in the limiter's keyStore.
func (l *FixedWindow) allowKeyed(t Instant, client string) (start Instant, count int64, allowed bool) {
	k := &l.keyed
	b, fresh := k.keys.take(client)
	if !fresh && !k.wide && getCount(b[8:]) >= packedCountMax {
		k.widen()
		b, _ = k.keys.take(client)
	}
	s := loadFixed(b, k.wide)
	count, allowed = l.allowState(t, &s, fresh, client)
	storeFixed(b, s, k.wide)
	return s.start, count, allowed
}

// allowState decides for the client named client, whose state is s, fresh
// (and zero) when it had none: the count before, and whether allowed.
func (l *FixedWindow) allowState(t Instant, s *fixedState, fresh bool, client string) (count int64, allowed bool) {
	if fresh {
		l.added(len(client))
	} else if l.cfg.NoExpiry {
		l.retireOld(t, s, client, -1)
	}
	if s.holds(t, l.w) { // allow, without its call for the usual request
		return s.take(l.cfg.Limit, l.cfg.Rules)
	}
	_, count, allowed = s.allow(t, l.w, l.o, l.cfg.Limit, l.cfg.Rules)
	return count, allowed
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *FixedWindow) UseNames(names *Names) bool {
	return l.keyed.keys.Len() == 0 && l.clients.share(names)
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *FixedWindow) AllowID(t Instant, id int32) Decision {
	var d Decision
	l.AllowIDInto(t, id, &d)
	return d
}

// AllowIDInto is AllowID, written in d (Writer).
func (l *FixedWindow) AllowIDInto(t Instant, id int32, d *Decision) {
	l.clients.mustShare()
	t = l.advance(t)
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.added(l.clients.keyBytes(id))
	} else if l.cfg.NoExpiry {
		l.retireOld(t, s, "", id)
	}
	start, count, allowed := s.allow(t, l.w, l.o, l.cfg.Limit, l.cfg.Rules)
	l.write(d, t, start, count, allowed)
}

// added counts a client that has just got its state.
func (l *FixedWindow) added(keyBytes int) {
	l.mem.Clients++
	l.mem.Entries++
	l.mem.Bytes += clientBytes[fixedState](keyBytes)
}

// retireOld keeps, with expiry off, the counter a new window at t leaves
// behind; the client is named client, or numbered id.
func (l *FixedWindow) retireOld(t Instant, s *fixedState, client string, id int32) {
	if start := s.windowStart(t, l.w, l.o, l.cfg.Rules); start != s.start {
		l.retire(l.clients.name(client, id), int64(s.start), s.count)
	}
}

// allow decides one request at t from the client whose state s is (the zero
// value for a client with no requests): it moves s to the window holding t,
// compares that window's count, and counts the request if the rules say so.
// The keyed and the dense fixed windows both decide here.
func (s *fixedState) allow(t Instant, w, o, limit int64, r Rules) (start Instant, count int64, allowed bool) {
	if start = s.windowStart(t, w, o, r); s.start != start {
		*s = fixedState{start: start}
	}
	count, allowed = s.take(limit, r)
	return start, count, allowed
}

// holds reports whether t is in s's window, which a count says was started
// (windowStart, without its rules: this is the window a request at t falls
// in whatever they are).
func (s *fixedState) holds(t Instant, w int64) bool {
	return s.count > 0 && uint64(t)-uint64(s.start) < uint64(w)
}

// take decides a request in s's window: the count before it, and whether
// the rules allow it; the request is counted if they say so.
func (s *fixedState) take(limit int64, r Rules) (count int64, allowed bool) {
	count = s.count
	allowed = r.admitsCount(count, limit)
	if allowed || r.CountRejected {
		s.count = satAdd(count, 1)
	}
	return count, allowed
}

// windowStart is the start of the window a request from the client at t
// falls in. A state with no count is a client with no requests: every
// request is counted or, under the lesson's comparisons, allowed first.
func (s *fixedState) windowStart(t Instant, w, o int64, r Rules) Instant {
	if s.count > 0 {
		// A window with a count was started here, or aligned by the clock:
		// it still holds t, or (aligned) the next one does. No division.
		if d := uint64(t) - uint64(s.start); d < uint64(w) {
			return s.start
		} else if d < 2*uint64(w) && r.WindowStart != WindowFirstRequest {
			return s.start + Instant(w)
		}
	}
	if r.WindowStart == WindowFirstRequest {
		return t
	}
	return Instant(floorDiv(int64(t)-o, w)*w + o)
}

// live reports whether the client's window still holds t ≥ start:
// t < start + W, computed without overflow.
func (s fixedState) live(t Instant, w int64) bool {
	return uint64(t)-uint64(s.start) < uint64(w)
}

func (l *FixedWindow) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	var s fixedState
	if l.clients.names != nil {
		if p := l.clients.get(client); p != nil {
			s = *p
		}
	} else {
		s, _ = l.keyed.peek(client)
	}
	start := s.windowStart(t, l.w, l.o, l.cfg.Rules)
	var count int64
	if s.start == start {
		count = s.count
	}
	return l.decide(t, start, count)
}

func (l *FixedWindow) decide(t, start Instant, count int64) Decision {
	return l.decision(t, start, count, l.cfg.Rules.admitsCount(count, l.cfg.Limit))
}

func (l *FixedWindow) decision(t, start Instant, count int64, allowed bool) Decision {
	var d Decision
	l.write(&d, t, start, count, allowed)
	return d
}

// write writes decision's Decision in d: field by field, as a composite
// literal would be built aside and copied.
func (l *FixedWindow) write(d *Decision, t, start Instant, count int64, allowed bool) {
	*d = Decision{}
	d.Kind, d.At, d.Allowed, d.Rules = KindFixedWindow, t, allowed, l.cfg.Rules
	d.Limit, d.Window, d.WindowStart, d.Count = l.cfg.Limit, l.cfg.Window, start, count
}

// advance reads t on the clock and sweeps idle clients when a sweep is due.
func (l *FixedWindow) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.sweepAt(t)
	}
	return t
}

// sweepAt makes the sweep due at t.
func (l *FixedWindow) sweepAt(t Instant) {
	l.clock.schedule(t, l.w)
	l.Expire(t)
}

func (l *FixedWindow) retire(client string, window, count int64) {
	l.retired = append(l.retired, retiredWindow{client, window, count})
	l.mem.Entries++
	l.mem.Bytes += retiredBytes
}

// Expire drops every client whose window has ended by t (start + W ≤ t): its
// counter can never be consulted again.
func (l *FixedWindow) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	sweepClients(&l.clients, &l.keyed, func(keyBytes int, s *fixedState) bool {
		if t < s.start || s.live(t, l.w) {
			return true
		}
		l.mem.Clients--
		l.mem.Entries--
		l.mem.Bytes -= clientBytes[fixedState](keyBytes)
		return false
	})
}

func (l *FixedWindow) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(nil)
	c.keyed = l.keyed.clone()
	c.retired = append([]retiredWindow(nil), l.retired...)
	return &c
}

func (l *FixedWindow) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	eachClient(&l.clients, &l.keyed, func(keyBytes int, s *fixedState) {
		if t < s.start || s.live(t, l.w) {
			m.Clients++
			m.Entries++
			m.Bytes += clientBytes[fixedState](keyBytes)
		}
	})
	return m
}

// Touch loads the state of the client numbered id (Toucher).
func (l *FixedWindow) Touch(id int32) byte { return l.clients.touch(id) }
