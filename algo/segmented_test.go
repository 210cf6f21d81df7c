package algo

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/internal/long"
)

// divisorOf draws a divisor of w.
func divisorOf(r *rand.Rand, w int64) int64 {
	var ds []int64
	for d := int64(1); d <= w; d++ {
		if w%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds[r.IntN(len(ds))]
}

// bruteSegmented decides a request from client at t from the admitted
// requests alone: a plain loop over every admitted (client, instant)
// counting those whose segment, ⌊(at − offset)·S / W⌋ by division of
// non-negative numbers shifted far from zero, is one of the S ending with
// t's.
type bruteSegmented struct {
	limit, w, s, o int64
	admitted       []refReq
}

func (b *bruteSegmented) seg(t Instant) int64 {
	shift := b.w << 30 // a whole number of windows: floor by plain division
	return (int64(t) - b.o + shift) * b.s / b.w
}

func (b *bruteSegmented) allow(t Instant, client string) (count int64, allowed bool) {
	k := b.seg(t)
	for _, a := range b.admitted {
		if a.client == client && b.seg(a.at) > k-b.s && b.seg(a.at) <= k {
			count++
		}
	}
	if count < b.limit {
		b.admitted = append(b.admitted, refReq{client, t})
		return count, true
	}
	return count, false
}

// The segmented window decides every request as the brute force does, by
// name and by id, for random windows, segment counts, offsets and limits.
func TestSegmentedAgainstBruteForce(t *testing.T) {
	for seed := range uint64(long.N(300, 3000)) {
		r := rand.New(rand.NewPCG(seed, 0x5e6))
		st := randomStream(r, false)
		w := int64(st.cfg.Window / time.Millisecond)
		st.cfg.Segments = divisorOf(r, w)
		b := &bruteSegmented{limit: st.cfg.Limit, w: w, s: st.cfg.Segments, o: int64(st.cfg.Offset / time.Millisecond)}
		byName := mustNew(t, KindSegmentedWindow, st.cfg)
		byID := newByName(t, KindSegmentedWindow, st.cfg)
		for i, e := range st.events {
			if e.op != opAllow {
				continue
			}
			count, allowed := b.allow(e.at, e.client)
			for _, l := range []Limiter{byName, byID} {
				if d := l.Allow(e.at, e.client); d.Allowed != allowed || d.Count != count {
					t.Fatalf("seed %d, %+v, event %d %v: got %v with %d, the brute force %v with %d",
						seed, st.cfg, i, e, d.Allowed, d.Count, allowed, count)
				}
			}
		}
	}
}

// One segment is the fixed window; segments of 1ms are the sliding log
// over (t − W, t]: request for request, count for count, on random traffic.
func TestSegmentedEndsAreFixedWindowAndLog(t *testing.T) {
	for seed := range uint64(long.N(300, 3000)) {
		r := rand.New(rand.NewPCG(seed, 0xe4d5))
		st := randomStream(r, false)
		w := int64(st.cfg.Window / time.Millisecond)
		for _, c := range []struct {
			segments int64
			kind     Kind
		}{{1, KindFixedWindow}, {w, KindSlidingLog}} {
			cfg := st.cfg
			cfg.Segments = c.segments
			if c.kind == KindSlidingLog {
				cfg.Offset = 0 // 1ms segments have no edges to move
			}
			seg, other := mustNew(t, KindSegmentedWindow, cfg), mustNew(t, c.kind, cfg)
			for i, e := range st.events {
				if e.op != opAllow {
					continue
				}
				got, want := seg.Allow(e.at, e.client), other.Allow(e.at, e.client)
				if got.Allowed != want.Allowed || got.Count != want.Count {
					t.Fatalf("seed %d, S = %d against the %v, event %d %v: %v with %d, want %v with %d",
						seed, c.segments, c.kind, i, e, got.Allowed, got.Count, want.Allowed, want.Count)
				}
			}
		}
	}
}

// Property: in any S consecutive aligned segments, the segmented window
// admits at most the limit to one client; and the limit is reached: a
// client asking at every instant is admitted exactly the limit in its
// first S segments.
func TestPropSegmentedNeverAdmitsMoreThanTheLimit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit, w := drawConfig(t)
		s := rapid.SampledFrom(divisors(w)).Draw(t, "segments")
		c := Config{Limit: limit, Window: time.Duration(w) * time.Millisecond, Segments: s}
		l := newProp(t, KindSegmentedWindow, c)
		acc, _ := acceptedBy(l, drawTraffic(t, w, 200))
		seg := w / s
		for client, ts := range acc {
			per := map[int64]int64{}
			for _, at := range ts {
				per[floorDiv(int64(at), seg)]++
			}
			for k := range per {
				var n int64
				for i := k; i < k+s; i++ { // every run of S segments that starts with a count
					n += per[i]
				}
				if n > limit {
					t.Fatalf("client %d: %d admitted in segments %d–%d, limit %d", client, n, k, k+s-1, limit)
				}
			}
		}
		// Reached: a request every millisecond from a segment's start.
		l = newProp(t, KindSegmentedWindow, c)
		var n int64
		for at := range Instant(w) {
			if l.Allow(at, "hot").Allowed {
				n++
			}
		}
		if want := min(limit, w); n != want {
			t.Fatalf("a request every ms for one window: %d admitted, want %d", n, want)
		}
	})
}

func divisors(w int64) []int64 {
	var ds []int64
	for d := int64(1); d <= w; d++ {
		if w%d == 0 {
			ds = append(ds, d)
		}
	}
	return ds
}

// Bad segment counts are refused, naming the setting and what is valid.
func TestSegmentsRefused(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Limit: 1, Window: time.Minute, Segments: -1}, "segments: -1 is out of range: the segments per window are a whole number from 1 to 100000"},
		{Config{Limit: 1, Window: time.Second, Segments: MaxSegments + 1}, "segments: 100001 is out of range: the segments per window are a whole number from 1 to 100000"},
		{Config{Limit: 1, Window: time.Second, Segments: 7}, "segments: 7 does not divide the window (1s) into whole milliseconds: give a divisor of 1000, such as 8"},
		{Config{Limit: 1, Window: 10 * time.Millisecond, Segments: 20}, "segments: 20 does not divide the window (10ms) into whole milliseconds: give a divisor of 10, such as 10"},
	} {
		_, err := New(KindSegmentedWindow, c.cfg)
		var oe *OptionError
		if !errors.As(err, &oe) || err.Error() != c.want {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	// Without segments: 4, or the largest divisor of the window below it.
	for w, want := range map[time.Duration]int64{time.Minute: 4, 9 * time.Millisecond: 3, 7 * time.Millisecond: 1, 10 * time.Millisecond: 2} {
		if got := (Config{Window: w}).SegmentCount(); got != want {
			t.Errorf("window %v: %d segments by default, want %d", w, got, want)
		}
	}
}

// The decision's evidence as the lane and the code show it: the oldest
// segment's count, the segments' span, Explain.
func TestSegmentedEvidence(t *testing.T) {
	l := NewSegmentedWindow(Config{Limit: 5, Window: time.Minute, Segments: 6})
	for _, at := range []Instant{Clock(12, 0, 5, 0), Clock(12, 0, 5, 0), Clock(12, 0, 25, 0), Clock(12, 0, 55, 0)} {
		l.Allow(at, "c")
	}
	if d := l.Peek(Clock(12, 0, 58, 0), "c"); d.Count != 4 || d.Previous != 2 {
		t.Errorf("at 12:00:58: %d in the window, %d in its oldest segment; want 4 and 2", d.Count, d.Previous)
	}
	d := l.Peek(Clock(12, 1, 3, 0), "c")
	if d.Count != 2 || d.Previous != 0 || d.WindowStart != Clock(12, 1, 0, 0) || d.SegmentsFrom() != Clock(12, 0, 10, 0) || d.SegmentEnd() != Clock(12, 1, 10, 0) {
		t.Errorf("evidence %+v", d)
	}
	if got, want := d.Explain(), "6 segments 12:00:10–12:01:10 hold 2 → allow (2 < 5)"; got != want {
		t.Errorf("Explain = %q, want %q", got, want)
	}
	if got := l.WindowCounts(nil, Clock(12, 1, 3, 0), "c", 80); len(got) != 6 || got[1] != 1 || got[4] != 1 || got[0]+got[2]+got[3]+got[5] != 0 {
		t.Errorf("WindowCounts = %v, want [0 1 0 0 1 0]", got)
	}
	if got := l.WindowCounts(nil, Clock(12, 1, 3, 0), "c", 3); len(got) != 3 || got[0] != 1 || got[1] != 0 || got[2] != 1 {
		t.Errorf("WindowCounts in 3 cells = %v, want [1 0 1]", got)
	}
	if m := l.MemoryAt(Clock(12, 1, 50, 0)); m.Clients != 0 {
		t.Errorf("after the last count left: %+v", m)
	}
	if m := l.MemoryAt(Clock(12, 1, 3, 0)); m.Clients != 1 || m.Entries != 6 {
		t.Errorf("a ring of 6 counters: %+v", m)
	}
}

// The rings of the clients by name: each its own S counters, whatever S
// (one ring a block past segBlockCounters), a given-back ring taken again
// first, and a clone's rings its own.
func TestSegRings(t *testing.T) {
	for _, s := range []int64{1, 3, 4, 4096, 8193, MaxSegments} {
		r := newSegRings(s)
		var ids []uint32
		for range 5 {
			ids = append(ids, r.take())
		}
		for k, i := range ids {
			ring := r.at(i)
			if int64(len(ring)) != s || int64(cap(ring)) != s {
				t.Fatalf("S %d: ring %d holds %d (cap %d)", s, i, len(ring), cap(ring))
			}
			for j := range ring {
				ring[j] = int64(k)
			}
		}
		for k, i := range ids { // no ring wrote over another
			for _, v := range r.at(i) {
				if v != int64(k) {
					t.Fatalf("S %d: ring %d holds %d, want %d", s, i, v, k)
				}
			}
		}
		c := r.clone()
		c.at(ids[0])[0] = -1
		if r.at(ids[0])[0] != 0 {
			t.Fatalf("S %d: a clone's ring is the original's", s)
		}
		r.give(ids[2])
		if i := r.take(); i != ids[2] {
			t.Fatalf("S %d: took %d, want the ring given back, %d", s, i, ids[2])
		}
		if r.at(0) != nil {
			t.Fatalf("S %d: ring 0 is not none", s)
		}
	}
}
