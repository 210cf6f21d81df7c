package algo

import "iter"

// TrioSet is the Trios of several limits at one window (a sweep's pass:
// configurations that differ in their Limit only), deciding a request in
// all of them at once. Each member decides and counts as a Trio of its
// Config would, figure for figure (TestTrioSetDecidesAsItsTrios).
//
// Most clients of a log stay under every limit a sweep tries: each member
// allows each of their requests, so each member's record of them is the
// same. A TrioSet keeps one record for such a client, where Trios kept one
// a member: one cache line to load a request, one log of timestamps, one
// visit an expiry sweep. A client's record splits into one a member at the
// first request the smallest limit would deny in any of its three
// limiters (a smaller limit denies whatever a larger one does, from the
// same record), and merges again when an expiry finds its members' records
// the same.
type TrioSet struct {
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
// TrioSet's blocks, from the start its cWindow holds (trioState.block).
const trioSplit = 1 << 7

// block is where a split record's members' records start.
func (s *trioState) block() int { return int(s.cWindow) }

// NewTrioSet returns the TrioSet of configs, its members in their order,
// or false unless a Trio decides each (NewTrio) and they differ in their
// Limit only.
func NewTrioSet(configs []Config) (*TrioSet, bool) {
	if len(configs) == 0 {
		return nil, false
	}
	l := &TrioSet{clock: newClock()}
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
func (l *TrioSet) UseNames(names *Names) bool { return l.recs.share(names) }

// Memory is the state member g's limiter k (TrioKinds' order) holds now,
// as its own limiter's Memory would be.
func (l *TrioSet) Memory(g, k int) Memory { return l.members[g].mem[k] }

// Peak is the most member g's limiter k held after any request (Trio.Peak).
func (l *TrioSet) Peak(g, k int) Memory { return l.members[g].peak[k] }

// Touch loads the record of the client numbered id (Toucher).
func (l *TrioSet) Touch(id int32) byte { return l.recs.touch(id) }

// Allow decides a request at t of the client numbered id in every
// member, into d, a TrioDecision a member.
func (l *TrioSet) Allow(t Instant, id int32, d []TrioDecision) {
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
func (l *TrioSet) together(s *trioState, t Instant, kb int, d []TrioDecision) bool {
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
func (l *TrioSet) hold(s *trioState, k int, kb int) {
	for g := range l.members {
		l.members[g].hold(s, k, kb)
	}
}

// split gives each member a record of its own, a copy of s, which every
// member shared until now, in a block; s then says where it is.
func (l *TrioSet) split(s *trioState) {
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
func (l *TrioSet) state(g int, id int32) *trioState {
	s := l.recs.getID(id)
	if s != nil && s.held&trioSplit != 0 {
		return &l.blocks[s.block()+g]
	}
	return s
}

// LogOldest is Trio.LogOldest of member g.
func (l *TrioSet) LogOldest(g int, id int32) Instant { return l.state(g, id).q.Oldest() }

// LogLen is Trio.LogLen of member g.
func (l *TrioSet) LogLen(g int, id int32) int64 {
	if s := l.state(g, id); s != nil {
		return s.q.Len()
	}
	return 0
}

// LogRuns is Trio.LogRuns of member g.
func (l *TrioSet) LogRuns(g int, id int32) func(yield func(at Instant, n int64) bool) {
	return l.state(g, id).logRuns()
}

// expire is Trio.expire for every member: a shared record's expiry once
// for them all, a split one's a member at a time; a split record whose
// members' records are then the same is merged, and one with nothing left
// dropped.
func (l *TrioSet) expire(t Instant) {
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
func (l *TrioSet) MemoryAt(t Instant, g, k int) Memory {
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
