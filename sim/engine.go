// Package sim replays one stream of traffic through several limiters side by
// side on a virtual clock. It steps forward and back to any instant, records
// every decision and keeps the running figures the lesson talks about.
// Nothing here reads the wall clock.
//
// The engine's state is a pure function of how many arrivals it has decided:
// stepping back restores the nearest checkpoint and replays forward, so
// every route to a position gives the same limiters, records and figures.
package sim

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"windowlab/algo"
)

// Record is one arrival and the decision of every limiter on it.
type Record struct {
	Index     int64 // 0-based position of the arrival in the scenario
	Arrival   Arrival
	Decisions []algo.Decision // one per limiter, in engine order
	// WithoutStore has bit i set when limiter i decided it without its
	// store (a store that did not answer, under --on-store-error allow or
	// deny: history_storeless.go).
	WithoutStore uint32
}

// Stats are one limiter's running figures.
type Stats struct {
	Kind      algo.Kind
	Algorithm algo.Algorithm // the kind and its rules: "sliding-counter/httprate"
	Allowed   int64
	Denied    int64
	// Delayed counts the allowed requests held before being served
	// (Decision.Delay: nginx limit_req's third outcome), MaxDelay the
	// longest hold; 0 for every limiter that never delays.
	Delayed  int64
	MaxDelay time.Duration
	// MaxInWindow is the most requests admitted to one client in any
	// half-open interval one window long: the lesson's "200 in 2 seconds".
	MaxInWindow       int64
	MaxInWindowClient string
	MaxInWindowFirst  algo.Instant // first and last admitted request of that interval
	MaxInWindowLast   algo.Instant
	Memory            algo.Memory // live at the engine's clock, as a store with TTLs holds it
	PeakMemory        algo.Memory // the most the limiter held after any decision, each field its own peak
	// Servers are a fleet's figures server by server (algo.Fleet), in
	// Stats only; nil for one tally.
	Servers []algo.ServerTally
	// ReplicaLost is a lagged tally's writes lost at its failover
	// (algo.Lagged), in Stats only.
	ReplicaLost int64
	// WithoutStore counts the decisions a limiter on a store made without
	// it, by its policy (history_storeless.go); 0 for every other.
	WithoutStore int64
}

// Mark is the compact history of one decided arrival, kept for timelines.
type Mark struct {
	At      algo.Instant
	Client  int32  // index into Engine.Clients()
	Allowed uint32 // bit i set when limiter i allowed it
}

// Options tune what an engine keeps.
type Options struct {
	// Start is where the clock stands before the first arrival.
	Start algo.Instant
	// History keeps a record of every decided arrival, for timelines
	// (see History for what it costs).
	History bool
	// ForwardOnly keeps no checkpoints beyond the start: for reports, which
	// replay once from the beginning. Stepping back still works, by
	// replaying from the start.
	ForwardOnly bool
	// CheckpointBytes bounds the bytes the engine's checkpoints hold
	// together (0: 64 MiB). Below it stepping back is fast; once spent,
	// stepping back replays from the last checkpoint kept. A server of many
	// views gives each a smaller budget (windowlab serve).
	CheckpointBytes int64
	// Interrupt, when set, is asked every few thousand arrivals during long
	// work (seeking, running to the end, finding the last arrival), with how
	// many arrivals are decided (or, finding the last arrival, read); when
	// it reports true the work stops where it stands and Interrupted says
	// so. A ctrl+C, or a key pressed while the view replays, makes it true;
	// the view also reads its progress from it.
	Interrupt func(done int64) bool
	// AnyLimits lets the limiters differ in their Limit and Burst, as a
	// sweep's settings that share a window do (replay decides them in one
	// pass); everything else they still share, and Config is the first
	// limiter's.
	AnyLimits bool
	// FiguresOnly keeps only the figures a report reads (Stats, the
	// clock, Processed, Last's arrival and whether each limiter allowed
	// it), not each decision's evidence: of Last's Decisions only Allowed
	// is written, and Limiters hold no state. With ForwardOnly, without
	// History, an engine of the lesson's three limiters of one
	// configuration (algo.NewTrio's), or under AnyLimits of several such
	// settings' three in turn (a sweep's pass, also algo.NewTrio's), then
	// decides them all at once from one record a client (trio.go).
	FiguresOnly bool
}

// Until is an Options.Interrupt that stops long work once ctx ends.
func Until(ctx context.Context) func(int64) bool { return func(int64) bool { return ctx.Err() != nil } }

// interruptEvery is how many arrivals long work decides between asking
// Options.Interrupt: a few hundred microseconds of work.
const interruptEvery = 4096

// MaxLimiters is how many limiters one engine can compare (Mark.Allowed's bits).
const MaxLimiters = 32

// maxCheckpoints bounds checkpoint memory: when there would be more, every
// other one is dropped and the spacing doubles, so stepping back replays at
// most Len/maxCheckpoints·2 arrivals.
const maxCheckpoints = 64

// checkpointBudget bounds the bytes all checkpoints hold together: a
// replay whose state keeps growing (a huge limit, every request admitted)
// stops adding checkpoints once they would hold more, and steps back more
// slowly rather than running out of memory.
const checkpointBudget = 64 << 20

// Engine replays a Source through limiters. It is not safe for concurrent use.
type Engine struct {
	opts     Options
	cfg      algo.Config // what every limiter shares (Rules left out)
	window   time.Duration
	limiters []algo.Limiter
	total    int64

	// position: everything below is a function of n alone (and now of the seek)
	src       Source
	named     Named // src, when it leaves names out (Named); nil otherwise
	now       algo.Instant
	n         int64
	next      Arrival // the arrival n, if hasNext
	hasNext   bool
	last      Record
	hasLast   bool
	stats     []Stats
	admitted  *admitted // for the limiters with a slot
	slot      []int     // each limiter's slot in admitted, or −1 where it counts its own (ownsAdmitted)
	history   *History
	storeless bool // some limiter may decide without its store (withoutStore)

	names    *algo.Names    // the clients met, numbered as every limiter indexes them
	byID     []algo.ByID    // each limiter deciding by those numbers, or nil where it cannot
	byNumber []int32        // a numbering source's client number → 1 + its id in names
	same     []uint64       // bit n: client number n is id n−1 (byNumber says so too)
	touch    []algo.Toucher // the limiters in byID that can load a client's state ahead
	write    []algo.Writer  // each limiter in byID that writes its decision in place, or nil
	held     []*algo.Memory // each Writer's memory, read in place (Writer.Held), or nil
	touched  byte           // what touching read: kept, as a load nobody reads may be left out
	byName   bool           // some limiter decides by name: step needs every arrival's name
	trio     *trioRun       // the three limiters decided at once (Options.FiguresOnly), or nil

	checkpoints []checkpoint // sorted by n; checkpoints[0] is the start
	every       int64
	budget      int64 // checkpointBudget, lowered by tests
	budgetSpent bool  // a checkpoint was refused: make no more

	lastArrival    algo.Instant
	hasLastArrival bool

	interrupted bool // the last long operation stopped short

	// A cache line between this engine's fields, written at every step,
	// and whatever is allocated next to it: a sweep's passes decide on
	// different cores, and an engine sharing a line with another's (or
	// with another's source) made each core wait for the other's writes.
	_ [64]byte
}

// New returns an engine at the start of src. The limiters must be fresh and
// share the scenario's configuration (all of it but their edge rules, and
// their Limit and Burst under Options.AnyLimits); the engine owns them from
// now on.
func New(src Source, limiters []algo.Limiter, opts Options) (*Engine, error) {
	if len(limiters) == 0 || len(limiters) > MaxLimiters {
		return nil, fmt.Errorf("an engine compares 1 to %d limiters, not %d", MaxLimiters, len(limiters))
	}
	cfg := shared(limiters[0])
	for _, l := range limiters[1:] {
		if c := shared(l); c != cfg && !(opts.AnyLimits && sameBesideLimits(c, cfg)) {
			return nil, fmt.Errorf("limiters disagree on the scenario's configuration: %+v and %+v", cfg, c)
		}
	}
	e := &Engine{
		opts:     opts,
		cfg:      cfg,
		window:   cfg.Window,
		limiters: limiters,
		total:    -1, // asked of the source when first needed: a following source knows it last
		src:      src,
		now:      opts.Start,
		stats:    make([]Stats, len(limiters), len(limiters)+1), // the spare one a cache line past the last (Engine's padding)
		names:    algo.NewNames(),
		every:    1024,
		budget:   cmp.Or(opts.CheckpointBytes, checkpointBudget),
		last:     Record{Decisions: make([]algo.Decision, len(limiters), len(limiters)+1)}, // as stats
	}
	e.named, _ = src.(Named)
	e.history = newHistory(len(limiters))
	slots := 0
	for i, l := range limiters {
		e.stats[i].Kind, e.stats[i].Algorithm = l.Kind(), algo.Of(l)
		k := -1
		if !ownsAdmitted(l) {
			k = slots
			slots++
		}
		e.slot = append(e.slot, k)
	}
	e.useIDs()
	e.trio = newTrioRun(limiters, opts, e.names)
	e.storeless = slices.ContainsFunc(limiters, func(l algo.Limiter) bool { return withoutStore(l) >= 0 })
	e.admitted = newAdmitted(cfg.Window, slots)
	e.fetch()
	e.checkpoints = []checkpoint{e.snapshot()}
	return e, nil
}

// shared is the part of a limiter's configuration that comes from the
// scenario, which every limiter of one engine must share: everything but
// the edge rules, which are each limiter's own.
func shared(l algo.Limiter) algo.Config {
	c := l.Config()
	c.Rules = algo.Rules{}
	return c
}

// sameBesideLimits reports whether a and b differ at most in their Limit
// and Burst (Options.AnyLimits).
func sameBesideLimits(a, b algo.Config) bool {
	a.Limit, a.Burst, b.Limit, b.Burst = 0, 0, 0, 0
	return a == b
}

// Config is the scenario's configuration, which every limiter shares: the
// limit, the window, expiry and the bucket's burst. Each limiter's edge
// rules are its own (algo.Of); Config's Rules are the lesson's.
func (e *Engine) Config() algo.Config { return e.cfg }

// Window is the shared window length; window edges are its multiples,
// moved by the configuration's Offset (Config.WindowStart).
func (e *Engine) Window() time.Duration { return e.window }

// Now is the virtual clock.
func (e *Engine) Now() algo.Instant { return e.now }

// Start is where the clock stands before the first arrival.
func (e *Engine) Start() algo.Instant { return e.opts.Start }

// Len is the number of arrivals in the scenario: once the engine has
// decided them all, how many it decided, and before that the source's
// count (which a scenario of random traffic works out by a dry run).
func (e *Engine) Len() int64 {
	if e.total < 0 {
		if !e.hasNext {
			e.total = e.n
		} else {
			e.total = e.checkpoints[0].src.Len()
		}
	}
	return e.total
}

// Processed is how many arrivals have been decided.
func (e *Engine) Processed() int64 { return e.n }

// Limiters are the live limiters; callers may Peek and read memory, never Allow.
func (e *Engine) Limiters() []algo.Limiter { return e.limiters }

// Next is the next arrival to be decided; false at the end.
func (e *Engine) Next() (Arrival, bool) {
	e.next.Client = e.name(e.next)
	return e.next, e.hasNext
}

// Done reports whether every arrival has been decided.
func (e *Engine) Done() bool { return !e.hasNext }

// FirstArrival is the instant of the first arrival (Start if there is none).
func (e *Engine) FirstArrival() algo.Instant {
	if cp := e.checkpoints[0]; cp.hasNext {
		return cp.next.At
	}
	return e.opts.Start
}

// LastArrival is the instant of the last arrival, found once by running a
// copy of the source to its end. Interrupted, it returns the latest arrival
// seen so far and looks again next time.
func (e *Engine) LastArrival() algo.Instant {
	if e.hasLastArrival {
		return e.lastArrival
	}
	if !e.hasNext && e.hasLast { // at the end: the last decided is the last
		e.lastArrival, e.hasLastArrival = e.last.Arrival.At, true
		return e.lastArrival
	}
	if bound, ok := e.bounded(); ok && e.checkpoints[0].hasNext {
		if t, exact := bound(); exact { // known without a pass
			e.lastArrival, e.hasLastArrival = t, true
			return t
		}
	}
	e.interrupted = false
	last := e.opts.Start
	cp := e.checkpoints[0]
	if cp.hasNext {
		last = cp.next.At
	}
	src := cp.src.Clone()
	for i := 1; ; i++ {
		if i%interruptEvery == 0 && e.opts.Interrupt != nil && e.opts.Interrupt(int64(i)) {
			e.interrupted = true
			return last
		}
		a, ok := src.Next()
		if !ok {
			break
		}
		last = a.At
	}
	e.lastArrival, e.hasLastArrival = last, true
	return last
}

// LastBound is an instant no arrival comes after: the last arrival itself
// when the source can tell it without a pass (sim.Bounded), a bound past it
// for random traffic, and otherwise the last arrival found by LastArrival.
func (e *Engine) LastBound() algo.Instant {
	if bound, ok := e.bounded(); ok {
		if t, exact := bound(); exact || !e.hasLastArrival {
			return t
		}
	}
	return e.LastArrival()
}

// StopRequested asks Options.Interrupt whether long work should stop: for
// callers that step the engine themselves, such as the reports.
func (e *Engine) StopRequested() bool { return e.opts.Interrupt != nil && e.opts.Interrupt(e.n) }

// Interrupted reports whether the last long operation (Seek, SeekIndex,
// RunToEnd, LastArrival and what calls them) stopped short because
// Options.Interrupt asked it to. The engine is then at a position on the
// way, as consistent as any other.
func (e *Engine) Interrupted() bool { return e.interrupted }

// stepWhile decides arrivals while more says so, asking Options.Interrupt
// every few thousand.
func (e *Engine) stepWhile(more func() bool) {
	e.interrupted = false
	for i := 1; e.hasNext && more(); i++ {
		if i%interruptEvery == 0 && e.StopRequested() {
			e.interrupted = true
			return
		}
		e.step()
	}
}

func (e *Engine) fetch() {
	if e.named != nil {
		e.next, e.hasNext = e.named.NextNumbered()
		return
	}
	e.next, e.hasNext = e.src.Next()
}

// name is the arrival's client's name: looked up by its number when a
// Named source left it out.
func (e *Engine) name(a Arrival) string {
	if a.Client == "" && a.Number > 0 && e.named != nil {
		return e.named.Name(a.Number)
	}
	return a.Client
}

// fillNames fills in the names the engine hands out or keeps past its source
// (Named): the next arrival's and the last record's.
func (e *Engine) fillNames() {
	e.next.Client = e.name(e.next)
	e.last.Arrival.Client = e.name(e.last.Arrival)
}

// Step decides the next arrival and moves the clock to its instant.
// The record's Decisions are reused by the next step: copy them to keep them.
func (e *Engine) Step() (Record, bool) {
	if !e.hasNext {
		return Record{}, false
	}
	e.step()
	return e.Last() // named
}

// StepNumbered is Step for a caller that seldom needs the client's name:
// an arrival a Named source gave without it (by its Number) is handed out
// without it, and Name finds it when wanted (looking every one up cost a
// cache miss a request: a sweep's 6% of the CPU).
func (e *Engine) StepNumbered() (Record, bool) {
	if !e.hasNext {
		return Record{}, false
	}
	e.step()
	return e.last, true
}

// Name is the name of a's client: a's Client, or looked up by its number
// when StepNumbered left it out.
func (e *Engine) Name(a Arrival) string { return e.name(a) }

// step is Step, with an arrival to decide.
func (e *Engine) step() {
	if e.trio != nil {
		e.stepTrio()
	} else {
		e.stepEach()
	}
}

// stepEach is step for an engine deciding limiter by limiter.
func (e *Engine) stepEach() {
	a := e.next
	e.now = a.At
	if e.byName {
		a.Client = e.name(a)
	}
	id := e.clientID(a)
	e.touchClient(id)
	var bits, tracked, delayed, without uint32
	for i, l := range e.limiters {
		d := &e.last.Decisions[i] // written in place: a Decision is 112 bytes
		was := int64(-1)
		if e.storeless {
			was = withoutStore(l)
		}
		if w := e.write[i]; w != nil {
			w.AllowIDInto(a.At, id, d)
		} else if b := e.byID[i]; b != nil {
			*d = b.AllowID(a.At, id)
		} else {
			*d = l.Allow(a.At, a.Client)
		}
		s := &e.stats[i]
		if was >= 0 && withoutStore(l) > was {
			s.WithoutStore++
			without |= 1 << i
		}
		if d.Allowed {
			s.Allowed++
			if d.Delay > 0 {
				s.Delayed++
				s.MaxDelay = max(s.MaxDelay, d.Delay)
				delayed |= 1 << i
			}
			bits |= 1 << i
			if k := e.slot[i]; k >= 0 {
				tracked |= 1 << k
			} else if n := d.Count + 1; n > s.MaxInWindow {
				// A log of admitted requests: its count is the figure.
				first := a.At
				if d.Count > 0 {
					first = d.Oldest
				}
				s.MaxInWindow, s.MaxInWindowClient = n, e.name(a)
				s.MaxInWindowFirst, s.MaxInWindowLast = first, a.At
			}
		} else {
			s.Denied++
		}
		var m algo.Memory
		if h := e.held[i]; h != nil {
			m = *h
		} else {
			m = l.Memory()
		}
		p := &s.PeakMemory
		p.Clients, p.Entries, p.Bytes = max(p.Clients, m.Clients), max(p.Entries, m.Entries), max(p.Bytes, m.Bytes)
	}
	if tracked != 0 {
		e.recordAdmitted(a, id, tracked)
	}
	e.last.Index, e.last.Arrival, e.last.WithoutStore, e.hasLast = e.n, a, without, true
	if e.opts.History {
		e.history.add(Mark{At: a.At, Client: id, Allowed: bits})
		if delayed != 0 {
			e.history.addDelayed(Mark{At: a.At, Client: id, Allowed: delayed})
		}
		if without != 0 {
			e.history.addWithoutStore(Mark{At: a.At, Client: id, Allowed: without})
		}
	}
	e.n++
	e.fetch()
	if !e.opts.ForwardOnly && e.n == e.checkpoints[len(e.checkpoints)-1].n+e.every {
		e.addCheckpoint()
	}
}

// touchClient loads the client's state in every limiter and its admitted
// record at once, before deciding: their cache misses overlap rather than
// come one after another (algo.Toucher).
func (e *Engine) touchClient(id int32) {
	touched := e.admitted.touch(id)
	for _, t := range e.touch {
		touched += t.Touch(id)
	}
	e.touched += touched
}

// recordAdmitted records the arrival as admitted by the tracked limiters
// (slot bits), and their most admitted in one window when it grew.
func (e *Engine) recordAdmitted(a Arrival, id int32, tracked uint32) {
	e.admitted.record(id, a.At, tracked)
	for i, k := range e.slot {
		if k < 0 || tracked&(1<<k) == 0 {
			continue
		}
		if n := e.admitted.inWindow(id, k); n > e.stats[i].MaxInWindow {
			s := &e.stats[i]
			s.MaxInWindow, s.MaxInWindowClient = n, e.name(a)
			s.MaxInWindowFirst, s.MaxInWindowLast = e.admitted.oldest(id, k), a.At
		}
	}
}

// clientID is the arrival's client's id in names: found by the number a
// numbering source gave it when it has one, without hashing the name. A
// log numbers its clients as the engine's names do, in first-seen order,
// but for the few a reordering swaps: for the rest, the id is the number
// less one, as a bit in same says, read from an eighth of a byte a client
// rather than byNumber's four (a cache miss a request, with many clients).
func (e *Engine) clientID(a Arrival) int32 {
	if a.Number <= 0 {
		return e.names.ID(e.name(a))
	}
	if w := int(a.Number) / 64; w < len(e.same) && e.same[w]>>(a.Number%64)&1 != 0 {
		return a.Number - 1
	}
	if int(a.Number) < len(e.byNumber) {
		if id := e.byNumber[a.Number]; id > 0 {
			return id - 1
		}
	} else {
		e.byNumber = append(e.byNumber, make([]int32, int(a.Number)+1-len(e.byNumber))...)
		e.byNumber = e.byNumber[:cap(e.byNumber)]
	}
	id := e.names.ID(e.name(a))
	e.byNumber[a.Number] = id + 1
	if id == a.Number-1 {
		if w := int(a.Number) / 64; w >= len(e.same) {
			e.same = append(e.same, make([]uint64, w+1-len(e.same))...)
		}
		e.same[a.Number/64] |= 1 << (a.Number % 64)
	}
	return id
}

// useIDs finds which limiters decide by id, after New or a restore.
func (e *Engine) useIDs() {
	e.byID, e.byName, e.touch, e.write, e.held = e.byID[:0], false, e.touch[:0], e.write[:0], e.held[:0]
	for _, l := range e.limiters {
		// A limiter carried over from another engine keeps its names and
		// decides by name: correct, only slower.
		b, ok := l.(algo.ByID)
		if ok && !b.UseNames(e.names) {
			b = nil
		}
		e.byID, e.byName = append(e.byID, b), e.byName || b == nil
		w, _ := b.(algo.Writer)
		var held *algo.Memory
		if w != nil {
			held = w.Held()
		}
		e.write, e.held = append(e.write, w), append(e.held, held)
		if t, ok := b.(algo.Toucher); ok {
			e.touch = append(e.touch, t)
		}
	}
}

// StepBack undoes the last decision (exactly, by replay); false at the start.
func (e *Engine) StepBack() bool {
	if e.n == 0 {
		return false
	}
	e.SeekIndex(e.n - 1)
	return true
}

// SeekIndex decides exactly the first n arrivals; the clock moves to the
// last one's instant (or Start when n is 0).
func (e *Engine) SeekIndex(n int64) {
	if n > e.n {
		n = min(n, e.Len())
	}
	n = max(0, n)
	e.jump(n < e.n, func(cp *checkpoint) bool { return cp.n <= n })
	e.stepWhile(func() bool { return e.n < n })
	e.now = e.opts.Start
	if e.hasLast {
		e.now = e.last.Arrival.At
	}
}

// Seek decides every arrival at or before t and sets the clock to t,
// forward or back. Interrupted, the clock stays at the last arrival decided.
func (e *Engine) Seek(t algo.Instant) {
	e.jump(e.hasLast && e.last.Arrival.At > t, func(cp *checkpoint) bool { return !cp.hasLast || cp.last.Arrival.At <= t })
	e.stepWhile(func() bool { return e.next.At <= t })
	e.now = t
	if e.interrupted {
		e.now = e.opts.Start
		if e.hasLast {
			e.now = e.last.Arrival.At
		}
	}
}

// SeekBefore decides every arrival before t and sets the clock to t, with
// t's own arrivals still to come: where a person going to t expects to
// stand, so that stepping then walks through that instant's requests.
func (e *Engine) SeekBefore(t algo.Instant) {
	if t <= 0 { // midnight: nothing can come before it
		e.SeekIndex(0)
		e.now = 0
		return
	}
	e.Seek(t - 1)
	if !e.interrupted {
		e.now = t
	}
}

// StepInstant decides every arrival at the next arrival's instant.
func (e *Engine) StepInstant() bool {
	if !e.hasNext {
		return false
	}
	e.Seek(e.next.At)
	return true
}

// NextEdge seeks to the first window edge after the clock.
func (e *Engine) NextEdge() {
	e.Seek(e.cfg.NextEdge(e.now))
}

// PrevEdge seeks to the last window edge before the clock.
func (e *Engine) PrevEdge() {
	e.Seek(e.cfg.PrevEdge(e.now))
}

// RunToEnd decides every remaining arrival.
func (e *Engine) RunToEnd() { e.stepWhile(func() bool { return true }) }

// Last is the most recent record; false before the first arrival.
func (e *Engine) Last() (Record, bool) {
	e.last.Arrival.Client = e.name(e.last.Arrival)
	return e.last, e.hasLast
}

// Stats returns each limiter's running figures, in engine order, with live
// memory as it stands at the clock.
func (e *Engine) Stats() []Stats {
	out := append([]Stats(nil), e.stats...)
	for i, l := range e.limiters {
		if e.trio != nil {
			out[i].Memory, out[i].PeakMemory = e.trio.memoryAt(e.now, i), e.trio.peak(i)
			continue
		}
		out[i].Memory = l.MemoryAt(e.now)
		if f, ok := l.(algo.ServerFleet); ok {
			out[i].Servers = f.Tallies()
		}
		if lg, ok := l.(*algo.Lagged); ok {
			out[i].ReplicaLost = lg.Lost()
		}
	}
	return out
}

// History is the record of decided arrivals (Options.History; empty
// without it). It is the engine's own, and changes as the engine moves.
func (e *Engine) History() *History { return e.history }

// Clients names every client the engine has met; Mark.Client indexes it.
func (e *Engine) Clients() []string { return e.names.All() }
