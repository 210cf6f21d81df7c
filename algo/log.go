package algo

import "sort"

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

// logState is a queue of accepted timestamps, oldest first, from head on.
type logState struct {
	ts   []Instant
	head int
}

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
		l.mem.Bytes += clientBytes[logState](client)
	}
	entries, capacity := len(s.ts)-s.head, cap(s.ts)
	count, oldest, allowed := s.allow(t, l.w, l.cfg.Limit, l.cfg.Rules, l.cfg.NoExpiry)
	l.mem.Entries += int64(len(s.ts) - s.head - entries)
	l.mem.Bytes += int64(cap(s.ts)-capacity) * timestampBytes
	return l.decision(t, count, oldest, allowed)
}

// allow decides one request at t from the client whose queue s is (the zero
// value for a client with no requests): it drops the timestamps that have
// left the window (unless noExpiry), counts those in (t − W, t], and records
// t if the rules say so. The keyed and the dense logs both decide here.
func (s *logState) allow(t Instant, w, limit int64, r Rules, noExpiry bool) (count int64, oldest Instant, allowed bool) {
	edge := t - Instant(w)
	first := s.head
	if noExpiry {
		first = s.inWindow(edge)
	} else {
		// Each timestamp leaves once: a scan from the head costs O(1) amortised.
		for first < len(s.ts) && s.ts[first] <= edge {
			first++
		}
		s.head = first
		if first == len(s.ts) {
			s.ts, s.head, first = s.ts[:0], 0, 0
		}
	}
	count = int64(len(s.ts) - first)
	if count > 0 {
		oldest = s.ts[first]
	}
	allowed = r.admitsCount(count, limit)
	if allowed || r.CountRejected {
		s.push(t)
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

// inWindow returns the index of the first timestamp inside (t − W, t].
func (l *SlidingLog) inWindow(s *logState, t Instant) int { return s.inWindow(t - Instant(l.w)) }

// inWindow returns the index of the first timestamp after edge.
func (s *logState) inWindow(edge Instant) int {
	live := s.ts[s.head:]
	return s.head + sort.Search(len(live), func(i int) bool { return live[i] > edge })
}

func (l *SlidingLog) decide(t Instant, s *logState) Decision {
	first := l.inWindow(s, t)
	count := int64(len(s.ts) - first)
	var oldest Instant
	if count > 0 {
		oldest = s.ts[first]
	}
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
	first := l.inWindow(s, t)
	l.mem.Entries -= int64(first - s.head)
	s.head = first
	if s.head == len(s.ts) {
		s.ts, s.head = s.ts[:0], 0
	}
}

func (s *logState) push(t Instant) {
	if len(s.ts) == cap(s.ts) && s.head > 0 {
		// Reuse the room left by expired timestamps before growing.
		n := copy(s.ts, s.ts[s.head:])
		s.ts, s.head = s.ts[:n], 0
	}
	s.ts = append(s.ts, t)
}

// Expire drops timestamps that have left the window at t, and clients left
// with none.
func (l *SlidingLog) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	l.clients.each(func(key string, s *logState) bool {
		l.drop(s, t)
		if len(s.ts) > 0 {
			return true
		}
		l.mem.Clients--
		l.mem.Bytes -= clientBytes[logState](key) + int64(cap(s.ts))*timestampBytes
		return false
	})
}

// AppendWindow appends the client's timestamps inside (t − W, t] to dst,
// oldest first: the strip the interactive view draws.
func (l *SlidingLog) AppendWindow(dst []Instant, t Instant, client string) []Instant {
	s := l.clients.get(client)
	if s == nil {
		return dst
	}
	return append(dst, s.ts[l.inWindow(s, t):]...)
}

func (l *SlidingLog) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(func(s logState) logState {
		// Same length, capacity and head, so the clone reports the same memory.
		ts := make([]Instant, len(s.ts), cap(s.ts))
		copy(ts, s.ts)
		return logState{ts: ts, head: s.head}
	})
	return &c
}

func (l *SlidingLog) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	l.clients.each(func(key string, s *logState) bool {
		if n := len(s.ts) - l.inWindow(s, t); n > 0 {
			m.Clients++
			m.Entries += int64(n)
			m.Bytes += clientBytes[logState](key) + int64(cap(s.ts))*timestampBytes
		}
		return true
	})
	return m
}
