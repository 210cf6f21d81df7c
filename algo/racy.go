package algo

import "time"

// Racy is a shared tally read and written in two round trips, as a store
// without a script gives it: a server reads the count (GET), decides, and
// its write (INCR) lands RTT after the read. A request read before an
// earlier one's write has landed does not see it: two servers that both
// read 99 of a limit of 100 both allow, and 101 get through. The race is
// on the virtual clock, so it is the same every time: a write lands at
// the request's instant plus RTT, and a read at t sees every write landed
// at or before t. With RTT 0 it decides as the atomic tally (one script)
// does.
//
// Its store is the algorithm's own limiter counting every request it is
// given (Rules.CountRejected), given the requests allowed (every request,
// under rules that count the rejected) when their writes land: what INCR
// does.
type Racy struct {
	alg     Algorithm
	cfg     Config
	rtt     Instant
	store   Limiter
	pending []write // in flight, by landing time (every write takes RTT)
	names   *Names
}

// write is an allowed request's INCR, in flight.
type write struct {
	at     Instant // the request's instant; it lands at at + RTT
	client string
}

// MaxRTT is the longest round trip a Racy tally may take.
const MaxRTT = time.Minute

// NewRacy returns a's shared tally under c, read and written rtt apart.
// The token bucket has no count to race on and is refused.
func NewRacy(a Algorithm, c Config, rtt time.Duration) (*Racy, error) {
	if a.Kind == KindTokenBucket {
		return nil, Problem("atomic", "the token bucket has no count to read and write in two trips; race a window limiter")
	}
	if a.Kind == KindSlidingCounter && a.Rules.WindowStart == WindowFirstEvent {
		// Its windows roll at every request, counted or not: a tally
		// that sees only the writes would roll them elsewhere.
		return nil, Problem("atomic", "windows from the client's first request roll in one process, as HAProxy's stick table does; race a calendar-window limiter")
	}
	if a.Kind == KindSegmentedWindow {
		return nil, Problem("atomic", "the segmented window is not raced in windowlab; race the fixed window, the log or the counter")
	}
	if rtt < 0 || rtt > MaxRTT || rtt%time.Millisecond != 0 {
		return nil, Problem("rtt", "%s is out of range: whole milliseconds from 0 to %s", rtt, MaxRTT)
	}
	c.Rules = a.Rules
	counting := c
	counting.Rules.CountRejected = true
	store, err := New(a.Kind, counting)
	if err != nil {
		return nil, err
	}
	return &Racy{alg: a, cfg: c, rtt: Instant(rtt / time.Millisecond), store: store}, nil
}

// Algorithm is what the tally runs, with its round trip.
func (r *Racy) Algorithm() Algorithm {
	a := r.alg
	a.Racy, a.RTT = true, r.rtt.Sub(0)
	return a
}

func (r *Racy) Kind() Kind     { return r.alg.Kind }
func (r *Racy) Config() Config { return r.cfg }

// land applies every write landed at or before t, in the order sent.
func (r *Racy) land(t Instant) {
	n := 0
	for n < len(r.pending) && r.pending[n].at+r.rtt <= t {
		w := r.pending[n]
		r.store.Allow(w.at, w.client)
		n++
	}
	if n > 0 {
		clear(r.pending[:n])
		r.pending = append(r.pending[:0], r.pending[n:]...)
	}
}

// decide reads the count at t and, allowed, sends the write.
func (r *Racy) decide(t Instant, client string) Decision {
	r.land(t)
	d := r.store.Peek(t, client)
	d.Rules = r.cfg.Rules                       // the store counts what it is given; the tally's rules are these
	if d.Allowed || r.cfg.Rules.CountRejected { // rules that count the rejected write them too
		r.pending = append(r.pending, write{at: d.At, client: client})
	}
	return d
}

func (r *Racy) Allow(t Instant, client string) Decision { return r.decide(t, client) }

// Peek is the decision a request at t would get, writes landed by then
// seen, without landing them.
func (r *Racy) Peek(t Instant, client string) Decision {
	if len(r.pending) > 0 && r.pending[0].at+r.rtt <= t {
		c := r.Clone().(*Racy)
		c.land(t)
		return c.Peek(t, client)
	}
	d := r.store.Peek(t, client)
	d.Rules = r.cfg.Rules
	return d
}

// UseNames shares names with the store (ByID).
func (r *Racy) UseNames(names *Names) bool {
	b, ok := r.store.(ByID)
	if !ok || !b.UseNames(names) {
		return false
	}
	r.names = names
	return true
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (r *Racy) AllowID(t Instant, id int32) Decision { return r.decide(t, r.names.Name(id)) }

func (r *Racy) Expire(t Instant) {
	r.land(t)
	if len(r.pending) > 0 {
		// A write still in flight lands in its request's window: the store
		// must not move its clock past that request yet.
		t = min(t, r.pending[0].at)
	}
	r.store.Expire(t)
}

// Memory is the store's: writes in flight are not in it yet.
func (r *Racy) Memory() Memory { return r.store.Memory() }

func (r *Racy) MemoryAt(t Instant) Memory { return r.store.MemoryAt(t) }

func (r *Racy) Clone() Limiter {
	c := *r
	c.store = r.store.Clone()
	c.pending = append([]write(nil), r.pending...)
	return &c
}
