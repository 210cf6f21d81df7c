package algo

import "unsafe"

// FixedWindow keeps one counter per client per calendar window
// ⌊t / W⌋ and allows while that window's count of accepted requests is
// below the limit. Cheap and simple; lets up to twice the limit through
// across a window edge.
type FixedWindow struct {
	cfg     Config
	w       int64 // window length in ms
	clients table[fixedState]
	retired []retiredWindow // with expiry off: every finished window, forever
	last    Instant
	sweep   sweeper
	mem     Memory
}

type fixedState struct {
	window int64 // window index ⌊t / W⌋
	count  int64 // accepted requests in that window
}

// retiredWindow is a counter a store without TTLs would still hold.
type retiredWindow struct {
	client string
	window int64
	count  int64
}

const retiredBytes = int64(unsafe.Sizeof(retiredWindow{}))

// NewFixedWindow returns a fixed-window limiter; c must be valid (Config.Validate).
func NewFixedWindow(c Config) *FixedWindow {
	return &FixedWindow{cfg: c, w: c.windowMs(), clients: newTable[fixedState](), last: minInstant}
}

func (l *FixedWindow) Kind() Kind     { return KindFixedWindow }
func (l *FixedWindow) Config() Config { return l.cfg }
func (l *FixedWindow) Memory() Memory { return l.mem }

func (l *FixedWindow) Allow(t Instant, client string) Decision {
	t = l.advance(t)
	idx := floorDiv(int64(t), l.w)
	s := l.clients.get(client)
	if s == nil {
		s = l.clients.add(client)
		s.window = idx
		l.mem.Clients++
		l.mem.Entries++
		l.mem.Bytes += clientBytes[fixedState](client)
	} else if s.window != idx {
		if l.cfg.NoExpiry {
			l.retire(client, s.window, s.count)
		}
		*s = fixedState{window: idx}
	}
	d := l.decide(t, idx, s.count)
	if d.Allowed {
		s.count++
	}
	return d
}

func (l *FixedWindow) Peek(t Instant, client string) Decision {
	if t < l.last {
		t = l.last
	}
	idx := floorDiv(int64(t), l.w)
	var count int64
	if s := l.clients.get(client); s != nil && s.window == idx {
		count = s.count
	}
	return l.decide(t, idx, count)
}

func (l *FixedWindow) decide(t Instant, idx, count int64) Decision {
	return Decision{
		Kind: KindFixedWindow, At: t, Limit: l.cfg.Limit, Window: l.cfg.Window,
		WindowStart: Instant(idx * l.w), Count: count, Allowed: count < l.cfg.Limit,
	}
}

// advance keeps the clock monotonic and sweeps idle clients once per window.
func (l *FixedWindow) advance(t Instant) Instant {
	if t < l.last {
		t = l.last
	}
	l.last = t
	if l.sweep.due(t, l.w) {
		l.Expire(t)
	}
	return t
}

func (l *FixedWindow) retire(client string, window, count int64) {
	l.retired = append(l.retired, retiredWindow{client, window, count})
	l.mem.Entries++
	l.mem.Bytes += retiredBytes
}

// Expire drops every client whose window has ended by t: its counter can
// never be consulted again.
func (l *FixedWindow) Expire(t Instant) {
	if t > l.last {
		l.last = t // t counts as seen, so no later request is decided on dropped state
	}
	if l.cfg.NoExpiry {
		return
	}
	idx := floorDiv(int64(t), l.w)
	l.clients.each(func(key string, s *fixedState) bool {
		if s.window >= idx {
			return true
		}
		l.mem.Clients--
		l.mem.Entries--
		l.mem.Bytes -= clientBytes[fixedState](key)
		return false
	})
}

func (l *FixedWindow) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(nil)
	c.retired = append([]retiredWindow(nil), l.retired...)
	return &c
}

func (l *FixedWindow) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	idx := floorDiv(int64(t), l.w)
	var m Memory
	l.clients.each(func(key string, s *fixedState) bool {
		if s.window >= idx {
			m.Clients++
			m.Entries++
			m.Bytes += clientBytes[fixedState](key)
		}
		return true
	})
	return m
}
