package algo

import "time"

// Lagged is a shared tally whose replica trails it by a lag, failing over
// to the replica at a named instant, as a Redis primary whose replication
// is asynchronous does when it dies.
//
// Exactly: until the failover every request is decided on the primary, at
// once (one script). The replica holds every write made at or before
// t − lag. At the failover instant, before any request at it is decided,
// the replica becomes the tally: the writes of the last lag (after
// failover − lag, before failover) are lost, and the tally goes on from
// the replica's state with no replica behind it. A lag of 0 loses
// nothing. Requests admitted beyond the limit after the failover never
// exceed the writes lost.
type Lagged struct {
	alg     Algorithm // the plain algorithm
	cfg     Config
	lag, at Instant
	store   Limiter // the tally: the primary, then the promoted replica
	replica Limiter // the writes made by lag ago; nil once failed over
	pending []write // writes not on the replica yet, in order
	lost    int64
}

// NewLagged returns a's shared tally under c, its replica lag behind,
// failing over at the instant at.
func NewLagged(a Algorithm, c Config, lag time.Duration, at Instant) (*Lagged, error) {
	if err := shareable(a, "replica_lag"); err != nil {
		return nil, err
	}
	if lag < 0 || lag > MaxRTT || lag%time.Millisecond != 0 {
		return nil, Problem("replica_lag", "%s is out of range: whole milliseconds from 0 to %s", lag, MaxRTT)
	}
	c.Rules = a.Rules
	_, store, err := countingStore(a, c)
	if err != nil {
		return nil, err
	}
	return &Lagged{alg: a, cfg: c, lag: Instant(lag / time.Millisecond), at: at, store: store, replica: store.Clone()}, nil
}

// Algorithm is what the tally runs, with its lag and failover.
func (l *Lagged) Algorithm() Algorithm {
	a := l.alg
	a.Lagged, a.Lag, a.Failover = true, l.lag.Sub(0), l.at
	return a
}

func (l *Lagged) Kind() Kind     { return l.alg.Kind }
func (l *Lagged) Config() Config { return l.cfg }

// Lost is how many writes the failover lost, 0 before it.
func (l *Lagged) Lost() int64 { return l.lost }

// FailedOver reports whether the replica has taken over.
func (l *Lagged) FailedOver() bool { return l.replica == nil }

// Lag is how far the replica trails, and At the failover instant.
func (l *Lagged) Lag() time.Duration { return l.lag.Sub(0) }
func (l *Lagged) At() Instant        { return l.at }

// replicate lands on the replica every write made at or before t − lag.
func (l *Lagged) replicate(t Instant) {
	n := 0
	for n < len(l.pending) && l.pending[n].at <= t-l.lag {
		l.replica.Allow(l.pending[n].at, l.pending[n].client)
		n++
	}
	if n > 0 {
		clear(l.pending[:n])
		l.pending = append(l.pending[:0], l.pending[n:]...)
	}
}

// advance moves the tally to t: replication, and the failover when due.
func (l *Lagged) advance(t Instant) {
	if l.replica == nil {
		return
	}
	if t < l.at {
		l.replicate(t)
		return
	}
	l.replicate(l.at)
	l.lost = int64(len(l.pending))
	l.store, l.replica, l.pending = l.replica, nil, nil
}

func (l *Lagged) Allow(t Instant, client string) Decision {
	l.advance(t)
	d := l.store.Peek(t, client)
	d.Rules = l.cfg.Rules
	if d.Allowed || l.cfg.Rules.CountRejected {
		l.store.Allow(t, client)
		if l.replica != nil {
			l.pending = append(l.pending, write{at: t, client: client})
		}
	}
	return d
}

func (l *Lagged) Peek(t Instant, client string) Decision {
	if l.replica != nil && t >= l.at {
		c := l.Clone().(*Lagged)
		c.advance(t)
		return c.Peek(t, client)
	}
	d := l.store.Peek(t, client)
	d.Rules = l.cfg.Rules
	return d
}

func (l *Lagged) Expire(t Instant) {
	l.store.Expire(t)
	if l.replica != nil {
		l.replica.Expire(min(t, t-l.lag))
	}
}

// Memory is the tally's: the replica's copy is the store's business.
func (l *Lagged) Memory() Memory { return l.store.Memory() }

func (l *Lagged) MemoryAt(t Instant) Memory { return l.store.MemoryAt(t) }

func (l *Lagged) Clone() Limiter {
	c := *l
	c.store = l.store.Clone()
	if l.replica != nil {
		c.replica = l.replica.Clone()
	}
	c.pending = append([]write(nil), l.pending...)
	return &c
}
