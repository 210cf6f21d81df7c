package algo

// SlidingLog stores a timestamp for every accepted request and counts the
// ones in the last window: at t, timestamps ≤ t − W have left it. Exact, with
// no boundary effect; memory grows with the limit.
//
// With Config.Rules.CountRejected it stores a timestamp for every request, so
// a client is allowed again only after a whole window without requests beyond
// the limit; its memory then grows with the request rate, not the limit.
type SlidingLog struct {
	cfg     Config
	w       int64
	clients table[logState]
	clock   clock
	mem     Memory
}

// logState is a client's accepted timestamps, oldest first.
type logState struct{ q InstantQueue }

// timestampBytes is what the log's memory counts for one timestamp: what a
// log storing each one as a 64-bit instant holds, and the most this one
// holds for instants far apart. Equal instants share one run of its queue,
// so a burst costs it far less; the figure teaches the algorithm's cost, not
// that saving.
const timestampBytes = 8

// NewSlidingLog returns a sliding-log limiter; c must be valid.
func NewSlidingLog(c Config) *SlidingLog {
	return &SlidingLog{cfg: c, w: c.windowMs(), clients: newTable[logState](), clock: newClock()}
}

func (l *SlidingLog) Kind() Kind     { return KindSlidingLog }
func (l *SlidingLog) Config() Config { return l.cfg }
func (l *SlidingLog) Memory() Memory { return l.mem }

func (l *SlidingLog) Allow(t Instant, client string) Decision {
	t, sweep := l.clock.advance(t, l.w)
	if sweep {
		l.Expire(t)
	}
	s := l.clients.get(client)
	if s == nil {
		s = l.clients.add(client)
		l.mem.Clients++
		l.mem.Bytes += clientBytes[logState](len(client))
	}
	count, oldest, allowed := l.counted(t, s)
	return l.decision(t, count, oldest, allowed)
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *SlidingLog) UseNames(names *Names) bool { return l.clients.share(names) }

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *SlidingLog) AllowID(t Instant, id int32) Decision {
	l.clients.mustShare()
	t, sweep := l.clock.advance(t, l.w)
	if sweep {
		l.Expire(t)
	}
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.mem.Clients++
		l.mem.Bytes += clientBytes[logState](l.clients.keyBytes(id))
	}
	count, oldest, allowed := l.counted(t, s)
	return l.decision(t, count, oldest, allowed)
}

// counted decides on the client's queue and counts what it now holds.
func (l *SlidingLog) counted(t Instant, s *logState) (count int64, oldest Instant, allowed bool) {
	entries := s.q.Len()
	count, oldest, allowed = s.allow(t, l.w, l.cfg.Limit, l.cfg.Rules, l.cfg.NoExpiry)
	l.mem.Entries += s.q.Len() - entries
	l.mem.Bytes += (s.q.Len() - entries) * timestampBytes
	return count, oldest, allowed
}

// allow decides one request at t from the client whose queue s is (the zero
// value for a client with no requests): it drops the timestamps that have
// left the window (unless noExpiry), counts those in (t − W, t], and records
// t if the rules say so. The keyed and the dense logs both decide here.
func (s *logState) allow(t Instant, w, limit int64, r Rules, noExpiry bool) (count int64, oldest Instant, allowed bool) {
	edge := t - Instant(w)
	if noExpiry {
		count, oldest = s.q.CountAfter(edge)
	} else {
		if s.q.Len() > 0 && s.q.Oldest() <= edge { // most requests drop nothing: no call then
			s.q.DropThrough(edge)
		}
		if count = s.q.Len(); count > 0 {
			oldest = s.q.Oldest()
		}
	}
	allowed = r.admitsCount(count, limit)
	if allowed || r.CountRejected {
		s.q.Push(t)
	}
	return count, oldest, allowed
}

func (l *SlidingLog) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	if s := l.clients.get(client); s != nil {
		return l.decide(t, s)
	}
	return l.decide(t, &logState{})
}

func (l *SlidingLog) decide(t Instant, s *logState) Decision {
	count, oldest := s.q.CountAfter(t - Instant(l.w))
	return l.decision(t, count, oldest, l.cfg.Rules.admitsCount(count, l.cfg.Limit))
}

func (l *SlidingLog) decision(t Instant, count int64, oldest Instant, allowed bool) Decision {
	return Decision{Kind: KindSlidingLog, At: t, Limit: l.cfg.Limit, Window: l.cfg.Window, Rules: l.cfg.Rules,
		Count: count, Oldest: oldest, Allowed: allowed}
}

// drop removes timestamps that have left the window (unless expiry is off).
func (l *SlidingLog) drop(s *logState, t Instant) {
	if l.cfg.NoExpiry {
		return
	}
	n := s.q.DropThrough(t - Instant(l.w))
	l.mem.Entries -= n
	l.mem.Bytes -= n * timestampBytes
}

// Expire drops timestamps that have left the window at t, and clients left
// with none.
func (l *SlidingLog) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	l.clients.each(func(keyBytes int, s *logState) bool {
		l.drop(s, t)
		if s.q.Len() > 0 {
			return true
		}
		l.mem.Clients--
		l.mem.Bytes -= clientBytes[logState](keyBytes)
		return false
	})
}

// WindowCounts appends to dst how many of the client's timestamps fall in
// each of cells equal parts of its window at t: part i is
// (t − W + i·W/cells, t − W + (i+1)·W/cells]. It is the strip the
// interactive view draws, read without copying the timestamps.
func (l *SlidingLog) WindowCounts(dst []int64, t Instant, client string, cells int) []int64 {
	s := l.clients.get(client)
	from := t - Instant(l.w)
	prev := int64(0)
	if s != nil {
		prev, _ = s.q.CountAfter(from)
	}
	for i := range cells {
		var n int64
		if s != nil {
			n, _ = s.q.CountAfter(from + Instant(int64(i+1)*l.w/int64(cells)))
		}
		dst = append(dst, prev-n)
		prev = n
	}
	return dst
}

func (l *SlidingLog) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(func(s logState) logState {
		return logState{q: s.q.Clone()}
	})
	return &c
}

func (l *SlidingLog) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	l.clients.each(func(keyBytes int, s *logState) bool {
		if n, _ := s.q.CountAfter(t - Instant(l.w)); n > 0 {
			m.Clients++
			m.Entries += n
			m.Bytes += clientBytes[logState](keyBytes) + n*timestampBytes
		}
		return true
	})
	return m
}
