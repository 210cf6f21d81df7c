package algo

import (
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"windowlab/internal/long"
)

// ref is an obviously-correct limiter for the differential tests: it keeps
// the list of accepted (client, t) pairs and recounts from scratch for every
// question. It knows nothing of the code under test.
type ref struct {
	kind     Kind
	limit, w int64
	o        int64 // Config.Offset in ms: window k is [o + k·W, o + (k+1)·W)
	noExpiry bool
	rules    Rules
	capacity int64 // token bucket, in tokens
	segs     int64 // segmented window: S, segments of w/S ms

	last     Instant
	started  bool
	accepted []refReq
	counted  []refReq           // what the window limiters count: accepted, or every request (Rules.CountRejected)
	calls    []refReq           // every (clamped) Allow
	counts   []bool             // whether each of calls was counted
	lastCall map[string]Instant // latest (clamped) Allow per client, accepted or not
}

type refReq struct {
	client string
	at     Instant
}

func newRef(k Kind, c Config) *ref {
	capacity := c.Burst
	if capacity == 0 {
		capacity = c.Limit
	}
	w := int64(c.Window / time.Millisecond)
	segs := c.Segments
	if segs == 0 { // the default: 4, or the largest divisor of w below it
		for segs = 4; w%segs != 0; segs-- {
		}
	}
	return &ref{kind: k, limit: c.Limit, w: w, o: int64(c.Offset / time.Millisecond),
		noExpiry: c.NoExpiry, rules: c.Rules, capacity: capacity, segs: segs, lastCall: map[string]Instant{}}
}

// segment is the index of the segmented window's segment holding t,
// ⌊(t − o) / (W/S)⌋, by the definition of floor.
func (r *ref) segment(t Instant) int64 {
	seg := r.w / r.segs
	u := int64(t) - r.o
	q := u / seg
	for q*seg > u {
		q--
	}
	for (q+1)*seg <= u {
		q++
	}
	return q
}

// segmentedCounts are the client's counted requests in the S segments
// ending with k's, and in the oldest of them.
func (r *ref) segmentedCounts(client string, k int64) (count, oldest int64) {
	for _, a := range r.counted {
		if i := r.segment(a.at); a.client == client && i > k-r.segs && i <= k {
			count++
			if i == k-r.segs+1 {
				oldest++
			}
		}
	}
	return count, oldest
}

func (r *ref) clone() *ref {
	c := *r
	c.accepted = append([]refReq(nil), r.accepted...)
	c.counted = append([]refReq(nil), r.counted...)
	c.calls = append([]refReq(nil), r.calls...)
	c.counts = append([]bool(nil), r.counts...)
	c.lastCall = make(map[string]Instant, len(r.lastCall))
	for k, v := range r.lastCall {
		c.lastCall[k] = v
	}
	return &c
}

// window is the window index ⌊(t − o) / W⌋, by the definition of floor.
func (r *ref) window(t Instant) int64 {
	u := int64(t) - r.o
	q := u / r.w
	for q*r.w > u {
		q--
	}
	for (q+1)*r.w <= u {
		q++
	}
	return q
}

// edge is where window k starts.
func (r *ref) edge(k int64) Instant { return Instant(k*r.w + r.o) }

// clamp applies "an earlier instant is treated as the latest one seen".
func (r *ref) clamp(t Instant) Instant {
	if r.started && t < r.last {
		return r.last
	}
	return t
}

func (r *ref) see(t Instant) {
	r.last, r.started = t, true
}

// fixedStarts lists the starts of the client's fixed windows, oldest first,
// from its Allow calls: aligned windows ⌊t/W⌋·W, or (WindowFirstRequest) a
// window at each call at or after the end of the one before.
func (r *ref) fixedStarts(client string) []Instant {
	var starts []Instant
	for _, a := range r.calls {
		if a.client != client {
			continue
		}
		start := r.edge(r.window(a.at))
		if r.rules.WindowStart == WindowFirstRequest {
			start = a.at
			if n := len(starts); n > 0 && a.at < starts[n-1]+Instant(r.w) {
				start = starts[n-1]
			}
		}
		if n := len(starts); n == 0 || starts[n-1] != start {
			starts = append(starts, start)
		}
	}
	return starts
}

// fixedStart is the start of the fixed window a request from client at t
// falls in.
func (r *ref) fixedStart(client string, t Instant) Instant {
	if r.rules.WindowStart != WindowFirstRequest {
		return r.edge(r.window(t))
	}
	if starts := r.fixedStarts(client); len(starts) > 0 && t < starts[len(starts)-1]+Instant(r.w) {
		return starts[len(starts)-1]
	}
	return t
}

// admits applies the rules' comparison to v, the count or rounded estimate.
func (r *ref) admits(v *big.Rat) bool {
	l := new(big.Rat).SetInt64(r.limit)
	switch r.rules.Compare {
	case CompareLess:
		return v.Cmp(l) < 0
	case ComparePlusOneAtMost:
		return new(big.Rat).Add(v, big.NewRat(1, 1)).Cmp(l) <= 0
	case CompareAtMost:
		return v.Cmp(l) <= 0
	}
	panic("unknown comparison")
}

// round rounds v ≥ 0 by the rules, by the definitions of floor and half up.
func (r *ref) round(v *big.Rat) *big.Rat {
	switch r.rules.Rounding {
	case RoundFloor:
		return new(big.Rat).SetInt(new(big.Int).Quo(v.Num(), v.Denom()))
	case RoundHalfUp:
		h := new(big.Rat).Add(v, big.NewRat(1, 2))
		return new(big.Rat).SetInt(new(big.Int).Quo(h.Num(), h.Denom()))
	}
	return v
}

// bucket replays the client's accepted requests through a bucket of
// rational tokens and returns its level at t, in tokens.
func (r *ref) bucket(client string, t Instant) *big.Rat {
	full := new(big.Rat).SetInt64(r.capacity)
	level := new(big.Rat).Set(full)
	refill := func(from, to Instant) {
		level.Add(level, big.NewRat((int64(to)-int64(from))*r.limit, r.w))
		if level.Cmp(full) > 0 {
			level.Set(full)
		}
	}
	var prev Instant
	seen := false
	for _, a := range r.accepted {
		if a.client != client {
			continue
		}
		if seen {
			refill(prev, a.at)
		}
		level.Sub(level, big.NewRat(1, 1))
		prev, seen = a.at, true
	}
	if seen && t > prev {
		refill(prev, t)
	}
	return level
}

// decide answers a request from client at t (already clamped).
func (r *ref) decide(t Instant, client string) Decision {
	d := Decision{Kind: r.kind, At: t, Limit: r.limit, Window: time.Duration(r.w) * time.Millisecond, Rules: r.rules}
	c := r.window(t)
	switch r.kind {
	case KindFixedWindow:
		start := r.fixedStart(client, t)
		for _, a := range r.counted {
			if a.client == client && a.at >= start && a.at < start+Instant(r.w) {
				d.Count++
			}
		}
		d.WindowStart = start
		d.Allowed = r.admits(big.NewRat(d.Count, 1))
	case KindSlidingLog:
		for _, a := range r.counted {
			if a.client == client && a.at > t-Instant(r.w) && a.at <= t {
				if d.Count == 0 || a.at < d.Oldest {
					d.Oldest = a.at
				}
				d.Count++
			}
		}
		d.Allowed = r.admits(big.NewRat(d.Count, 1))
	case KindTokenBucket:
		d.Rules = Rules{}
		level := r.bucket(client, t)
		units := new(big.Rat).Mul(level, big.NewRat(r.w, 1))
		if !units.IsInt() {
			panic("reference: a bucket level is not a whole number of units")
		}
		d.Tokens = units.Num().Int64()
		d.Capacity = r.capacity
		d.Allowed = level.Cmp(big.NewRat(1, 1)) >= 0
	case KindSegmentedWindow:
		k := r.segment(t)
		d.Count, d.Previous = r.segmentedCounts(client, k)
		d.WindowStart = Instant(k*(r.w/r.segs) + r.o)
		d.Segments = r.segs
		d.Allowed = r.admits(big.NewRat(d.Count, 1))
	case KindSlidingCounter:
		if r.rules.WindowStart == WindowFirstEvent {
			r.decideFirstEvent(&d, client, t)
			break
		}
		for _, a := range r.counted {
			if a.client != client {
				continue
			}
			switch r.window(a.at) {
			case c:
				d.Count++
			case c - 1:
				d.Previous++
			}
		}
		d.WindowStart = r.edge(c)
		elapsed := int64(t - r.edge(c))
		d.Elapsed = time.Duration(elapsed) * time.Millisecond
		est := big.NewRat(d.Previous*(r.w-elapsed), r.w)
		est.Add(est, big.NewRat(d.Count, 1))
		d.Allowed = r.admits(r.round(est))
	}
	return d
}

func (r *ref) allow(t Instant, client string) Decision {
	t = r.clamp(t)
	r.see(t)
	d := r.decide(t, client)
	if d.Allowed {
		r.accepted = append(r.accepted, refReq{client, t})
	}
	if d.Allowed || (r.rules.CountRejected && r.kind != KindTokenBucket) {
		r.counted = append(r.counted, refReq{client, t})
	}
	r.calls = append(r.calls, refReq{client, t})
	r.counts = append(r.counts, d.Allowed || (r.rules.CountRejected && r.kind != KindTokenBucket))
	r.lastCall[client] = t
	return d
}

func (r *ref) peek(t Instant, client string) Decision { return r.decide(r.clamp(t), client) }

// expire: the instant passed to Expire counts as seen.
func (r *ref) expire(t Instant) { r.see(r.clamp(t)) }

// memory returns the Clients and Entries a limiter must hold at t if it has
// dropped everything that can no longer matter (with expiry on), or
// everything it was ever given (with expiry off).
func (r *ref) memory(t Instant) (clients, entries int64) {
	if r.kind == KindSlidingCounter && r.rules.WindowStart == WindowFirstEvent {
		return r.memoryFirstEvent(t)
	}
	switch {
	case r.noExpiry && r.kind == KindFixedWindow:
		// One counter per (client, window) ever used.
		for client := range r.lastCall {
			entries += int64(len(r.fixedStarts(client)))
		}
		return int64(len(r.lastCall)), entries
	case r.noExpiry && r.kind == KindSlidingLog:
		return int64(len(r.lastCall)), int64(len(r.counted))
	case r.noExpiry && r.kind == KindTokenBucket:
		return int64(len(r.lastCall)), int64(len(r.lastCall))
	case r.noExpiry && r.kind == KindSlidingCounter:
		// Two live counters per client, plus every non-empty window
		// counter that fell out of use.
		pairs := map[refReq]bool{}
		for _, a := range r.counted {
			if w := r.window(a.at); w < r.window(r.lastCall[a.client])-1 {
				pairs[refReq{a.client, Instant(w)}] = true
			}
		}
		return int64(len(r.lastCall)), 2*int64(len(r.lastCall)) + int64(len(pairs))
	case r.kind == KindFixedWindow:
		// A client's counter matters while its latest window holds t.
		for client := range r.lastCall {
			starts := r.fixedStarts(client)
			if t < starts[len(starts)-1]+Instant(r.w) {
				clients++
			}
		}
		return clients, clients
	case r.kind == KindTokenBucket:
		// A bucket matters until it is full again.
		for client := range r.lastCall {
			if r.bucket(client, t).Cmp(big.NewRat(r.capacity, 1)) < 0 {
				clients++
			}
		}
		return clients, clients
	case r.kind == KindSlidingLog:
		per := map[string]int64{}
		for _, a := range r.counted {
			if a.at > t-Instant(r.w) {
				per[a.client]++
				entries++
			}
		}
		return int64(len(per)), entries
	case r.noExpiry && r.kind == KindSegmentedWindow:
		return int64(len(r.lastCall)), r.segs * int64(len(r.lastCall))
	case r.kind == KindSegmentedWindow:
		// A ring matters while a count in it is in the window at t.
		for client := range r.lastCall {
			if n, _ := r.segmentedCounts(client, r.segment(t)); n > 0 {
				clients++
			}
		}
		return clients, r.segs * clients
	case r.kind == KindSlidingCounter:
		for _, at := range r.lastCall {
			if r.window(at) >= r.window(t)-1 {
				clients++
			}
		}
		return clients, 2 * clients
	}
	panic("unknown kind")
}

// sameEvidence reports how got differs from the reference's want, or "".
func sameEvidence(got, want Decision) string {
	var bad []string
	if got.Kind != want.Kind || got.At != want.At || got.Limit != want.Limit || got.Window != want.Window {
		bad = append(bad, "Kind/At/Limit/Window")
	}
	if got.Allowed != want.Allowed {
		bad = append(bad, "Allowed")
	}
	if got.Count != want.Count {
		bad = append(bad, "Count")
	}
	switch want.Kind {
	case KindFixedWindow:
		if got.WindowStart != want.WindowStart {
			bad = append(bad, "WindowStart")
		}
	case KindSlidingLog:
		if want.Count > 0 && got.Oldest != want.Oldest {
			bad = append(bad, "Oldest")
		}
	case KindSlidingCounter:
		if got.WindowStart != want.WindowStart || got.Previous != want.Previous || got.Elapsed != want.Elapsed {
			bad = append(bad, "WindowStart/Previous/Elapsed")
		}
	case KindTokenBucket:
		if got.Tokens != want.Tokens || got.Capacity != want.Capacity {
			bad = append(bad, "Tokens/Capacity")
		}
	case KindSegmentedWindow:
		if got.WindowStart != want.WindowStart || got.Previous != want.Previous || got.Segments != want.Segments {
			bad = append(bad, "WindowStart/Previous/Segments")
		}
	}
	if got.Rules != want.Rules {
		bad = append(bad, "Rules")
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("%s differ\n  got  %+v\n  want %+v", strings.Join(bad, ", "), got, want)
}

type opKind uint8

const (
	opAllow opKind = iota
	opPeek
	opExpire
	opMemory
)

type event struct {
	op     opKind
	at     Instant
	client string
}

func (e event) String() string {
	return fmt.Sprintf("%s(%d, %q)", [...]string{"Allow", "Peek", "Expire", "Memory"}[e.op], int64(e.at), e.client)
}

// stream is one random test case.
type stream struct {
	cfg    Config
	events []event
}

var clientNames = []string{"a", "b", "client-c", "d", "e-with-a-longer-name"}

// randomStream makes a sequence with small limits and windows, a few
// clients, many same-instant arrivals and window-edge steps. Times never go
// backwards unless backwards is set; Expire may run ahead of requests.
func randomStream(r *rand.Rand, backwards bool) stream {
	w := 1 + r.Int64N(50)
	s := stream{cfg: Config{Limit: 1 + r.Int64N(5), Window: time.Duration(w) * time.Millisecond}}
	nClients := 1 + r.IntN(len(clientNames))
	t := Instant(r.Int64N(4*w) - 2*w)
	if r.IntN(2) == 0 {
		t += Clock(12, 0, 0, 0)
	}
	if r.IntN(3) == 0 { // edges moved, as a zone's calendar moves them
		s.cfg.Offset = time.Duration(r.Int64N(w)) * time.Millisecond
	}
	n := 20 + r.IntN(180)
	for range n {
		switch p := r.IntN(100); {
		case p < 45: // same instant
		case p < 60:
			t++
		case p < 68:
			t += Instant(w - 1)
		case p < 76:
			t += Instant(w)
		case p < 82:
			t += Instant(w + 1)
		case p < 95:
			t += Instant(r.Int64N(3*w + 1))
		default:
			if backwards {
				t -= Instant(1 + r.Int64N(2*w))
			} else {
				t += Instant(2 * w)
			}
		}
		e := event{op: opAllow, at: t, client: clientNames[r.IntN(nClients)]}
		switch p := r.IntN(100); {
		case p < 8:
			e.op = opPeek
			if r.IntN(4) == 0 {
				e.client = "never-seen"
			}
			e.at += Instant(r.Int64N(2*w+1) - w) // also earlier and later than the clock
		case p < 13:
			e.op = opExpire
			e.at += Instant(r.Int64N(2*w + 1))
		case p < 20:
			e.op = opMemory
		}
		s.events = append(s.events, e)
	}
	return s
}

// checker runs one limiter against the reference and fails on the first
// difference, printing the events that led to it.
type checker struct {
	t      *testing.T
	name   string
	l      Limiter
	r      *ref
	done   []event
	prev   Memory
	failed bool
}

func (c *checker) fail(format string, args ...any) {
	c.t.Helper()
	hist := c.done
	if len(hist) > 25 {
		hist = hist[len(hist)-25:]
	}
	c.t.Errorf("%s, after %d events (last ones %v):\n%s", c.name, len(c.done), hist, fmt.Sprintf(format, args...))
	c.failed = true
}

func (c *checker) step(e event) {
	c.t.Helper()
	c.done = append(c.done, e)
	before := c.l.Memory()
	switch e.op {
	case opAllow:
		if msg := sameEvidence(c.l.Allow(e.at, e.client), c.r.allow(e.at, e.client)); msg != "" {
			c.fail("Allow: %s", msg)
			return
		}
	case opPeek:
		if msg := sameEvidence(c.l.Peek(e.at, e.client), c.r.peek(e.at, e.client)); msg != "" {
			c.fail("Peek: %s", msg)
			return
		}
		if m := c.l.Memory(); m != before {
			c.fail("Peek changed Memory from %+v to %+v", before, m)
			return
		}
	case opExpire:
		wasAhead := !c.r.started || e.at >= c.r.last
		c.l.Expire(e.at)
		c.r.expire(e.at)
		if wasAhead && !c.r.noExpiry {
			// Right after Expire(t) at the clock, memory is exactly what matters.
			clients, entries := c.r.memory(e.at)
			if m := c.l.Memory(); m.Clients != clients || m.Entries != entries {
				c.fail("after Expire: Memory %+v, want Clients %d Entries %d", m, clients, entries)
				return
			}
		}
	}
	if e.op == opMemory && c.r.started {
		c.checkMemoryAt()
		if c.failed {
			return
		}
	}
	m := c.l.Memory()
	clients, entries := c.r.memory(c.r.last)
	if c.r.noExpiry {
		// Nothing is ever dropped: exact, and never shrinking.
		if m.Clients != clients || m.Entries != entries {
			c.fail("no expiry: Memory %+v, want Clients %d Entries %d", m, clients, entries)
			return
		}
		if m.Clients < c.prev.Clients || m.Entries < c.prev.Entries || m.Bytes < c.prev.Bytes {
			c.fail("no expiry: Memory shrank from %+v to %+v", c.prev, m)
			return
		}
	} else {
		// Lazily expired: at least what still matters, at most everyone seen.
		if m.Clients < clients || m.Entries < entries || m.Clients > int64(len(c.r.lastCall)) {
			c.fail("Memory %+v, want at least Clients %d Entries %d, at most %d clients",
				m, clients, entries, len(c.r.lastCall))
			return
		}
	}
	if (m.Clients == 0) != (m.Bytes == 0) || (m.Clients == 0) != (m.Entries == 0) {
		c.fail("Memory %+v: clients, entries and bytes must be zero together", m)
	}
	c.prev = m
}

// checkMemoryAt compares MemoryAt at the clock with what matters there, and
// with what a clone holds after really expiring; it must change nothing.
func (c *checker) checkMemoryAt() {
	c.t.Helper()
	before := c.l.Memory()
	at := c.l.MemoryAt(c.r.last)
	if m := c.l.Memory(); m != before {
		c.fail("MemoryAt changed Memory %+v → %+v", before, m)
		return
	}
	if c.r.noExpiry {
		if at != before {
			c.fail("no expiry: MemoryAt %+v, Memory %+v; want the same", at, before)
		}
		return
	}
	clients, entries := c.r.memory(c.r.last)
	if at.Clients != clients || at.Entries != entries {
		c.fail("MemoryAt(%d) = %+v, want Clients %d Entries %d", int64(c.r.last), at, clients, entries)
		return
	}
	cl := c.l.Clone()
	cl.Expire(c.r.last)
	if cl.Memory() != at {
		c.fail("MemoryAt(%d) = %+v, but a clone after Expire holds %+v", int64(c.r.last), at, cl.Memory())
	}
}

// byName decides through a limiter's dense ids (ByID.AllowID), numbering
// each client's name in a Names table shared with it, as the engine does:
// the checker holds it to the same reference as the keyed limiter.
type byName struct {
	ByID
	names *Names
}

func newByName(t testing.TB, k Kind, c Config) Limiter {
	l, ok := mustNew(t, k, c).(ByID)
	if !ok {
		t.Fatalf("%v is not a ByID", k)
	}
	names := NewNames()
	l.UseNames(names)
	return byName{l, names}
}

func (b byName) Allow(t Instant, client string) Decision {
	return b.ByID.AllowID(t, b.names.ID(client))
}

func (b byName) Clone() Limiter { return byName{b.ByID.Clone().(ByID), b.names} }

// onesCount is how many bits of a shared table's has are set.
func (t *table[S]) onesCount() int {
	if t.packed != nil {
		t.unpack()
	}
	n := 0
	for _, w := range t.has {
		n += bits.OnesCount64(w)
	}
	return n
}

// sharedTable checks a shared table's bookkeeping: one bit per live id.
func sharedTable(l Limiter) string {
	if b, ok := l.(byName); ok {
		l = b.ByID
	}
	check := func(live []int32, bits int) string {
		if len(live) != bits {
			return fmt.Sprintf("%d live ids, %d bits set", len(live), bits)
		}
		return ""
	}
	switch l := l.(type) {
	case *FixedWindow:
		return check(l.clients.live, l.clients.onesCount())
	case *SlidingLog:
		return check(l.clients.live, l.clients.onesCount())
	case *SlidingCounter:
		return check(l.clients.live, l.clients.onesCount())
	case *TokenBucket:
		return check(l.clients.live, l.clients.onesCount())
	}
	return "unknown limiter"
}

// narrowCountsUpTo makes a narrow record hold counts up to most, until t
// ends: limiters widen their records mid-stream, as past 4 billion.
func narrowCountsUpTo(t *testing.T, most int64) {
	was := packedCountMax
	packedCountMax = most
	t.Cleanup(func() { packedCountMax = was })
}

func TestDifferential(t *testing.T) {
	sequences := long.N(300, 2000)
	for _, k := range Lesson { // the token bucket's reference is slow: TestDifferentialVariants covers it
		for _, mode := range []string{"expiry", "no-expiry", "by-id", "by-id-no-expiry", "widened", "widened-no-expiry"} {
			noExpiry := strings.HasSuffix(mode, "no-expiry")
			newLimiter, sequences := mustNew, sequences
			if strings.HasPrefix(mode, "by-id") {
				// The same code decides; a third of the runs checks the ids.
				newLimiter, sequences = newByName, max(sequences/3, 1)
			}
			name := k.String() + "/" + mode
			t.Run(name, func(t *testing.T) {
				if strings.HasPrefix(mode, "widened") {
					// Counts past 2 outgrow a narrow record: every limiter
					// widens its records (a log moves its bursts to queues)
					// mid-stream, as past 4 billion.
					narrowCountsUpTo(t, 2)
				}
				events := 0
				for seed := range uint64(sequences) {
					r := rand.New(rand.NewPCG(seed, 0x77696e646f77))
					s := randomStream(r, seed%4 == 3)
					s.cfg.NoExpiry = noExpiry
					c := &checker{t: t, name: fmt.Sprintf("seed %d, %+v", seed, s.cfg),
						l: newLimiter(t, k, s.cfg), r: newRef(k, s.cfg)}
					for _, e := range s.events {
						if c.step(e); c.failed {
							return
						}
					}
					if _, ok := c.l.(byName); ok {
						if msg := sharedTable(c.l); msg != "" {
							t.Fatalf("seed %d: %s", seed, msg)
						}
					}
					events += len(s.events)
				}
				if events < 50*sequences { // about 110 per sequence
					t.Errorf("only %d events checked", events)
				}
			})
		}
	}
}

// Decisions with expiry on and off are identical, field for field.
func TestExpiryDoesNotChangeDecisions(t *testing.T) {
	for _, k := range Lesson {
		for seed := range uint64(500) {
			r := rand.New(rand.NewPCG(seed, 0xe4b1))
			s := randomStream(r, seed%2 == 1)
			off := s.cfg
			off.NoExpiry = true
			on, no := mustNew(t, k, s.cfg), mustNew(t, k, off)
			for i, e := range s.events {
				var a, b Decision
				switch e.op {
				case opAllow:
					a, b = on.Allow(e.at, e.client), no.Allow(e.at, e.client)
				case opPeek:
					a, b = on.Peek(e.at, e.client), no.Peek(e.at, e.client)
				case opExpire:
					on.Expire(e.at)
					no.Expire(e.at)
				}
				if a != b {
					t.Fatalf("%v seed %d event %d %v: expiry on %+v, off %+v", k, seed, i, e, a, b)
				}
			}
			if on.Memory().Entries > no.Memory().Entries {
				t.Errorf("%v seed %d: expiry on holds more entries (%d) than off (%d)",
					k, seed, on.Memory().Entries, no.Memory().Entries)
			}
		}
	}
}

// Peek never changes state: a limiter that is also asked Peek questions
// decides every Allow exactly as one that is not, and the Peek just before an
// Allow at the same instant predicts it.
func TestPeekChangesNothing(t *testing.T) {
	for _, k := range Lesson {
		for seed := range uint64(300) {
			r := rand.New(rand.NewPCG(seed, 0x9ee6))
			s := randomStream(r, false)
			s.cfg.NoExpiry = seed%3 == 0
			peeked, plain := mustNew(t, k, s.cfg), mustNew(t, k, s.cfg)
			for i, e := range s.events {
				if e.op != opAllow {
					continue
				}
				before := peeked.Memory()
				// Questions about other clients and other instants.
				for _, other := range clientNames {
					peeked.Peek(e.at+Instant(r.Int64N(100)), other)
				}
				p := peeked.Peek(e.at, e.client)
				if m := peeked.Memory(); m != before {
					t.Fatalf("%v seed %d: Peek changed Memory %+v → %+v", k, seed, before, m)
				}
				a, b := peeked.Allow(e.at, e.client), plain.Allow(e.at, e.client)
				if a != b || p != a {
					t.Fatalf("%v seed %d event %d %v:\n peek  %+v\n allow %+v\n plain %+v", k, seed, i, e, p, a, b)
				}
				if peeked.Memory() != plain.Memory() {
					t.Fatalf("%v seed %d: Memory %+v, without Peek %+v", k, seed, peeked.Memory(), plain.Memory())
				}
			}
		}
	}
}

// A Clone starts with the same memory figures and then evolves on its own:
// the original and the clone each keep matching their own reference.
func TestCloneIsIndependent(t *testing.T) {
	for _, k := range Lesson {
		for seed := range uint64(400) {
			r := rand.New(rand.NewPCG(seed, 0xc10e))
			s := randomStream(r, false)
			s.cfg.NoExpiry = seed%2 == 1
			cut := r.IntN(len(s.events))
			newLimiter := mustNew
			if seed%4 >= 2 {
				newLimiter = newByName // clones share the names, not the states
			}
			orig := &checker{t: t, name: fmt.Sprintf("%v seed %d original", k, seed), l: newLimiter(t, k, s.cfg), r: newRef(k, s.cfg)}
			for _, e := range s.events[:cut] {
				if orig.step(e); orig.failed {
					return
				}
			}
			cl := orig.l.Clone()
			if cl.Memory() != orig.l.Memory() {
				t.Fatalf("%v seed %d: clone Memory %+v, original %+v", k, seed, cl.Memory(), orig.l.Memory())
			}
			if cl.Kind() != k || cl.Config() != s.cfg {
				t.Fatalf("clone Kind %v Config %+v", cl.Kind(), cl.Config())
			}
			copyOf := &checker{t: t, name: fmt.Sprintf("%v seed %d clone", k, seed), l: cl, r: orig.r.clone(),
				done: append([]event(nil), orig.done...), prev: orig.prev}
			// The clone gets a different continuation: other clients, shifted.
			rest := s.events[cut:]
			for i, e := range rest {
				if orig.step(e); orig.failed {
					return
				}
				e2 := rest[len(rest)-1-i]
				e2.at = e.at
				if copyOf.step(e2); copyOf.failed {
					return
				}
			}
		}
	}
}
