package algo

import "math/bits"

// TokenBucket gives each client a bucket of Capacity tokens (Config.Burst,
// or Limit), starting full and refilling at Limit tokens per Window; a
// request is allowed iff the bucket holds at least one whole token, and
// takes it. Bursts up to the capacity pass at once, and there is no window
// edge: the lesson's next step.
//
// The level is kept exactly as an integer scaled by the window length in
// ms: one token is W units, the bucket gains Limit units per ms and holds at
// most Capacity·W units (≤ MaxLimit·MaxWindow/1ms ≈ 6·10¹⁷, inside int64).
// Refill is capped before it is multiplied, so no product overflows.
type TokenBucket struct {
	cfg     Config
	w       int64              // units per token: the window length in ms
	rate    int64              // units gained per ms: Limit
	full    int64              // capacity in units: Capacity·W
	step    int64              // ms the level waits to gain, in whole steps: 1, or 1000 for Spring's whole seconds
	shown   Rules              // the rules its decisions carry: exact.go's buckets, whose units they say
	clients table[bucketState] // by id, when an engine numbers the clients (ByID)
	keyed   keyed[bucketState] // by name, otherwise
	clock   clock
	mem     Memory
	_       [64]byte // a cache line from whatever is allocated next (sim.Engine's padding): clock and mem are written at every request
}

type bucketState struct {
	level int64   // units held at instant at
	at    Instant // when level was last brought up to date
}

// bucketsPerClient is one bucket (level and instant) per client.
const bucketsPerClient = 1

// NewTokenBucket returns a token-bucket limiter; c must be valid.
func NewTokenBucket(c Config) *TokenBucket {
	w := c.windowMs()
	l := &TokenBucket{cfg: c, w: w, rate: c.Limit, full: c.Capacity() * w, step: 1,
		keyed: newKeyed(bucketPacking), clock: newClock()}
	l.exactUnits() // redis-cell's nanoseconds, Spring's seconds (exact_bucket.go)
	return l
}

func (l *TokenBucket) Kind() Kind     { return KindTokenBucket }
func (l *TokenBucket) Config() Config { return l.cfg }
func (l *TokenBucket) Memory() Memory { return l.mem }

// levelAt is the bucket's level at t; none is gained before s.at.
func (l *TokenBucket) levelAt(s *bucketState, t Instant) int64 {
	if t <= s.at {
		return s.level
	}
	elapsed := uint64(t) - uint64(s.at) // exact for any two instants, t > s.at
	if l.step != 1 {
		elapsed = l.steps(s.at, t)
	}
	// elapsed·rate in 128 bits, against the room left: full past it.
	if hi, lo := bits.Mul64(elapsed, uint64(l.rate)); hi != 0 || lo >= uint64(l.full-s.level) {
		return l.full
	}
	return s.level + int64(elapsed)*l.rate
}

func (l *TokenBucket) Allow(t Instant, client string) Decision {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client))
	}
	t = l.advance(t)
	level, allowed := l.allowKeyed(t, client)
	return l.decision(t, level, allowed)
}

// Admit decides as Allow does, recording the same, and says only whether
// the request is allowed.
//
// Its usual request, from a client the store holds by a short name while
// no sweep is due, is decided in place in the client's record; every
// other goes through allowKeyed.
func (l *TokenBucket) Admit(t Instant, client string) bool {
	if l.clients.names == nil && l.clock.quiet(t) {
		if p, fresh := l.keyed.keys.hot(client); p != nil {
			b := (*[8 + 8]byte)(p)[:]
			s := loadBucket(b, false)
			var allowed bool
			if fresh {
				_, allowed = l.allowState(t, &s, fresh, client)
			} else { // allowState's usual request, without its call
				s.level = l.levelAt(&s, t)
				_, allowed = l.takeLevel(t, &s)
			}
			storeBucket(b, s, false)
			return allowed
		}
	}
	return l.admit(t, client)
}

// admit is Admit's every other request.
func (l *TokenBucket) admit(t Instant, client string) bool {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client)).Allowed
	}
	_, allowed := l.allowKeyed(l.advance(t), client)
	return allowed
}

// allowKeyed decides for a client by name, in the limiter's keyStore: the
// bucket's level before the request, and whether it is allowed.
func (l *TokenBucket) allowKeyed(t Instant, client string) (level int64, allowed bool) {
	b, fresh := l.keyed.keys.take(client)
	s := loadBucket(b, false)
	level, allowed = l.allowState(t, &s, fresh, client)
	storeBucket(b, s, false)
	return level, allowed
}

// allowState decides for the client named client, whose bucket is s,
// fresh (and zero) when it had none.
func (l *TokenBucket) allowState(t Instant, s *bucketState, fresh bool, client string) (level int64, allowed bool) {
	if fresh {
		l.added(s, len(client))
	} else {
		s.level = l.levelAt(s, t)
	}
	return l.takeLevel(t, s)
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *TokenBucket) UseNames(names *Names) bool {
	return l.keyed.keys.Len() == 0 && l.clients.share(names)
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *TokenBucket) AllowID(t Instant, id int32) Decision {
	l.clients.mustShare()
	t = l.advance(t)
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.added(s, l.clients.keyBytes(id))
	} else {
		s.level = l.levelAt(s, t)
	}
	return l.take(t, s)
}

// added counts a client that has just got its bucket, full.
func (l *TokenBucket) added(s *bucketState, keyBytes int) {
	s.level = l.full
	l.mem.Clients++
	l.mem.Entries += bucketsPerClient
	l.mem.Bytes += clientBytes[bucketState](keyBytes)
}

// take decides at t on the bucket's level and takes a token if allowed.
func (l *TokenBucket) take(t Instant, s *bucketState) Decision {
	level, allowed := l.takeLevel(t, s)
	return l.decision(t, level, allowed)
}

// takeLevel decides at t on the bucket's level, takes a token if allowed,
// and returns the level before.
func (l *TokenBucket) takeLevel(t Instant, s *bucketState) (level int64, allowed bool) {
	s.at = t
	level, allowed = s.level, s.level >= l.w
	if allowed {
		s.level -= l.w
	}
	return level, allowed
}

func (l *TokenBucket) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	level := l.full
	if l.clients.names != nil {
		if s := l.clients.get(client); s != nil {
			level = l.levelAt(s, t)
		}
	} else if s, ok := l.keyed.peek(client); ok {
		level = l.levelAt(&s, t)
	}
	return l.decide(t, level)
}

func (l *TokenBucket) decide(t Instant, level int64) Decision {
	return l.decision(t, level, level >= l.w)
}

func (l *TokenBucket) decision(t Instant, level int64, allowed bool) Decision {
	return Decision{
		Kind: KindTokenBucket, At: t, Limit: l.cfg.Limit, Window: l.cfg.Window, Rules: l.shown,
		Tokens: level, Capacity: l.cfg.Capacity(), Allowed: allowed,
	}
}

// Expire drops every client whose bucket is full again at t: a new bucket
// would be created full, so dropping it changes no decision.
func (l *TokenBucket) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	sweepClients(&l.clients, &l.keyed, func(keyBytes int, s *bucketState) bool {
		if l.levelAt(s, t) < l.full {
			return true
		}
		l.mem.Clients--
		l.mem.Entries -= bucketsPerClient
		l.mem.Bytes -= clientBytes[bucketState](keyBytes)
		return false
	})
}

func (l *TokenBucket) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(nil)
	c.keyed = l.keyed.clone()
	return &c
}

func (l *TokenBucket) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	eachClient(&l.clients, &l.keyed, func(keyBytes int, s *bucketState) {
		if l.levelAt(s, t) < l.full {
			m.Clients++
			m.Entries += bucketsPerClient
			m.Bytes += clientBytes[bucketState](keyBytes)
		}
	})
	return m
}

// advance reads t on the clock and sweeps idle clients when a sweep is due.
func (l *TokenBucket) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.sweepAt(t)
	}
	return t
}

// sweepAt makes the sweep due at t.
func (l *TokenBucket) sweepAt(t Instant) {
	l.clock.schedule(t, l.cfg.windowMs())
	l.Expire(t)
}

// Touch loads the state of the client numbered id (Toucher).
func (l *TokenBucket) Touch(id int32) byte { return l.clients.touch(id) }
