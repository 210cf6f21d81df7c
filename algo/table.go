package algo

import (
	"math"
	"math/bits"
	"time"
	"unsafe"
)

// table keeps per-client state of type S for a limiter whose clients a
// caller numbers (ByID.UseNames): the caller's Names number the clients
// and a state lives at its client's id, so a decision is an index, and a
// client without state is a clear bit, not a map entry to delete and
// re-insert. Until it shares names a table is empty and unused: a limiter
// on its own keeps its clients by name in a keyStore.
type table[S any] struct {
	states []S // by id

	names *Names   // nil until shared
	has   []uint64 // bit id set while the client holds state
	live  []int32  // the ids with state, in the order they got it
	// packed is a shared copy's states, live's in its order, until the copy
	// is used (states and has are nil until then): a checkpoint's copy
	// costs the clients holding state, not every id ever numbered.
	packed []S
}

// share makes the table number its clients by names, if it is unused or
// already does; false, changing nothing, if it shares other names.
func (t *table[S]) share(names *Names) bool {
	switch {
	case t.names == names:
		return true
	case t.names != nil:
		return false
	}
	*t = table[S]{names: names}
	return true
}

// unpack makes a shared copy's states usable: by id, up to every id the
// names hold.
func (t *table[S]) unpack() {
	n := max(t.names.Len(), 1)
	t.states = make([]S, n)
	t.has = make([]uint64, (n+63)/64)
	for i, id := range t.live {
		t.states[id] = t.packed[i]
		t.has[id>>6] |= 1 << (id & 63)
	}
	t.packed = nil
}

// mapSlotBytes approximates one slot of a Go map from a client's name to
// its state's place: the key's string header, an int32 and the control
// byte, rounded to a word.
const mapSlotBytes = 16 + 8

// clientBytes is the memory a client costs before its entries: the map
// slot, its key's bytes and its state value. It models the usual
// in-process store, a hash map keyed by name (x/time/rate's per-key map,
// httprate's, windowlab's own until its keyStore): the figure the lesson's
// memory numbers are in. windowlab's keyStore holds the same clients in
// less (TestMemoryMatchesTheHeap holds it to at most this).
func clientBytes[S any](keyBytes int) int64 {
	var s S
	return int64(mapSlotBytes + keyBytes + int(unsafe.Sizeof(s)))
}

// get returns the state of the client named key, or nil.
func (t *table[S]) get(key string) *S {
	id, ok := t.names.Lookup(key)
	if !ok {
		return nil
	}
	return t.getID(id)
}

// getID returns the state of the client numbered id, or nil (shared only).
func (t *table[S]) getID(id int32) *S {
	if t.packed != nil {
		t.unpack()
	}
	if w := int(id >> 6); w < len(t.has) && t.has[w]&(1<<(id&63)) != 0 {
		return &t.states[id]
	}
	return nil
}

// addID creates zero state for the client numbered id, which has none
// (shared only).
func (t *table[S]) addID(id int32) *S {
	if t.packed != nil {
		t.unpack()
	}
	if n := int(id) + 1; n > len(t.states) {
		n = max(n, len(t.states)+len(t.states)/2) // by a half, not append's quarter: fewer copies
		t.states = append(t.states, make([]S, n-len(t.states))...)
		t.states = t.states[:cap(t.states)]
		for len(t.has)*64 < len(t.states) {
			t.has = append(t.has, 0)
		}
	}
	t.has[id>>6] |= 1 << (id & 63)
	t.live = append(t.live, id)
	return &t.states[id]
}

// getOrAddID returns the state of the client numbered id, zero state
// created if it had none (shared only).
func (t *table[S]) getOrAddID(id int32) *S {
	if s := t.getID(id); s != nil {
		return s
	}
	return t.addID(id)
}

// touch reads the state of the client numbered id, when there is one: a
// load issued early, so that its cache miss overlaps the others'.
func (t *table[S]) touch(id int32) byte {
	if int(id) < len(t.states) {
		return *(*byte)(unsafe.Pointer(&t.states[id]))
	}
	return 0
}

// mustShare panics unless the table is shared: AllowID needs UseNames.
func (t *table[S]) mustShare() {
	if t.names == nil {
		panic("algo: AllowID before UseNames")
	}
}

// name is client, or with an id ≥ 0 the name numbered id.
func (t *table[S]) name(client string, id int32) string {
	if id >= 0 {
		return t.names.Name(id)
	}
	return client
}

// key is the name numbered id (shared only).
func (t *table[S]) key(id int32) string { return t.names.Name(id) }

// keyBytes is the length of the name numbered id (shared only).
func (t *table[S]) keyBytes(id int32) int { return t.names.Bytes(id) }

// each calls f for every client with state, with the length of its name;
// f returns false to drop the client's state.
func (t *table[S]) each(f func(keyBytes int, s *S) (keep bool)) {
	var zero S
	if t.packed != nil {
		t.unpack()
	}
	if len(t.has) <= 2*len(t.live) {
		t.eachByID(f)
		return
	}
	kept := t.live[:0]
	for _, id := range t.live {
		if f(t.names.Bytes(id), &t.states[id]) {
			kept = append(kept, id)
			continue
		}
		t.states[id] = zero
		t.has[id>>6] &^= 1 << (id & 63)
	}
	clear(t.live[len(kept):])
	t.live = kept
}

// eachByID is each for a shared table whose clients with state are many
// beside the ids numbered: it walks the bitmap, so the states are visited
// in id order, one after another in memory, rather than in the order the
// clients got them (which scatters the visits over the states). Then live
// keeps, in its order, the ids still set.
func (t *table[S]) eachByID(f func(keyBytes int, s *S) (keep bool)) {
	var zero S
	for w, word := range t.has {
		for m := word; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			id := int32(w<<6 | b)
			if !f(t.names.Bytes(id), &t.states[id]) {
				t.states[id] = zero
				word &^= 1 << b
			}
		}
		t.has[w] = word
	}
	kept := t.live[:0]
	for _, id := range t.live {
		if t.has[id>>6]&(1<<(id&63)) != 0 {
			kept = append(kept, id)
		}
	}
	clear(t.live[len(kept):])
	t.live = kept
}

// clone copies the table; cloneState deep-copies each state. The copy
// shares the names and holds the live states packed.
func (t *table[S]) clone(cloneState func(S) S) table[S] {
	if t.names == nil {
		return table[S]{}
	}
	if cloneState == nil {
		cloneState = func(s S) S { return s }
	}
	c := table[S]{names: t.names, live: append([]int32(nil), t.live...), packed: make([]S, len(t.live))}
	for i, id := range t.live {
		if t.packed != nil {
			c.packed[i] = cloneState(t.packed[i])
		} else {
			c.packed[i] = cloneState(t.states[id])
		}
	}
	return c
}

// minInstant is the clock of a limiter that has seen no request yet, so a
// first request at a negative instant is not clamped to 0.
const minInstant Instant = math.MinInt64

// clock is a limiter's view of time: instants never go backwards (an
// earlier one is read as the latest seen, so state stays consistent), and a
// full expiry sweep falls due at most once per window of virtual time, so
// clients that went quiet do not hold memory, at amortised O(1) cost.
type clock struct {
	last      Instant
	nextSweep Instant // minInstant until the first sweep
}

// newClock is the clock of a limiter that has seen nothing: minInstant, so a
// first request at a negative instant is not clamped to 0.
func newClock() clock { return clock{last: minInstant, nextSweep: minInstant} }

// at is t, or the latest instant seen when t is earlier.
func (c *clock) at(t Instant) Instant { return max(t, c.last) }

// seen records t as seen: no later request is decided on state dropped at t.
func (c *clock) seen(t Instant) { c.last = c.at(t) }

// advance records t as seen and returns it, clamped, with whether a sweep
// is due: the caller schedules the next (schedule) and sweeps. Small
// enough to inline: a decision pays a compare and a store.
func (c *clock) advance(t Instant) (Instant, bool) {
	if t < c.last {
		t = c.last
	} else {
		c.last = t
	}
	return t, t >= c.nextSweep
}

// quiet advances the clock to t and reports true when that is all a
// request at t asks of it: t is not before the latest instant seen and no
// sweep is due. Otherwise it changes nothing, and advance does the rest.
func (c *clock) quiet(t Instant) bool {
	if t >= c.last && t < c.nextSweep {
		c.last = t
		return true
	}
	return false
}

// sweepAt records t as seen for a sweep at t of windows w ms long at
// offset o ms: the edge whose instants leave the window, t − w, and the
// index of t's window.
func (c *clock) sweepAt(t Instant, w, o int64) (edge Instant, idx int64) {
	c.seen(t)
	return t - Instant(w), floorDiv(int64(t)-o, w)
}

// schedule sets the next sweep at the window edge after t, the sweep due
// at t being made.
func (c *clock) schedule(t Instant, windowMs int64) {
	c.nextSweep = t.NextEdge(time.Duration(windowMs) * time.Millisecond)
}
