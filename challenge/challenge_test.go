package challenge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/algo"
	"windowlab/internal/long"
	"windowlab/sim"
)

// kinds are the limiters every test scenario runs: the lesson's three and
// the token bucket, which the checker must skip.
var kinds = []algo.Kind{algo.KindTokenBucket, algo.KindSlidingCounter, algo.KindFixedWindow, algo.KindSlidingLog}

// replay decides arrivals (in instant order) through the engine and
// returns every record, its decisions copied.
func replay(t tb, cfg algo.Config, arrivals []sim.Arrival) ([]sim.Record, []algo.Algorithm) {
	var ls []algo.Limiter
	var algos []algo.Algorithm
	for _, k := range kinds {
		l, err := algo.New(k, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		algos = append(algos, algo.Of(l))
	}
	e, err := sim.New(sim.NewSliceSource(arrivals), ls, sim.Options{ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []sim.Record
	for {
		r, ok := e.Step()
		if !ok {
			return out, algos
		}
		r.Decisions = append([]algo.Decision(nil), r.Decisions...)
		out = append(out, r)
	}
}

// column is where kind's decisions are in the records.
func column(k algo.Kind) int {
	for i, o := range kinds {
		if o == k {
			return i
		}
	}
	panic(k)
}

// bruteMost counts, for every x, the instants of ts in [x, x+w) and keeps
// the most: no sliding, no two pointers.
func bruteMost(ts []algo.Instant, w int64) int64 {
	var most int64
	if len(ts) == 0 {
		return 0
	}
	for x := ts[0] - algo.Instant(w); x <= ts[len(ts)-1]; x++ {
		var n int64
		for _, t := range ts {
			if t >= x && t < x+algo.Instant(w) {
				n++
			}
		}
		most = max(most, n)
	}
	return most
}

// facts are what the brute force finds in one scenario's records, for one
// client (the empty name: every client together).
type facts struct {
	fixed, log, counter, sent int64
	stricter, looser          bool // the counter denied a request the log allowed; the reverse
}

func bruteFacts(records []sim.Record, client string, w int64) facts {
	var f facts
	var fixed, log, counter, sent []algo.Instant
	for _, r := range records {
		if client != "" && r.Arrival.Client != client {
			continue
		}
		at := r.Arrival.At
		sent = append(sent, at)
		d := func(k algo.Kind) bool { return r.Decisions[column(k)].Allowed }
		if d(algo.KindFixedWindow) {
			fixed = append(fixed, at)
		}
		if d(algo.KindSlidingLog) {
			log = append(log, at)
		}
		if d(algo.KindSlidingCounter) {
			counter = append(counter, at)
		}
		f.stricter = f.stricter || (!d(algo.KindSlidingCounter) && d(algo.KindSlidingLog))
		f.looser = f.looser || (d(algo.KindSlidingCounter) && !d(algo.KindSlidingLog))
	}
	f.fixed, f.log, f.counter, f.sent = bruteMost(fixed, w), bruteMost(log, w), bruteMost(counter, w), bruteMost(sent, w)
	return f
}

// check runs every goal's checker over the records.
func check(t tb, cfg algo.Config, records []sim.Record, algos []algo.Algorithm) ([]Result, []*Checker) {
	var rs []Result
	var cs []*Checker
	for _, g := range Goals {
		c, err := NewChecker(g, cfg, algos)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			c.Add(r)
		}
		rs = append(rs, c.Result())
		cs = append(cs, c)
	}
	return rs, cs
}

// pattern is a count of requests at each instant 0, 1, … of a grid.
func arrivalsOf(pattern []int, client string) []sim.Arrival {
	var out []sim.Arrival
	for at, n := range pattern {
		for range n {
			out = append(out, sim.Arrival{At: algo.Instant(at), Client: client})
		}
	}
	return out
}

// TestGoalsAgainstBruteForce tries every traffic pattern of one client over
// a small grid of instants (up to the limit's worth at each), at limits 1
// to 4 and windows of 1 to 5 ms, and holds each goal's verdict and figure
// to what a brute-force count of the records says: the fixed window is
// beaten exactly when more than the limit got through in some interval one
// window long (never more than twice the limit); the counter's best is the
// most it admitted in such an interval, never more than Most, and Most is
// reached by some pattern; the log never admits more than the limit, and
// is "tried" exactly when more than the limit were sent in such an
// interval; the disagreements exactly when some request was decided so.
func TestGoalsAgainstBruteForce(t *testing.T) {
	budget := long.N(5_000, 120_000)
	for w := int64(1); w <= 5; w++ {
		for l := int64(1); l <= 4; l++ {
			// The grid: as many instants as the budget allows, up to three windows.
			g := 0
			for total := 1; g < int(3*w) && total*int(l+1) <= budget; g++ {
				total *= int(l + 1)
			}
			if g < int(2*w) {
				continue // too many patterns to try every one
			}
			t.Run(fmt.Sprintf("limit %d window %dms grid %d", l, w, g), func(t *testing.T) {
				cfg := algo.Config{Limit: l, Window: time.Duration(w) * time.Millisecond}
				var bestCounter, bestFixed int64
				pattern := make([]int, g)
				for {
					records, algos := replay(t, cfg, arrivalsOf(pattern, "you"))
					f := bruteFacts(records, "you", w)
					rs, cs := check(t, cfg, records, algos)
					holdGoals(t, cfg, pattern, f, rs, cs, records)
					bestCounter, bestFixed = max(bestCounter, f.counter), max(bestFixed, f.fixed)
					if !next(pattern, int(l)) {
						break
					}
				}
				if bestCounter != Most(cfg) {
					t.Errorf("the most any pattern got through the counter is %d, Most says %d", bestCounter, Most(cfg))
				}
				if want := min(2*l, l*w); bestFixed != want {
					t.Errorf("the most any pattern got through the fixed window is %d, want %d", bestFixed, want)
				}
			})
		}
	}
}

// next moves pattern to the next one in counting order, each instant 0 to
// most; false after the last.
func next(pattern []int, most int) bool {
	for i := range pattern {
		if pattern[i] < most {
			pattern[i]++
			return true
		}
		pattern[i] = 0
	}
	return false
}

// holdGoals holds one scenario's results to the brute force's facts.
func holdGoals(t tb, cfg algo.Config, pattern []int, f facts, rs []Result, cs []*Checker, records []sim.Record) {
	t.Helper()
	l := cfg.Limit
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("pattern %v: "+format, append([]any{pattern}, args...)...)
	}
	if f.log > l || f.counter > Most(cfg) || f.fixed > 2*l {
		fail("a limiter beat its bound: %+v", f)
	}
	want := []struct {
		reached bool
		best    int64
	}{
		{f.fixed > l, f.fixed},
		{f.counter == Most(cfg), f.counter},
		{f.sent > l, f.sent},
		{f.stricter, -1},
		{f.looser, -1},
	}
	for i, r := range rs {
		if r.Reached != want[i].reached || (want[i].best >= 0 && r.Best != want[i].best) {
			fail("%s: reached %v, best %d; the brute force says %v, %d (%+v)", r.Goal.Name, r.Reached, r.Best, want[i].reached, want[i].best, f)
		}
		if r.Reached != (len(r.Proof) > 0) {
			fail("%s: reached %v with a proof of %d lines", r.Goal.Name, r.Reached, len(r.Proof))
		}
	}
	if rs[2].Reached && f.log != l {
		fail("log-holds reached with the log's most at %d, not the limit %d", f.log, l)
	}
	holdSpans(t, cfg, pattern, cs[0], records)
	holdEvidence(t, pattern, cs, records)
}

// holdSpans checks every span a checker reports against the records: its
// requests lie within one window, its count is what the records admitted
// between its first and last, and so is each part's, in one aligned window.
func holdSpans(t tb, cfg algo.Config, pattern []int, c *Checker, records []sim.Record) {
	t.Helper()
	w := algo.Instant(cfg.Window.Milliseconds())
	for _, k := range []algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog, algo.KindSlidingCounter} {
		s := c.Most(k, "you")
		admittedIn := func(from, to algo.Instant) (n int64) {
			for _, r := range records {
				if r.Decisions[column(k)].Allowed && r.Arrival.At >= from && r.Arrival.At <= to {
					n++
				}
			}
			return n
		}
		if s.Count == 0 {
			continue
		}
		if s.Last()-s.First() >= w || admittedIn(s.First(), s.Last()) != s.Count {
			t.Fatalf("pattern %v: %s's span %+v: %d admitted in it", pattern, k, s, admittedIn(s.First(), s.Last()))
		}
		var sum int64
		for _, p := range s.Parts {
			sum += p.Count
			if cfg.WindowStart(p.First) != p.Window || cfg.WindowStart(p.Last) != p.Window || admittedIn(p.First, p.Last) != p.Count {
				t.Fatalf("pattern %v: %s's span %+v: part %+v", pattern, k, s, p)
			}
		}
		if sum != s.Count {
			t.Fatalf("pattern %v: %s's span %+v: parts sum to %d", pattern, k, s, sum)
		}
		if total := c.Most(k, ""); total.Count != s.Count {
			t.Fatalf("pattern %v: one client, but %s's total %d is not its %d", pattern, k, total.Count, s.Count)
		}
	}
}

// holdEvidence checks the decisions a checker works out for its proofs
// against the engine's own evidence in the records.
func holdEvidence(t tb, pattern []int, cs []*Checker, records []sim.Record) {
	t.Helper()
	for _, c := range cs[3:] {
		if f := c.found; f != nil {
			same(t, pattern, f.counter, records[f.index].Decisions[column(algo.KindSlidingCounter)])
			same(t, pattern, f.lg, records[f.index].Decisions[column(algo.KindSlidingLog)])
		}
	}
	c := cs[1]
	if s := c.best[counterAt]; s.Count > 0 {
		last := -1
		for i, r := range records {
			if r.Arrival.At == s.Last() && r.Decisions[column(algo.KindSlidingCounter)].Allowed {
				last = i
			}
		}
		same(t, pattern, c.atBest, records[last].Decisions[column(algo.KindSlidingCounter)])
	}
}

func same(t tb, pattern []int, got, want algo.Decision) {
	t.Helper()
	// The fields a decision's explanation reads.
	type ev struct {
		at, ws, oldest  algo.Instant
		allowed         bool
		count, previous int64
		elapsed         time.Duration
	}
	g := ev{got.At, got.WindowStart, got.Oldest, got.Allowed, got.Count, got.Previous, got.Elapsed}
	w := ev{want.At, want.WindowStart, want.Oldest, want.Allowed, want.Count, want.Previous, want.Elapsed}
	if want.Kind == algo.KindSlidingLog {
		g.ws, g.elapsed, w.ws, w.elapsed = 0, 0, 0, 0
		if want.Count == 0 {
			g.oldest, w.oldest = 0, 0
		}
	}
	if g != w || got.Explain() != want.Explain() {
		t.Fatalf("pattern %v: the checker's %s decision %+v (%s), the engine's %+v (%s)", pattern, want.Kind, g, got.Explain(), w, want.Explain())
	}
}

// TestMostOverManyClients draws longer traffic of several clients and
// holds the checker's most admitted, per client and in total, and the most
// sent, to the brute force.
func TestMostOverManyClients(t *testing.T) {
	long.Check(t, 300, 3000, func(rt *rapid.T) {
		l := rapid.Int64Range(1, 5).Draw(rt, "limit")
		w := rapid.Int64Range(1, 12).Draw(rt, "window")
		cfg := algo.Config{Limit: l, Window: time.Duration(w) * time.Millisecond,
			Offset: time.Duration(rapid.Int64Range(0, w-1).Draw(rt, "offset")) * time.Millisecond}
		clients := []string{"a", "b", "c"}
		var arrivals []sim.Arrival
		at := algo.Instant(rapid.Int64Range(-3*w, 3*w).Draw(rt, "start"))
		for i := range rapid.IntRange(0, 80).Draw(rt, "requests") {
			at += algo.Instant(rapid.SampledFrom([]int64{0, 0, 1, w - 1, w, 2 * w}).Draw(rt, fmt.Sprint("gap ", i)))
			arrivals = append(arrivals, sim.Arrival{At: at, Client: rapid.SampledFrom(clients).Draw(rt, fmt.Sprint("client ", i))})
		}
		records, algos := replay(rt, cfg, arrivals)
		_, cs := check(rt, cfg, records, algos)
		c := cs[0]
		for _, who := range append(clients, "") {
			f := bruteFacts(records, who, w)
			got := [...]int64{c.Most(algo.KindFixedWindow, who).Count, c.Most(algo.KindSlidingLog, who).Count, c.Most(algo.KindSlidingCounter, who).Count}
			if want := [...]int64{f.fixed, f.log, f.counter}; got != want {
				rt.Fatalf("client %q: most admitted %v, the brute force says %v", who, got, want)
			}
			if who != "" && c.MostSent(who).Count != f.sent {
				rt.Fatalf("client %q: most sent %d, the brute force says %d", who, c.MostSent(who).Count, f.sent)
			}
		}
	})
}

// TestLessonNumbers: the counter's most at the lesson's numbers is 200,
// reached by the derivation's bursts (100 at 12:00:59.999, 100 at
// 12:01:59.998) and, at these numbers, by bursts anywhere in the last 598
// ms of one window and the last 599 of the next (the (★) inequality's
// slack), and missed by one request when the second burst comes 600 ms
// before the edge.
func TestLessonNumbers(t *testing.T) {
	if Most(Lesson) != 200 {
		t.Fatalf("Most(lesson) = %d, want 200", Most(Lesson))
	}
	for _, c := range []struct {
		first, second algo.Instant
		want          int64
	}{
		{algo.Clock(12, 0, 59, 999), algo.Clock(12, 1, 59, 998), 200},
		{algo.Clock(12, 0, 59, 402), algo.Clock(12, 1, 59, 401), 200},
		{algo.Clock(12, 0, 59, 999), algo.Clock(12, 1, 59, 400), 199},
	} {
		var arrivals []sim.Arrival
		for _, at := range []algo.Instant{c.first, c.second} {
			for range 100 {
				arrivals = append(arrivals, sim.Arrival{At: at, Client: "you"})
			}
		}
		records, algos := replay(t, Lesson, arrivals)
		rs, _ := check(t, Lesson, records, algos)
		if r := rs[1]; r.Best != c.want || r.Reached != (c.want == 200) {
			t.Errorf("100 at %v and 100 at %v: best %d, reached %v; want %d", c.first, c.second, r.Best, r.Reached, c.want)
		}
	}
}

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// A scenario of more clients than a checker follows is checked up to the
// first client past them, and says so.
func TestMaxClients(t *testing.T) {
	c, err := NewChecker(Goals[0], Lesson, []algo.Algorithm{{Kind: algo.KindFixedWindow}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxClients + 10 {
		c.Observe(algo.Instant(i), fmt.Sprint("c", i), 1, 1)
	}
	c.Observe(algo.Instant(MaxClients+20), "c0", 1, 500)
	r := c.Result()
	if r.Decided != MaxClients || r.Reached || !strings.Contains(r.Progress, "checked over the first 100,000 requests only") {
		t.Fatalf("%d decided, reached %v: %s", r.Decided, r.Reached, r.Progress)
	}
}
