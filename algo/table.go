package algo

import (
	"math"
	"time"
	"unsafe"
)

// table keeps per-client state of type S in a slice, indexed through one
// map lookup, so a decision costs one hash and allocates nothing once the
// client is known. Freed slots are reused.
type table[S any] struct {
	index  map[string]int32
	states []S
	free   []int32
}

func newTable[S any]() table[S] { return table[S]{index: make(map[string]int32)} }

// mapSlotBytes approximates one map slot: the key's string header, the
// int32 slot number and the control byte, rounded to a word.
const mapSlotBytes = 16 + 8

// clientBytes is the memory a client costs before its entries: the map slot,
// its key's bytes and its state value.
func clientBytes[S any](key string) int64 {
	var s S
	return int64(mapSlotBytes + len(key) + int(unsafe.Sizeof(s)))
}

// get returns the client's state, or nil.
func (t *table[S]) get(key string) *S {
	if i, ok := t.index[key]; ok {
		return &t.states[i]
	}
	return nil
}

// add creates zero state for a client that has none.
func (t *table[S]) add(key string) *S {
	var i int32
	if n := len(t.free); n > 0 {
		i = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		var zero S
		t.states = append(t.states, zero)
		i = int32(len(t.states) - 1)
	}
	t.index[key] = i
	return &t.states[i]
}

// each calls f for every client; f returns false to drop the client.
func (t *table[S]) each(f func(key string, s *S) (keep bool)) {
	for key, i := range t.index {
		if !f(key, &t.states[i]) {
			var zero S
			t.states[i] = zero
			delete(t.index, key)
			t.free = append(t.free, i)
		}
	}
}

// clone copies the table; cloneState deep-copies each state.
func (t *table[S]) clone(cloneState func(S) S) table[S] {
	c := table[S]{
		index:  make(map[string]int32, len(t.index)),
		states: make([]S, len(t.states)),
		free:   append([]int32(nil), t.free...),
	}
	for k, i := range t.index {
		c.index[k] = i
	}
	for i, s := range t.states {
		if cloneState != nil {
			c.states[i] = cloneState(s)
		} else {
			c.states[i] = s
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
	nextSweep Instant
	swept     bool
}

// newClock is the clock of a limiter that has seen nothing: minInstant, so a
// first request at a negative instant is not clamped to 0.
func newClock() clock { return clock{last: minInstant} }

// at is t, or the latest instant seen when t is earlier.
func (c *clock) at(t Instant) Instant { return max(t, c.last) }

// seen records t as seen: no later request is decided on state dropped at t.
func (c *clock) seen(t Instant) { c.last = c.at(t) }

// advance records t as seen and returns it, clamped, with whether a sweep
// is due; the next one is scheduled at the window edge after t.
func (c *clock) advance(t Instant, windowMs int64) (Instant, bool) {
	t = c.at(t)
	c.last = t
	if c.swept && t < c.nextSweep {
		return t, false
	}
	c.nextSweep = t.NextEdge(time.Duration(windowMs) * time.Millisecond)
	c.swept = true
	return t, true
}
