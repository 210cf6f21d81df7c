package algo

import "time"

// Synced is a fleet of servers that each decide on a local copy of a
// shared tally and sync it every interval, as Kong's sync_rate and
// Gubernator's GLOBAL mode do: no round trip per request, and the servers
// see each other's requests only at a sync.
//
// Exactly: each server decides on the shared tally as of the last sync
// plus its own unsynced delta (the requests it has allowed since, or
// every request it was given under rules that count the rejected). The
// sync instants are the multiples of the interval on the virtual clock;
// at each one, before any request at that instant is decided, every
// server's delta is added to the shared tally, in the order the requests
// came, and every server's view becomes the shared tally. An interval of
// 0 syncs at every request: each request reaches the shared tally at
// once, and the fleet decides as the single shared limiter does, request
// for request.
//
// Each server's own requests in a window stay within the limit (its view
// holds them all), so the fleet admits at most servers × limit in a
// window; how near it comes depends on the interval.
type Synced struct {
	alg    Algorithm // the plain algorithm, one tally
	cfg    Config
	every  Instant
	fleet  *Fleet  // routing and per-server figures; its servers are the views
	store  Limiter // the shared tally as of the last sync
	deltas []delta // unsynced writes, in arrival order
	last   Instant // the last sync instant applied
	stale  bool    // interval 0: the views have not been refreshed from store
}

// delta is one server's unsynced write.
type delta struct {
	at     Instant
	client string
}

// MaxSync is the longest sync interval.
const MaxSync = time.Hour

// NewSynced returns a on n servers routed so, syncing every interval.
func NewSynced(a Algorithm, c Config, n int, routing Routing, seed uint64, every time.Duration) (*Synced, error) {
	if err := shareable(a, "sync"); err != nil {
		return nil, err
	}
	if every < 0 || every > MaxSync || every%time.Millisecond != 0 {
		return nil, Problem("sync", "%s is out of range: whole milliseconds from 0 (every request at once) to %s", every, MaxSync)
	}
	c.Rules = a.Rules
	counting, store, err := countingStore(a, c)
	if err != nil {
		return nil, err
	}
	counter := Algorithm{Kind: a.Kind, Rules: counting.Rules}
	f, err := newFleet(counter, counting, n, routing, seed)
	if err != nil {
		return nil, err
	}
	return &Synced{alg: a, cfg: c, every: Instant(every / time.Millisecond), fleet: f, store: store, last: -1 << 62}, nil
}

// countingStore is the shared tally a synced fleet or a lagging replica
// writes to: a's limiter under c (its rules a's) counting every write, as
// a store's INCR does, and that config.
func countingStore(a Algorithm, c Config) (Config, Limiter, error) {
	c.Rules = a.Rules
	c.Rules.CountRejected = true
	store, err := New(a.Kind, c)
	return c, store, err
}

// shareable refuses what has no count to share: as Racy does.
func shareable(a Algorithm, field string) error {
	switch {
	case a.Kind == KindTokenBucket:
		return Problem(field, "the token bucket has no count to share; use a window limiter")
	case a.Kind == KindSlidingCounter && a.Rules.WindowStart == WindowFirstEvent:
		return Problem(field, "windows from the client's first request roll in one process; use a calendar-window limiter")
	case a.Kind == KindSegmentedWindow:
		return Problem(field, "the segmented window's tally is not shared in windowlab; use the fixed window, the log or the counter")
	}
	return nil
}

// Algorithm is what the fleet runs, with its servers and interval.
func (s *Synced) Algorithm() Algorithm {
	a := s.alg.Fleet(len(s.fleet.servers), s.fleet.routing)
	if s.fleet.routing == Random {
		a.Seed = s.fleet.seed
	}
	a.Synced, a.Sync = true, s.every.Sub(0)
	return a
}

func (s *Synced) Kind() Kind     { return s.alg.Kind }
func (s *Synced) Config() Config { return s.cfg }

// sync applies the sync instant at or before t, if not yet applied.
func (s *Synced) sync(t Instant) {
	if s.every == 0 {
		return
	}
	at := s.instant(t)
	if at <= s.last {
		return
	}
	s.last = at
	if len(s.deltas) == 0 {
		return
	}
	for _, w := range s.deltas {
		s.store.Allow(w.at, w.client)
	}
	clear(s.deltas)
	s.deltas = s.deltas[:0]
	s.refresh()
}

// instant is the last sync instant at or before t: a multiple of the
// interval, counted from 0 (before it too).
func (s *Synced) instant(t Instant) Instant {
	m := t % s.every
	if m < 0 {
		m += s.every
	}
	return t - m
}

// refresh makes every server's view the shared tally.
func (s *Synced) refresh() {
	for i := range s.fleet.servers {
		s.fleet.servers[i] = s.store.Clone()
	}
	s.stale = false
}

func (s *Synced) Allow(t Instant, client string) Decision {
	s.sync(t)
	i := s.fleet.route(client, true)
	if s.every == 0 {
		d := s.store.Peek(t, client)
		d.Rules = s.cfg.Rules
		if d.Allowed || s.cfg.Rules.CountRejected {
			s.store.Allow(t, client)
			s.stale = true
		}
		return s.fleet.count(i, d)
	}
	v := s.fleet.servers[i]
	d := v.Peek(t, client)
	d.Rules = s.cfg.Rules
	if d.Allowed || s.cfg.Rules.CountRejected {
		v.Allow(t, client)
		s.deltas = append(s.deltas, delta{at: t, client: client})
	}
	return s.fleet.count(i, d)
}

// Peek is the decision a request at t would get, a sync due by then
// applied to a copy.
func (s *Synced) Peek(t Instant, client string) Decision {
	if s.every > 0 && s.instant(t) > s.last && len(s.deltas) > 0 {
		c := s.Clone().(*Synced)
		c.sync(t)
		return c.Peek(t, client)
	}
	var d Decision
	if s.every == 0 {
		d = s.store.Peek(t, client)
	} else {
		d = s.fleet.servers[s.fleet.route(client, false)].Peek(t, client)
	}
	d.Rules = s.cfg.Rules
	return d
}

// Servers are the servers' views, each the shared tally as of the last
// sync plus its own unsynced delta; callers may Peek, never Allow.
func (s *Synced) Servers() []Limiter {
	if s.stale {
		s.refresh()
	}
	return s.fleet.servers
}

// Shared is the shared tally as of the last sync.
func (s *Synced) Shared() Limiter { return s.store }

// Server is the server a request from client at this point would reach.
func (s *Synced) Server(client string) int { return s.fleet.Server(client) }

// Tallies are what each server decided, in server order.
func (s *Synced) Tallies() []ServerTally { return s.fleet.Tallies() }

func (s *Synced) Expire(t Instant) {
	s.fleet.Expire(t) // a view holds its own writes, all at or before t
	if len(s.deltas) > 0 {
		t = min(t, s.deltas[0].at) // an unsynced write lands in its request's window
	}
	s.store.Expire(t)
}

// Memory is the shared tally's and every server's local copy.
func (s *Synced) Memory() Memory { return s.sum(s.store.Memory(), s.fleet.Memory()) }

func (s *Synced) MemoryAt(t Instant) Memory {
	return s.sum(s.store.MemoryAt(t), s.fleet.MemoryAt(t))
}

func (s *Synced) sum(a, b Memory) Memory {
	if s.every == 0 {
		return a // the views are not kept: every server reads the shared tally
	}
	return a.plus(b)
}

func (s *Synced) Clone() Limiter {
	c := *s
	c.fleet = s.fleet.Clone().(*Fleet)
	c.store = s.store.Clone()
	c.deltas = append([]delta(nil), s.deltas...)
	return &c
}
