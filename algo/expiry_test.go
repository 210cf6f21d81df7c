package algo

import (
	"fmt"
	"testing"
	"time"
)

// A client that stops sending is dropped by Expire as soon as its state can
// no longer matter, and not a millisecond before; always within two windows.
func TestExpireDropsIdleClient(t *testing.T) {
	t0 := Clock(12, 0, 0, 500)
	cases := []struct {
		kind         Kind
		keep, drop   Instant // last Expire that keeps the client, first that drops it
		entries      int64   // while kept
		afterRequest Decision
	}{
		{KindFixedWindow, Clock(12, 0, 0, 999), Clock(12, 0, 1, 0), 1,
			Decision{Kind: KindFixedWindow, Allowed: true, WindowStart: Clock(12, 0, 1, 0)}},
		{KindSlidingLog, t0 + 999, t0 + 1000, 3,
			Decision{Kind: KindSlidingLog, Allowed: true}},
		{KindSlidingCounter, Clock(12, 0, 1, 999), Clock(12, 0, 2, 0), 2,
			Decision{Kind: KindSlidingCounter, Allowed: true, WindowStart: Clock(12, 0, 2, 0)}},
	}
	for _, c := range cases {
		t.Run(c.kind.String(), func(t *testing.T) {
			if c.drop > t0+2000 {
				t.Fatalf("drop instant %v is more than two windows after %v", c.drop, t0)
			}
			l := mustNew(t, c.kind, Config{Limit: 3, Window: time.Second})
			allowN(l, t0, "idle-client", 3)
			held := l.Memory()
			if held.Clients != 1 || held.Entries != c.entries || held.Bytes <= 0 {
				t.Fatalf("after 3 requests: Memory %+v, want 1 client, %d entries, some bytes", held, c.entries)
			}
			if m := l.MemoryAt(c.keep); m != held {
				t.Errorf("MemoryAt(%v) = %+v, want %+v", c.keep, m, held)
			}
			if m := l.MemoryAt(c.drop); m != (Memory{}) {
				t.Errorf("MemoryAt(%v) = %+v, want all zero", c.drop, m)
			}
			if m := l.Memory(); m != held {
				t.Errorf("MemoryAt dropped state: Memory %+v, want %+v", m, held)
			}
			l.Expire(c.keep)
			if m := l.Memory(); m != held {
				t.Errorf("Expire(%v) dropped state that still matters: %+v → %+v", c.keep, held, m)
			}
			l.Expire(c.drop)
			if m := l.Memory(); m != (Memory{}) {
				t.Errorf("Expire(%v): Memory %+v, want all zero", c.drop, m)
			}
			want := c.afterRequest
			want.At = c.drop
			checkEvidence(t, "request after expiry", l.Allow(c.drop, "idle-client"), want)
		})
	}
}

// Without any Expire call, the once-per-window sweep run by another client's
// request drops an idle client within two windows: memory is then exactly
// what a limiter that only ever saw the other client holds.
func TestSweepByAnotherClient(t *testing.T) {
	t0 := Clock(12, 0, 0, 999)
	cfg := Config{Limit: 5, Window: time.Second}
	for _, k := range Lesson {
		l := mustNew(t, k, cfg)
		for i := range 1000 {
			allowN(l, t0, fmt.Sprintf("idle-%03d", i), 1+i%5)
		}
		if m := l.Memory(); m.Clients != 1000 {
			t.Fatalf("%v: %d clients held, want 1000", k, m.Clients)
		}
		later := t0 + 2000 - 999 // the first instant two windows on
		l.Allow(later, "active")
		fresh := mustNew(t, k, cfg)
		fresh.Allow(later, "active")
		if l.Memory() != fresh.Memory() || l.Memory().Clients != 1 {
			t.Errorf("%v: after the sweep Memory %+v, want %+v (one client)", k, l.Memory(), fresh.Memory())
		}
	}
}

// With expiry off memory only grows: the lesson's "forgetting to expire old
// windows". With it on, it stays at what the last window needs.
func TestNoExpiryMemoryOnlyGrows(t *testing.T) {
	type figures struct{ clients, entries int64 }
	cases := []struct {
		kind    Kind
		on, off figures
	}{
		// 100 one-off clients at the start, then "a" once in each of 10 windows.
		{KindFixedWindow, figures{1, 1}, figures{101, 110}},          // one retired counter per finished window
		{KindSlidingLog, figures{1, 1}, figures{101, 110}},           // every timestamp
		{KindSlidingCounter, figures{1, 2}, figures{101, 2*101 + 8}}, // two live + 8 retired windows of "a"
	}
	w := time.Second
	t0 := Clock(12, 0, 0, 100)
	for _, c := range cases {
		for _, noExpiry := range []bool{false, true} {
			l := mustNew(t, c.kind, Config{Limit: 10, Window: w, NoExpiry: noExpiry})
			var prev Memory
			check := func(what string) {
				m := l.Memory()
				if noExpiry && (m.Clients < prev.Clients || m.Entries < prev.Entries || m.Bytes < prev.Bytes) {
					t.Errorf("%v no expiry, %s: Memory shrank %+v → %+v", c.kind, what, prev, m)
				}
				prev = m
			}
			for i := range 100 {
				l.Allow(t0, fmt.Sprintf("one-off-%02d", i))
				check("one-off client")
			}
			for i := range 10 {
				at := t0 + Instant(i)*1000
				l.Allow(at, "a")
				check("a")
				l.Expire(at)
				check("Expire")
			}
			want := c.on
			if noExpiry {
				want = c.off
			}
			if m := l.Memory(); m.Clients != want.clients || m.Entries != want.entries {
				t.Errorf("%v NoExpiry=%v: Memory %+v, want Clients %d Entries %d",
					c.kind, noExpiry, m, want.clients, want.entries)
			}
		}
	}
}

// Expire(t) moves the clock: a later request at an earlier instant is taken
// as t, never decided on state that Expire already dropped.
func TestExpireAheadMovesTheClock(t *testing.T) {
	for _, k := range Lesson {
		for _, noExpiry := range []bool{false, true} {
			l := mustNew(t, k, Config{Limit: 1, Window: time.Second, NoExpiry: noExpiry})
			l.Allow(0, "a")
			l.Expire(2500)
			d := l.Allow(900, "a") // at 900 the request at 0 would still count
			if d.At != 2500 || !d.Allowed || d.Count != 0 || d.Previous != 0 {
				t.Errorf("%v NoExpiry=%v: Allow(900) after Expire(2500) = %+v, want At 2500, allowed, Count 0",
					k, noExpiry, d)
			}
			if p := l.Peek(100, "a"); p.At != 2500 || p.Allowed || p.Count != 1 {
				t.Errorf("%v NoExpiry=%v: Peek(100) = %+v, want At 2500, denied by the request at 2500", k, noExpiry, p)
			}
		}
	}
}

// Expire with an instant behind the clock drops nothing that still matters.
func TestExpireBehindTheClock(t *testing.T) {
	for _, k := range Lesson {
		l := mustNew(t, k, Config{Limit: 2, Window: time.Second})
		l.Allow(5000, "a")
		l.Allow(5500, "a")
		before := l.Memory()
		l.Expire(0)
		if l.Memory() != before {
			t.Errorf("%v: Expire(0) behind the clock changed Memory %+v → %+v", k, before, l.Memory())
		}
		if d := l.Allow(5600, "a"); d.At != 5600 || d.Allowed {
			t.Errorf("%v: Allow(5600) = %+v, want denied at 5600", k, d)
		}
	}
}

// A Clone holds the same figures; changing either afterwards leaves the
// other as it was.
func TestCloneMemory(t *testing.T) {
	for _, k := range Lesson {
		for _, noExpiry := range []bool{false, true} {
			cfg := Config{Limit: 3, Window: time.Second, NoExpiry: noExpiry}
			l := mustNew(t, k, cfg)
			for i := range 30 {
				l.Allow(Instant(i*250), fmt.Sprintf("c%d", i%4))
			}
			c := l.Clone()
			if c.Memory() != l.Memory() {
				t.Fatalf("%v: clone Memory %+v, original %+v", k, c.Memory(), l.Memory())
			}
			orig := l.Memory()
			// Fill the clone's log and counters, add clients, let time pass.
			for i := range 50 {
				c.Allow(Instant(7500+i*100), fmt.Sprintf("new-%d", i))
			}
			c.Expire(100_000)
			if l.Memory() != orig {
				t.Errorf("%v: using the clone changed the original's Memory %+v → %+v", k, orig, l.Memory())
			}
			// The original still decides as a twin that never had a clone.
			d := l.Peek(7250, "c3")
			ref := mustNew(t, k, cfg)
			for i := range 30 {
				ref.Allow(Instant(i*250), fmt.Sprintf("c%d", i%4))
			}
			if want := ref.Peek(7250, "c3"); d != want {
				t.Errorf("%v: original after clone use decides %+v, untouched twin %+v", k, d, want)
			}
			// And the clone is not held back by the original.
			l.Allow(200_000, "c0")
			if cd := c.Peek(100_000, "c0"); cd.At != 100_000 {
				t.Errorf("%v: clone's clock moved with the original's: %+v", k, cd)
			}
		}
	}
}

// A sliding log's memory grows with the limit, a counter's does not.
func TestMemoryGrowsWithLimitOnlyForTheLog(t *testing.T) {
	at := Clock(12, 0, 0, 0)
	for _, k := range Lesson {
		var entries []int64
		for _, limit := range []int64{10, 1000} {
			l := mustNew(t, k, Config{Limit: limit, Window: time.Minute})
			allowN(l, at, "c", int(limit))
			entries = append(entries, l.Memory().Entries)
		}
		want := map[Kind][]int64{
			KindFixedWindow:    {1, 1},
			KindSlidingLog:     {10, 1000},
			KindSlidingCounter: {2, 2},
		}[k]
		if entries[0] != want[0] || entries[1] != want[1] {
			t.Errorf("%v: entries at limits 10 and 1000 = %v, want %v", k, entries, want)
		}
	}
}

// A steady client's log memory is bounded by the limit, not by how long it
// has been sending: room left by expired timestamps is reused.
func TestLogMemoryBoundedUnderSteadyTraffic(t *testing.T) {
	l := mustNew(t, KindSlidingLog, Config{Limit: 10, Window: 100 * time.Millisecond})
	var most Memory
	for i := range 100_000 {
		l.Allow(Instant(i), "steady")
		if m := l.Memory(); m.Bytes > most.Bytes {
			most = m
		}
	}
	// The client's fixed cost plus room for well under 64 timestamps.
	if most.Entries > 10 || most.Bytes > clientBytes[logState](len("steady"))+64*timestampBytes {
		t.Errorf("peak Memory %+v over 100,000 ms of steady traffic; want at most 10 entries and a small log", most)
	}
}

// Clients that come and go are freed instead of growing the store.
func TestChurningClientsReuseSlots(t *testing.T) {
	for _, k := range Lesson {
		l := mustNew(t, k, Config{Limit: 3, Window: 10 * time.Millisecond})
		for win := range 1000 {
			for c := range 5 {
				l.Allow(Instant(win*10), fmt.Sprintf("w%d-c%d", win, c))
			}
		}
		var keys *keyStore
		switch l := l.(type) {
		case *FixedWindow:
			keys = &l.keyed.keys
		case *SlidingLog:
			keys = &l.keys
		case *SlidingCounter:
			keys = &l.keyed.keys
		}
		arena := 0
		for _, c := range keys.chunks {
			arena += cap(c)
		}
		if m := l.Memory(); m.Clients > 10 || keys.Len() > 20 || keys.homes > 64 || arena > compactFrom*4 {
			t.Errorf("%v: after 5,000 short-lived clients: %d clients held, %d records, %d slots, %d bytes of arena",
				k, m.Clients, keys.Len(), keys.homes, arena)
		}
	}
}
