package redisstore

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
)

// Limiter is one of windowlab's limiters deciding on Redis. It keeps the
// in-process limiter it was made from beside it, fed the same requests:
// every answer from Redis is checked against it (a difference is an error
// of the store, see Store.Err), and it gives the figures a report prints
// (Memory) and the previews the view draws (Peek) without a round trip.
// Unpipelined, Allow returns Redis's own decision; pipelined, it returns
// the in-process one, which Redis's is checked equal to when its batch
// comes back, before any report is printed.
type Limiter struct {
	store   *Store
	local   algo.Limiter
	byID    algo.ByID // local, when it decides by id
	names   *algo.Names
	kind    algo.Kind
	cfg     algo.Config
	w, o    int64
	script  string
	name    string    // the algorithm, as reports name it
	lns     string    // the lane's part of its keys' names: lane + "." + generation + ":"
	at      []tagKeys // its namespace and expiry index under each of the store's tags (command.go)
	sha     any       // its script's SHA1
	boxed   struct{ w, limit, full any }
	used    []bool // the store's tags this lane has keys under
	lane    int
	gen     *int // generations of this lane so far, shared by its clones
	seq     *int64
	last    algo.Instant
	seen    bool
	sweep   algo.Instant // the next window edge, when the dead keys are removed
	without int64        // decisions its store's policy made (failover.go)
}

// scriptOf is each limiter's script.
var scriptOf = map[algo.Kind]string{
	algo.KindFixedWindow: "fixed", algo.KindSlidingLog: "log",
	algo.KindSlidingCounter: "counter", algo.KindTokenBucket: "bucket",
	algo.KindSegmentedWindow: "segmented",
}

// WrapAll puts every limiter of ls that can run on Redis there (Wrap);
// the others (fleets, raced tallies: simulations of several processes)
// stay in this one.
func (s *Store) WrapAll(ls []algo.Limiter) ([]algo.Limiter, error) {
	out := make([]algo.Limiter, len(ls))
	for i, l := range ls {
		out[i] = l
		if Supports(l) {
			w, err := s.Wrap(l)
			if err != nil {
				return nil, err
			}
			out[i] = w
		}
	}
	return out, nil
}

// Supports reports whether l can run on Redis: the five limiters, not a
// fleet of servers each with its own tally (those live in each server's
// process) nor a tally raced in two round trips (a simulation), nor
// redis-cell's and Spring's buckets (algo.Rules.InProcessOnly), nor the
// sliding counter with windows from each client's first request
// (HAProxy's stick table: its keys are calendar windows).
func Supports(l algo.Limiter) bool {
	switch l := l.(type) {
	case *algo.SlidingCounter:
		return l.Config().Rules.WindowStart != algo.WindowFirstEvent && !l.Config().Rules.InProcessOnly()
	case *algo.FixedWindow, *algo.SlidingLog, *algo.TokenBucket, *algo.SegmentedWindow:
		return !l.Config().Rules.InProcessOnly() // redis-cell's and Spring's buckets stay here
	}
	return false
}

// Wrap returns l deciding on Redis; l must be fresh (no requests yet) and
// Supports(l). The store owns it from now on.
func (s *Store) Wrap(l algo.Limiter) (*Limiter, error) {
	if !Supports(l) {
		return nil, fmt.Errorf("%s does not run on a store: a fleet's tallies are each server's own, a raced tally is simulated, and windows from a client's first request have no script", algo.Of(l))
	}
	c := l.Config()
	s.ops.Lock() // a view may build engines in its jobs' goroutines
	lane := s.lanes
	s.lanes++
	s.ops.Unlock()
	r := &Limiter{
		store: s, local: l, kind: l.Kind(), cfg: c,
		w: int64(c.Window / time.Millisecond), o: int64(c.Offset / time.Millisecond),
		lane: lane, gen: new(int), seq: new(int64),
	}
	r.byID, _ = l.(algo.ByID)
	r.script = scriptOf[r.kind]
	r.name = algo.Of(l).String()
	r.lns = r.namespace()
	r.used = make([]bool, len(s.tags))
	r.prepare()
	return r, nil
}

func (l *Limiter) namespace() string { return fmt.Sprintf("%d.%d:", l.lane, *l.gen) }

// nsAt is the lane's namespace under the store's tag b: the prefix of its
// keys there.
func (l *Limiter) nsAt(b int) string { return l.at[b].ns }

func (l *Limiter) Kind() algo.Kind     { return l.kind }
func (l *Limiter) Config() algo.Config { return l.cfg }

// Namespace is the prefix of this limiter's keys (on a cluster, of
// those under its first tag).
func (l *Limiter) Namespace() string { return l.nsAt(0) }

// expiryKey is the lane's expiry index under tag b: the index of its keys
// there, in their slot.
func (l *Limiter) expiryKey(b int) string { return l.at[b].index.(string) }

func (l *Limiter) Allow(t algo.Instant, client string) algo.Decision {
	return l.decide(client, l.local.Allow(t, client))
}

// UseNames shares names with the in-process limiter (algo.ByID).
func (l *Limiter) UseNames(names *algo.Names) bool {
	if l.byID == nil || !l.byID.UseNames(names) {
		return false
	}
	l.names = names
	return true
}

// AllowID is Allow for the client numbered id (algo.ByID).
func (l *Limiter) AllowID(t algo.Instant, id int32) algo.Decision {
	return l.decide(l.names.Name(id), l.byID.AllowID(t, id))
}

// decide runs the script for the request the in-process limiter has just
// decided as want, at want's instant: the in-process clock, on which an
// earlier instant counts as the latest seen.
func (l *Limiter) decide(client string, want algo.Decision) algo.Decision {
	t := want.At
	l.last = t
	if !l.seen || t >= l.sweep {
		if l.seen && !l.cfg.NoExpiry {
			l.removeDead(t)
		}
		l.seen, l.sweep = true, l.cfg.NextEdge(t)
	}
	b := l.store.tagOf(client)
	l.used[b] = true
	cmd := l.command(t, client, b)
	if l.store.policy != PolicyStop {
		if l.store.Err() != nil {
			return want
		}
		return l.decideOrPolicy(client, want, b, cmd)
	}
	// The check may run on the store's sender, later: it reads nothing the
	// caller goes on changing.
	name, kind, cfg := l.name, l.kind, l.cfg
	check := func(v any) error {
		d, err := decision(kind, cfg, t, v)
		if err != nil {
			return err
		}
		if d != want {
			return &MismatchError{Algorithm: name, Client: client, Redis: d, Local: want}
		}
		return nil
	}
	l.store.run(b, cmd, check)
	// Unpipelined, the check has run: Redis's own decision is want.
	return want
}

// MismatchError is a decision on Redis that differs from the in-process
// limiter's: a bug in one of them.
type MismatchError struct {
	Algorithm    string
	Client       string
	Redis, Local algo.Decision
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s decided differently on Redis at %s for %q: Redis %s (%s), in process %s (%s)",
		e.Algorithm, e.Local.At, e.Client, e.Redis.Verb(), e.Redis.Explain(), e.Local.Verb(), e.Local.Explain())
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// decision is a script's answer for a limiter of kind under cfg at t, as
// the in-process limiter writes it.
func decision(kind algo.Kind, cfg algo.Config, t algo.Instant, v any) (algo.Decision, error) {
	script := scriptOf[kind]
	vals, ok := v.([]any)
	if !ok || len(vals) < 2 {
		return algo.Decision{}, fmt.Errorf("redis: the %s script answered %v", script, v)
	}
	num := func(i int) (int64, error) {
		switch x := vals[i].(type) {
		case int64:
			return x, nil
		case string:
			return strconv.ParseInt(x, 10, 64)
		}
		return 0, fmt.Errorf("redis: the %s script answered %v", script, v)
	}
	allowed, err := num(0)
	if err != nil {
		return algo.Decision{}, err
	}
	d := algo.Decision{Kind: kind, At: t, Allowed: allowed == 1, Limit: cfg.Limit, Window: cfg.Window}
	if kind != algo.KindTokenBucket {
		d.Rules = cfg.Rules
	}
	var a, b int64
	if a, err = num(1); err != nil {
		return d, err
	}
	if len(vals) > 2 {
		if b, err = num(2); err != nil {
			return d, err
		}
	}
	switch kind {
	case algo.KindFixedWindow:
		d.WindowStart, d.Count = algo.Instant(a), b
	case algo.KindSlidingLog:
		d.Count, d.Oldest = a, algo.Instant(b)
	case algo.KindSlidingCounter:
		start := cfg.WindowStart(t)
		d.WindowStart, d.Count, d.Previous, d.Elapsed = start, a, b, t.Sub(start)
	case algo.KindTokenBucket:
		d.Tokens, d.Capacity = a, cfg.Capacity()
	case algo.KindSegmentedWindow:
		d.WindowStart, d.Count, d.Previous, d.Segments = segments(cfg).WindowStart(t), a, b, cfg.SegmentCount()
	}
	return d, nil
}

// segments is cfg with one segment of its segmented window for a window:
// its edges, the segments', at WindowStart.
func segments(cfg algo.Config) algo.Config {
	cfg.Window /= time.Duration(cfg.SegmentCount())
	cfg.Offset %= cfg.Window
	return cfg
}

// Peek is the in-process limiter's: it holds the same state.
func (l *Limiter) Peek(t algo.Instant, client string) algo.Decision { return l.local.Peek(t, client) }

// Expire drops what is dead at t, in process and on Redis.
func (l *Limiter) Expire(t algo.Instant) {
	l.local.Expire(t)
	if !l.cfg.NoExpiry && l.seen {
		l.removeDead(t)
	}
}

// removeDead queues the removal of every key dead at t, under each tag
// the lane has keys under.
func (l *Limiter) removeDead(t algo.Instant) {
	for b, used := range l.used {
		if used {
			l.store.run(b, evalsha(l.store.sha["sweep"], []any{l.at[b].index}, int64(t), l.at[b].ns, sweepBatch), func(any) error { return nil })
		}
	}
}

// WindowCounts is the in-process strip of the client's window (the
// view's), for a sliding log or a segmented window; nil otherwise.
func (l *Limiter) WindowCounts(dst []int64, t algo.Instant, client string, cells int) []int64 {
	switch local := l.local.(type) {
	case *algo.SlidingLog:
		return local.WindowCounts(dst, t, client, cells)
	case *algo.SegmentedWindow:
		return local.WindowCounts(dst, t, client, cells)
	}
	return dst
}

func (l *Limiter) Memory() algo.Memory                 { return l.local.Memory() }
func (l *Limiter) MemoryAt(t algo.Instant) algo.Memory { return l.local.MemoryAt(t) }

// Clone copies the lane's keys to a new namespace (COPY keeps their TTLs)
// beside a clone of the in-process limiter: a checkpoint the engine can
// return to. The copies are removed with the run's keys at Close.
func (l *Limiter) Clone() algo.Limiter {
	c := *l
	c.local = l.local.Clone()
	c.byID, _ = c.local.(algo.ByID)
	*l.gen++
	c.lns = c.namespace()
	c.used = slices.Clone(l.used)
	c.prepare()
	if l.store.Err() != nil {
		return &c
	}
	l.store.Flush()
	var err error
	for b, used := range l.used {
		if used && err == nil {
			err = l.store.scanTag(b, l.nsAt(b)+"*", func(node *redis.Client, keys []string) error {
				if !l.store.begin() { // closing: copies landing after its sweep would be left
					return l.store.errClosed()
				}
				defer l.store.end()
				ctx, cancel := l.store.ctx()
				defer cancel()
				p := node.Pipeline()
				from, to := l.nsAt(b), c.nsAt(b) // one tag: COPY stays in its slot
				for _, k := range keys {
					p.Copy(ctx, k, to+k[len(from):], 0, false)
				}
				_, err := p.Exec(ctx)
				return reason(err)
			})
		}
	}
	var closed *Error
	if errors.As(err, &closed) {
		l.store.fail(err)
	} else if err != nil && l.store.policy == PolicyStop { // under a policy, a checkpoint without the keys a primary lost
		l.store.fail(&Error{URL: l.store.url, Reason: err.Error()})
	}
	return &c
}
