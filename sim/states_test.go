package sim

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"windowlab/algo"
)

// fourLimiters are the lesson's three and the token bucket.
func fourLimiters(t testing.TB, limit int64, window time.Duration) []algo.Limiter {
	t.Helper()
	ls := lessonLimiters(t, limit, window)
	b, err := algo.New(algo.KindTokenBucket, algo.Config{Limit: limit, Window: window})
	if err != nil {
		t.Fatal(err)
	}
	return append(ls, b)
}

// recount is the chart's value for limiter k of kind at t, recounted by
// brute force from the records of every arrival decided (in order): the
// admitted requests of client in the window that counts, or the bucket
// refilled and spent request by request from full.
func recount(recs []Record, k int, kind algo.Kind, client string, limit int64, window time.Duration, t algo.Instant) *big.Rat {
	w := int64(window / time.Millisecond)
	ws := int64(t) - ((int64(t)%w)+w)%w      // the calendar window holding t
	admitted := func(from, to int64) int64 { // in [from, to]
		var n int64
		for _, r := range recs {
			if a := int64(r.Arrival.At); r.Arrival.Client == client && r.Decisions[k].Allowed && a >= from && a <= to {
				n++
			}
		}
		return n
	}
	switch kind {
	case algo.KindFixedWindow:
		return big.NewRat(admitted(ws, int64(t)), 1)
	case algo.KindSlidingLog:
		return big.NewRat(admitted(int64(t)-w+1, int64(t)), 1)
	case algo.KindSlidingCounter:
		cur, prev := admitted(ws, int64(t)), admitted(ws-w, ws-1)
		est := big.NewRat(prev*(w-(int64(t)-ws)), w)
		return est.Add(est, big.NewRat(cur, 1))
	}
	// The bucket: limit tokens a window, in units of 1/w token; full at first.
	capacity := limit * w
	units, last := capacity, int64(-1)
	for _, r := range recs {
		if r.Arrival.Client != client || r.Arrival.At > t {
			continue
		}
		if last >= 0 {
			units = min(capacity, units+(int64(r.Arrival.At)-last)*limit)
		}
		last = int64(r.Arrival.At)
		if r.Decisions[k].Allowed {
			units -= w
		}
	}
	if last >= 0 {
		units = min(capacity, units+(int64(t)-last)*limit)
	}
	return big.NewRat(units, w)
}

// steadyArrivals are n requests from clients a, b and c, from start, each
// up to maxGap ms after the one before, seeded.
func steadyArrivals(seed uint64, n, maxGap int, start algo.Instant) []Arrival {
	rng := rand.New(rand.NewPCG(seed, 32))
	out := make([]Arrival, 0, n)
	at := start
	for range n {
		at += algo.Instant(rng.IntN(maxGap))
		out = append(out, Arrival{At: at, Client: []string{"a", "b", "c"}[rng.IntN(3)]})
	}
	return out
}

// TestStatesAtRecount holds the chart's states to a brute-force recount
// from the records, at every instant asked, on random traffic and on the
// boundary burst, with the engine at several positions (after stepping
// back too, so the states come from a checkpoint's copies).
func TestStatesAtRecount(t *testing.T) {
	const limit, window = 5, 10 * time.Second
	start := algo.Clock(12, 0, 0, 0)
	random := steadyArrivals(3, 3000, 300, start)
	rng := rand.New(rand.NewPCG(4, 32)) // the instants asked
	edge := start.Add(window)
	boundary := append(burst(edge-1, 8, "a"), burst(edge, 8, "a")...)
	for name, arrivals := range map[string][]Arrival{"random": random, "boundary": boundary} {
		t.Run(name, func(t *testing.T) {
			// The records, decided once from the start by another engine.
			ref, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start, ForwardOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			var recs []Record
			for {
				r, ok := ref.Step()
				if !ok {
					break
				}
				recs = append(recs, r.clone())
			}
			e, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start, History: true})
			if err != nil {
				t.Fatal(err)
			}
			e.RunToEnd()
			last := arrivals[len(arrivals)-1].At
			for _, n := range []int64{int64(len(arrivals)), int64(len(arrivals)) * 2 / 3, int64(len(arrivals)) / 3, 9} {
				e.SeekIndex(n)
				now := e.Now()
				var ask []algo.Instant
				for t := now - 3*algo.Instant(window/time.Millisecond); t <= now+500; t += 1 + algo.Instant(rng.IntN(700)) {
					ask = append(ask, t)
				}
				ask = append(ask, now, now-1, last+1)
				slices.Sort(ask)
				s := e.StatesAt("a", ask, 1<<30, nil)
				if s.TooMany {
					t.Fatal("too many with an unbounded budget")
				}
				for i, at := range ask {
					if at > now {
						if i < s.Known {
							t.Fatalf("instant %v after the clock %v was computed", at, now)
						}
						continue
					}
					if i >= s.Known {
						t.Fatalf("instant %v at or before the clock %v was not computed", at, now)
					}
					decided := recs[:n]
					for k, d := range s.Decisions[i] {
						num, den := StateRat(d)
						got := big.NewRat(num, den)
						if want := recount(decided, k, d.Kind, "a", limit, window, at); got.Cmp(want) != 0 {
							t.Errorf("n=%d, %v at %v: chart %v, recount %v", n, d.Kind, at, got.RatString(), want.RatString())
						}
					}
				}
				if e.Now() != now || e.Processed() != n {
					t.Fatalf("StatesAt moved the engine: %v, %d", e.Now(), e.Processed())
				}
			}
		})
	}
}

// TestStatesAtBudget: past its budget StatesAt computes nothing and says so.
func TestStatesAtBudget(t *testing.T) {
	e := newEngine(t, burst(algo.Clock(12, 0, 1, 0), 500, "a"), 100, time.Minute, Options{Start: algo.Clock(12, 0, 0, 0)})
	e.RunToEnd()
	s := e.StatesAt("a", []algo.Instant{algo.Clock(12, 0, 0, 500), e.Now()}, 10, nil)
	if !s.TooMany || s.Known != 0 {
		t.Fatalf("over budget: TooMany %v, Known %d", s.TooMany, s.Known)
	}
}

// TestStatesRangeRecount holds each column's range (Lo, Hi) to the least
// and greatest value a brute-force recount finds at every millisecond of
// the column, before and after that millisecond's requests.
func TestStatesRangeRecount(t *testing.T) {
	const limit, window = 4, 5 * time.Second
	start := algo.Clock(12, 0, 0, 0)
	rng := rand.New(rand.NewPCG(7, 32))
	var arrivals []Arrival
	at := start
	for range 400 {
		at += algo.Instant(rng.IntN(150))
		if rng.IntN(20) == 0 {
			at = at.Add(window).Truncate(window) - algo.Instant(rng.IntN(2)) // at an edge, or just before
		}
		arrivals = append(arrivals, Arrival{At: at, Client: []string{"a", "b"}[rng.IntN(2)]})
	}
	ref, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start, ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for r, ok := ref.Step(); ok; r, ok = ref.Step() {
		recs = append(recs, r.clone())
	}
	e, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	var ask []algo.Instant
	for u := start + 1000; u <= e.Now(); u += 1 + algo.Instant(rng.IntN(400)) {
		ask = append(ask, u)
	}
	s := e.StatesAt("a", ask, 1<<30, nil)
	// before(u) is the records decided before u's own requests.
	before := func(u algo.Instant) []Record {
		return recs[:sort.Search(len(recs), func(i int) bool { return recs[i].Arrival.At >= u })]
	}
	for i := 1; i < s.Known; i++ {
		for k, d := range s.Decisions[i] {
			lo := recount(recs, k, d.Kind, "a", limit, window, ask[i-1])
			hi := new(big.Rat).Set(lo)
			for u := ask[i-1] + 1; u <= ask[i]; u++ {
				for _, v := range []*big.Rat{recount(before(u), k, d.Kind, "a", limit, window, u), recount(before(u+1), k, d.Kind, "a", limit, window, u)} {
					if v.Cmp(lo) < 0 {
						lo = v
					}
					if v.Cmp(hi) > 0 {
						hi = v
					}
				}
			}
			gotLo, gotHi := rat(s.Lo[i][k]), rat(s.Hi[i][k])
			if gotLo.Cmp(lo) != 0 || gotHi.Cmp(hi) != 0 {
				t.Errorf("%v over (%v, %v]: range %v–%v, recount %v–%v", d.Kind, ask[i-1], ask[i],
					gotLo.RatString(), gotHi.RatString(), lo.RatString(), hi.RatString())
			}
		}
	}
}

func rat(d algo.Decision) *big.Rat { n, den := StateRat(d); return big.NewRat(n, den) }

// TestStatesAtCursor follows the clock as a playing chart does, forward
// and back, going on from its cursor where it can: every answer is the
// one a replay from a checkpoint gives, and going on replays less.
func TestStatesAtCursor(t *testing.T) {
	const limit, window = 5, 10 * time.Second
	start := algo.Clock(12, 0, 0, 0)
	arrivals := steadyArrivals(11, 5000, 100, start)
	rng := rand.New(rand.NewPCG(12, 32)) // the clock's moves
	e, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	e.SeekIndex(0)
	var cur StatesCursor
	var withCursor, fresh int64
	const cell = 700
	for step := 0; step < 300; step++ {
		if step == 150 {
			e.SeekIndex(e.Processed() / 2) // back: the cursor is ahead, a checkpoint serves
		} else {
			e.Seek(e.Now() + algo.Instant(rng.IntN(400)))
		}
		now := e.Now()
		var ask []algo.Instant
		for c := now.Truncate(cell*time.Millisecond) - 20*cell; c <= now+3*cell; c += cell {
			if c+cell-1 >= now && c <= now {
				ask = append(ask, now)
			} else {
				ask = append(ask, c+cell-1)
			}
		}
		// As the chart asks: from the last column it read before (its
		// cache holds the ones before that).
		for cur.ok && len(ask) > 1 && ask[1] <= cur.at {
			ask = ask[1:]
		}
		got := e.StatesAt("a", ask, 1<<30, &cur)
		want := e.StatesAt("a", ask, 1<<30, nil)
		withCursor, fresh = withCursor+got.Replayed, fresh+want.Replayed
		if got.Known != want.Known {
			t.Fatalf("step %d: %d known with the cursor, %d without", step, got.Known, want.Known)
		}
		for i := range got.Known {
			for k := range got.Decisions[i] {
				for _, p := range [][2]algo.Decision{{got.Decisions[i][k], want.Decisions[i][k]}, {got.Lo[i][k], want.Lo[i][k]}, {got.Hi[i][k], want.Hi[i][k]}} {
					if rat(p[0]).Cmp(rat(p[1])) != 0 {
						t.Fatalf("step %d, %v at %v: %v with the cursor, %v without", step, p[0].Kind, ask[i], rat(p[0]), rat(p[1]))
					}
				}
			}
		}
	}
	t.Logf("replayed: %d with the cursor, %d from checkpoints", withCursor, fresh)
	if withCursor*2 > fresh {
		t.Errorf("the cursor replayed %d arrivals, a replay from checkpoints %d", withCursor, fresh)
	}
}

// TestTotalsAtRecount holds the totals over clients to the sum of each
// client's brute-force recount, at every instant asked, with the engine
// at several positions; the token bucket is apart.
func TestTotalsAtRecount(t *testing.T) {
	const limit, window = 5, 10 * time.Second
	start := algo.Clock(12, 0, 0, 0)
	rng := rand.New(rand.NewPCG(5, 32))
	clients := []string{"a", "b", "c", "d"}
	var arrivals []Arrival
	at := start
	for range 2000 {
		at += algo.Instant(rng.IntN(200))
		if rng.IntN(30) == 0 {
			at = at.Add(window).Truncate(window) // at an edge
		}
		arrivals = append(arrivals, Arrival{At: at, Client: clients[rng.IntN(len(clients))]})
	}
	ref, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start, ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for r, ok := ref.Step(); ok; r, ok = ref.Step() {
		recs = append(recs, r.clone())
	}
	e, err := New(NewSliceSource(arrivals), fourLimiters(t, limit, window), Options{Start: start, History: true})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	for _, n := range []int64{int64(len(arrivals)), 1234, 17} {
		e.SeekIndex(n)
		now := e.Now()
		var ask []algo.Instant
		from := now - 4*algo.Instant(window/time.Millisecond)
		for u := from; u <= now+900; u += 1 + algo.Instant(rng.IntN(900)) {
			ask = append(ask, u)
		}
		for _, r := range recs[:n] { // where a timestamp leaves the log's window, and the edges
			if u := r.Arrival.At.Add(window); u >= from && u <= now && rng.IntN(4) == 0 {
				ask = append(ask, u, u-1)
			}
		}
		for u := start.Add(window); u <= now; u = u.Add(window) {
			ask = append(ask, u, u-1)
		}
		slices.Sort(ask)
		ask = slices.Compact(ask)
		s := e.TotalsAt(ask)
		for i, u := range ask[:s.Known] {
			if u > now {
				t.Fatalf("instant %v after the clock %v computed", u, now)
			}
			for k, d := range s.Decisions[i] {
				if d.Kind == algo.KindTokenBucket {
					if !s.Apart[k] {
						t.Error("the bucket is not apart")
					}
					continue
				}
				want := new(big.Rat)
				for _, c := range clients {
					want.Add(want, recount(recs[:n], k, d.Kind, c, limit, window, u))
				}
				if got := rat(d); got.Cmp(want) != 0 {
					t.Errorf("n=%d, %v at %v: total %v, recount %v", n, d.Kind, u, got.RatString(), want.RatString())
				}
				if rat(s.Lo[i][k]).Cmp(rat(d)) > 0 || rat(s.Hi[i][k]).Cmp(rat(d)) < 0 {
					t.Errorf("n=%d, %v at %v: the range %v–%v leaves out the value %v", n, d.Kind, u, rat(s.Lo[i][k]), rat(s.Hi[i][k]), rat(d))
				}
			}
		}
		if s.Known == 0 || ask[s.Known-1] > now || (s.Known < len(ask) && ask[s.Known] <= now) {
			t.Fatalf("n=%d: %d known of %d", n, s.Known, len(ask))
		}
	}
}
