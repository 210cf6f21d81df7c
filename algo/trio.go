package algo

import (
	"iter"
	"math"
)

// Trio is the lesson's three limiters, the fixed window, the sliding log
// and the sliding counter with the lesson's rules, of one Config or of
// several that differ in their Limit only (a sweep's pass), deciding a
// request in all of them at once over one table of clients. Each member
// (a Config) decides by the same code its own limiters do (fixedState,
// counterState, InstantQueue) and keeps the same Memory, figure for
// figure, as they would after every request (TestTrioDecidesAsTheThree,
// TestTrioOfSeveralDecidesAsEachAlone).
//
// It is what a report's engine, and a sweep's pass, decide the default
// settings by (sim.Options.FiguresOnly), where the engine's generality (a
// limiter behind an interface each, a Decision of evidence written for
// each, a table and a sweep each) cost more than the rules themselves: a
// third of the deciding of `windowlab replay` (BENCHMARKS.md). Its clients
// are numbered by a Names it shares, as ByID's are.
//
// One record a client holds its three limiters' states, so a request loads
// one record, not three, and one sweep a window expires all three. Most
// clients of a log stay under every limit a sweep tries: each member
// allows each of their requests, so each member's record of them is the
// same, and the Trio keeps one for them all: one cache line to load a
// request, one log of timestamps, one visit an expiry sweep. A client's
// record splits into one a member at the first request the smallest limit
// would deny in any of its three limiters (a smaller limit denies whatever
// a larger one does, from the same record), and merges again when an
// expiry finds its members' records the same.
type Trio struct {
	members []trioMember
	least   int // the member with the smallest limit
	w, o    int64
	// recs holds a client's record, shared by every member, or, when its
	// held has trioSplit, where its split records are in blocks.
	recs   table[trioState]
	blocks []trioState // a split client's records, a member's each, from its block's start
	free   []int32     // the starts of blocks no client holds
	clock  clock
}

// trioSplit marks a record split: its members' records are in the
// Trio's blocks, from the start its cWindow holds (trioState.block).
const trioSplit = 1 << 7

// block is where a split record's members' records start.
func (s *trioState) block() int { return int(s.cWindow) }

// NewTrio returns the Trio of configs, its members in their order, or
// false unless each is one it decides as the three limiters do (the
// lesson's rules, with expiry) and they differ in their Limit only.
func NewTrio(configs ...Config) (*Trio, bool) {
	if len(configs) == 0 {
		return nil, false
	}
	l := &Trio{clock: newClock()}
	key := func(c Config) Config { c.Limit = 0; return c }
	for g, c := range configs {
		m, ok := newTrioMember(c)
		if !ok || key(c) != key(configs[0]) {
			return nil, false
		}
		if c.Limit < configs[l.least].Limit {
			l.least = g
		}
		l.members = append(l.members, m)
	}
	l.w, l.o = l.members[0].w, l.members[0].o
	return l, true
}

// UseNames numbers the set's clients by names, as ByID.UseNames does.
func (l *Trio) UseNames(names *Names) bool { return l.recs.share(names) }

// Memory is the state member g's limiter k (TrioKinds' order) holds now,
// as its own limiter's Memory would be.
func (l *Trio) Memory(g, k int) Memory { return l.members[g].mem[k] }

// Peak is the most member g's limiter k (TrioKinds' order) held after any
// request, each field its own most, as sim.Stats.PeakMemory counts it:
// raised as the Trio decides, and only when a limiter's memory grew (an
// expiry lowers it, and a request that adds nothing leaves it).
func (l *Trio) Peak(g, k int) Memory { return l.members[g].peak[k] }

// Touch loads the record of the client numbered id (Toucher).
func (l *Trio) Touch(id int32) byte { return l.recs.touch(id) }

// Allow decides a request at t of the client numbered id in every
// member, into d, a TrioDecision a member.
func (l *Trio) Allow(t Instant, id int32, d []TrioDecision) {
	l.recs.mustShare()
	t, sweep := l.clock.advance(t)
	if sweep {
		l.clock.schedule(t, l.w)
		l.expire(t)
	}
	s := l.recs.getOrAddID(id)
	if s.held&trioSplit == 0 {
		var kb int
		if s.held != 7 {
			kb = l.recs.keyBytes(id)
		}
		if len(l.members) == 1 {
			l.members[0].decide(s, t, kb, &d[0])
			return
		}
		if l.together(s, t, kb, d) {
			return
		}
		l.split(s)
	}
	b := s.block()
	for g := range l.members {
		r := &l.blocks[b+g]
		var kb int
		if r.held != 7 {
			kb = l.recs.keyBytes(id)
		}
		l.members[g].decide(r, t, kb, &d[g])
	}
}

// together decides a request at t of a client whose record s every member
// shares, whose name is kb bytes long, when the member with the smallest
// limit allows it in all three limiters: then every member does, each
// record would change alike, and s does. Otherwise it reports false,
// having made only the changes every member's decision starts with (the
// limiters taking the client on, the log's timestamps out of the window
// dropped), which a split keeps.
func (l *Trio) together(s *trioState, t Instant, kb int, d []TrioDecision) bool {
	m := &l.members[l.least]
	if s.held&1 == 0 {
		l.hold(s, 0, kb)
	}
	f := s.fixed()
	_, _, fixedOK := f.allow(t, l.w, l.o, m.cfg.Limit, Rules{})

	if s.held&2 == 0 {
		l.hold(s, 1, kb)
	}
	q := &s.q
	count := q.Len()
	if edge := t - Instant(l.w); count > 0 && q.Oldest() <= edge {
		n := q.DropThrough(edge)
		for g := range l.members {
			l.members[g].forgetLog(kb, n, false)
		}
		count = q.Len()
	}
	logOK, _ := Rules{}.logDecides(count, m.cfg.Limit)

	idx := floorDiv(int64(t)-l.o, l.w)
	if s.held&4 == 0 {
		s.setCounter(counterState{window: idx})
		l.hold(s, 2, kb)
	}
	c := s.counter()
	_, _, counterOK := c.allow(t-Instant(l.o), idx, &m.est)
	if !fixedOK || !logOK || !counterOK {
		return false
	}
	// Allowed, each record's counts gain the request whatever its limit.
	s.setFixed(f)
	s.setCounter(c)
	q.Push(t)
	for g := range l.members {
		m := &l.members[g]
		m.mem[1].Entries++
		m.mem[1].Bytes += timestampBytes
		m.raise(1)
		d[g] = TrioDecision{Allowed: [3]bool{true, true, true}, LogCount: count + 1}
	}
	return true
}

// hold is trioMember.hold in every member, for a record they share.
func (l *Trio) hold(s *trioState, k int, kb int) {
	for g := range l.members {
		l.members[g].hold(s, k, kb)
	}
}

// split gives each member a record of its own, a copy of s, which every
// member shared until now, in a block; s then says where it is.
func (l *Trio) split(s *trioState) {
	n := len(l.members)
	var b int
	if k := len(l.free); k > 0 {
		b, l.free = int(l.free[k-1]), l.free[:k-1]
	} else {
		b = len(l.blocks)
		l.blocks = append(l.blocks, make([]trioState, n)...)
	}
	blk := l.blocks[b : b+n]
	for g := range blk {
		blk[g] = *s
		if g > 0 {
			blk[g].q = s.q.Clone() // the first takes s's own
		}
	}
	*s = trioState{held: trioSplit, cWindow: int64(b)}
}

// state is member g's record of the client numbered id, or nil.
func (l *Trio) state(g int, id int32) *trioState {
	s := l.recs.getID(id)
	if s != nil && s.held&trioSplit != 0 {
		return &l.blocks[s.block()+g]
	}
	return s
}

// LogOldest is the oldest timestamp member g's log holds for the client
// numbered id: after a request it allowed, the first of the window its
// count (TrioDecision.LogCount) was of.
func (l *Trio) LogOldest(g int, id int32) Instant { return l.state(g, id).q.Oldest() }

// LogLen is how many timestamps member g's log holds for the client
// numbered id: after a request, those in the window ending at it.
func (l *Trio) LogLen(g int, id int32) int64 {
	if s := l.state(g, id); s != nil {
		return s.q.Len()
	}
	return 0
}

// LogRuns yields the timestamps member g's log holds for the client
// numbered id, oldest first, a run of equal ones at a time
// (InstantQueue.Runs).
func (l *Trio) LogRuns(g int, id int32) func(yield func(at Instant, n int64) bool) {
	return l.state(g, id).logRuns()
}

// expire is each limiter's Expire at t, in one sweep (expireRecord): a
// shared record's once for every member, a split one's a member at a time; a split record whose
// members' records are then the same is merged, and one with nothing left
// dropped.
func (l *Trio) expire(t Instant) {
	edge, idx := l.clock.sweepAt(t, l.w, l.o)
	n := len(l.members)
	l.recs.each(func(kb int, s *trioState) bool {
		if s.held&trioSplit == 0 {
			return expireRecord(l.members, kb, s, t, edge, idx)
		}
		b := s.block()
		blk := l.blocks[b : b+n]
		same := true
		for g := range blk {
			expireRecord(l.members[g:g+1], kb, &blk[g], t, edge, idx)
			same = same && blk[g].same(&blk[0])
		}
		if !same {
			return true
		}
		*s = blk[0]
		clear(blk)
		l.free = append(l.free, int32(b))
		return s.held != 0
	})
}

// same reports whether records s and r hold the same state.
func (s *trioState) same(r *trioState) bool {
	if s.held != r.held || s.fixed() != r.fixed() || s.counter() != r.counter() || s.q.Len() != r.q.Len() {
		return false
	}
	next, stop := iter.Pull2(iter.Seq2[Instant, int64](r.q.Runs))
	defer stop()
	for at, n := range s.q.Runs {
		if at2, n2, ok := next(); !ok || at2 != at || n2 != n {
			return false
		}
	}
	return true
}

// MemoryAt is what member g's limiter k (TrioKinds' order) holds live at
// t, as its limiter's MemoryAt says.
func (l *Trio) MemoryAt(t Instant, g, k int) Memory {
	var m Memory
	l.recs.each(func(kb int, s *trioState) bool {
		if s.held&trioSplit != 0 {
			s = &l.blocks[s.block()+g]
		}
		l.members[g].addLive(&m, s, kb, t, k)
		return true
	})
	return m
}

// trioMember is one configuration's three limiters, as a Trio decides
// them: the rules and the figures, not the clients.
type trioMember struct {
	cfg  Config
	w, o int64
	est  estimateRule
	mem  [3]Memory // Trio's order: fixed window, sliding log, sliding counter
	peak [3]Memory // the most of mem after any request, each field its own
}

// newTrioMember is c's, when a Trio decides c (NewTrio).
func newTrioMember(c Config) (trioMember, bool) {
	if c.Rules != (Rules{}) || c.NoExpiry || c.Validate() != nil {
		return trioMember{}, false
	}
	w := c.windowMs()
	return trioMember{cfg: c, w: w, o: c.offsetMs(), est: c.Rules.estimate(w, c.Limit)}, true
}

// TrioKinds are the Trio's limiters, in the order its figures are.
var TrioKinds = [3]Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter}

// trioState is one client's record, in one cache line: the fixed
// window's state and the counter's with their counts in 32 bits (under
// the lesson's rules a count is of requests allowed, at most the limit,
// at most MaxLimit), unpacked to the limiters' own states (fixedState,
// counterState) to be decided by their code. 80 bytes with the counts
// whole, every record spanned two lines: a request and an expiry sweep
// loaded two where they now load one.
type trioState struct {
	q       InstantQueue // the log's timestamps
	fStart  Instant      // fixedState.start
	cWindow int64        // counterState.window
	fCount  int32        // fixedState.count
	cCount  [2]int32     // counterState.current, .previous
	held    uint8        // the limiters holding state: bit k for TrioKinds[k]
}

// A count of MaxLimit fits a trioState's 32 bits (this fails to compile
// if it does not).
const _ = uint32(math.MaxInt32 - MaxLimit)

// fixed is the client's fixed-window state.
func (s *trioState) fixed() fixedState { return fixedState{start: s.fStart, count: int64(s.fCount)} }

// setFixed stores it.
func (s *trioState) setFixed(f fixedState) { s.fStart, s.fCount = f.start, int32(f.count) }

// counter is the client's sliding-counter state.
func (s *trioState) counter() counterState {
	return counterState{window: s.cWindow, current: int64(s.cCount[0]), previous: int64(s.cCount[1])}
}

// setCounter stores it.
func (s *trioState) setCounter(c counterState) {
	s.cWindow, s.cCount = c.window, [2]int32{int32(c.current), int32(c.previous)}
}

// raise raises limiter k's peak to its memory now.
func (l *trioMember) raise(k int) {
	m, p := &l.mem[k], &l.peak[k]
	p.Clients, p.Entries, p.Bytes = max(p.Clients, m.Clients), max(p.Entries, m.Entries), max(p.Bytes, m.Bytes)
}

// TrioDecision is what the Trio decided for one request: whether each of
// TrioKinds allowed it, and when the log did, the timestamps it then held
// in the window ending at the request ((t − W, t], this one counted): the
// most it admitted to the client in one window, so far, is the most of
// these (sim's running figure; the other two need a record of what they
// admitted, which sim keeps).
type TrioDecision struct {
	Allowed  [3]bool
	LogCount int64
}

// decide decides a request at t in the three limiters of the client whose
// record is s, whose name is kb bytes long (read only when s.held is not
// 7), into d.
func (l *trioMember) decide(s *trioState, t Instant, kb int, d *TrioDecision) {
	edge := t - Instant(l.w)
	*d = TrioDecision{}

	// The fixed window (FixedWindow.AllowIDInto).
	if s.held&1 == 0 {
		l.hold(s, 0, kb)
	}
	// The lesson's rules (NewTrio takes no others) as a literal, not
	// l.cfg.Rules: the compiler then folds them away, where copying the
	// field's seven bytes stalled a store's forwarding at every request.
	f := s.fixed()
	if _, _, ok := f.allow(t, l.w, l.o, l.cfg.Limit, Rules{}); ok {
		d.Allowed[0] = true
	}
	s.setFixed(f)

	// The sliding log (SlidingLog.counted).
	grown := s.held&2 == 0
	if grown {
		l.hold(s, 1, kb)
	}
	q := &s.q
	var added int64
	count := q.Len()
	if count > 0 && q.Oldest() <= edge {
		added = -q.DropThrough(edge)
		count = q.Len()
	}
	if allowed, record := (Rules{}).logDecides(count, l.cfg.Limit); record {
		q.Push(t)
		added++
		if allowed {
			d.Allowed[1], d.LogCount = true, count+1
		}
	}
	l.mem[1].Entries += added
	l.mem[1].Bytes += added * timestampBytes
	if grown || added > 0 {
		l.raise(1)
	}

	// The sliding counter (SlidingCounter.AllowIDInto).
	idx := floorDiv(int64(t)-l.o, l.w)
	if s.held&4 == 0 {
		s.setCounter(counterState{window: idx})
		l.hold(s, 2, kb)
	}
	c := s.counter()
	if _, _, ok := c.allow(t-Instant(l.o), idx, &l.est); ok {
		d.Allowed[2] = true
	}
	s.setCounter(c)
}

// hold records that limiter k (TrioKinds' order) holds the client's state
// from now, as its limiter counts a client it meets: the client, the
// entries it starts with (the log's come as it pushes) and their bytes.
func (l *trioMember) hold(s *trioState, k int, kb int) {
	s.held |= 1 << k
	m := &l.mem[k]
	m.Clients++
	switch k {
	case 0:
		m.Entries++
		m.Bytes += clientBytes[fixedState](kb)
	case 1:
		m.Bytes += clientBytes[logState](kb)
	case 2:
		m.Entries += countersPerClient
		m.Bytes += clientBytes[counterState](kb)
	}
	l.raise(k)
}

// logRuns yields the timestamps the record's log holds (none for nil).
func (s *trioState) logRuns() func(yield func(at Instant, n int64) bool) {
	if s != nil {
		return s.q.Runs
	}
	return func(func(Instant, int64) bool) {}
}

// expireRecord drops from the record s, of a client whose name is kb bytes
// long, what no request at t can read again (the fixed window's ended
// window, the log's timestamps through edge, t less the window, and the
// counters once idx, t's window, is two past theirs) and takes it off the
// memory of every member sharing the record; it reports whether s holds
// anything still.
func expireRecord(ms []trioMember, kb int, s *trioState, t, edge Instant, idx int64) bool {
	if f := s.fixed(); s.held&1 != 0 && !(t < f.start || f.live(t, ms[0].w)) {
		s.held &^= 1
		s.setFixed(fixedState{})
		for g := range ms {
			m := &ms[g].mem[0]
			m.Clients--
			m.Entries--
			m.Bytes -= clientBytes[fixedState](kb)
		}
	}
	if s.held&2 != 0 {
		n := s.q.DropThrough(edge)
		empty := s.q.Len() == 0
		if empty {
			s.held &^= 2
		}
		for g := range ms {
			ms[g].forgetLog(kb, n, empty)
		}
	}
	if s.held&4 != 0 && s.cWindow < idx-1 {
		s.held &^= 4
		s.setCounter(counterState{})
		for g := range ms {
			m := &ms[g].mem[2]
			m.Clients--
			m.Entries -= countersPerClient
			m.Bytes -= clientBytes[counterState](kb)
		}
	}
	return s.held != 0
}

// forgetLog takes n of the log's timestamps, and with empty the client, off
// its memory (of a client whose name is kb bytes long).
func (l *trioMember) forgetLog(kb int, n int64, empty bool) {
	m := &l.mem[1]
	m.Entries -= n
	m.Bytes -= n * timestampBytes
	if empty {
		m.Clients--
		m.Bytes -= clientBytes[logState](kb)
	}
}

// addLive adds to m what limiter k (TrioKinds' order) holds live at t in
// the record s of a client whose name is kb bytes long.
func (l *trioMember) addLive(m *Memory, s *trioState, kb int, t Instant, k int) {
	edge := t - Instant(l.w)
	idx := floorDiv(int64(t)-l.o, l.w)
	switch {
	case k == 0 && s.held&1 != 0 && (t < s.fStart || s.fixed().live(t, l.w)):
		m.Clients++
		m.Entries++
		m.Bytes += clientBytes[fixedState](kb)
	case k == 1 && s.held&2 != 0:
		if n, _ := s.q.CountAfter(edge); n > 0 {
			m.Clients++
			m.Entries += n
			m.Bytes += clientBytes[logState](kb) + n*timestampBytes
		}
	case k == 2 && s.held&4 != 0 && s.cWindow >= idx-1:
		m.Clients++
		m.Entries += countersPerClient
		m.Bytes += clientBytes[counterState](kb)
	}
}
