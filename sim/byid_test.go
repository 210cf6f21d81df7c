package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/long"
)

// The engine decides by dense ids (algo.ByID: one Names table, AllowID);
// a library user calls fresh keyed limiters with names. The two must be the
// same limiter: on random scenarios every decision of the engine, whole, is
// the one a keyed limiter of the same algorithm gives the same request by
// name, and the figures that depend only on the decisions (allowed, denied,
// the most admitted to one client in one window, whose and when) are the
// ones worked out from the keyed decisions by the definition. The memory
// figures are the keyed limiters' too: they model a store keyed by name
// whichever way the limiter is asked.

// byIDAlgorithms are the algorithms a differential case picks from: every
// kind under the lesson's rules, every preset, and rule sets no preset has.
var byIDAlgorithms = func() []algo.Algorithm {
	out := []algo.Algorithm{}
	for _, k := range algo.All {
		out = append(out, algo.Algorithm{Kind: k})
	}
	for _, p := range algo.Presets {
		out = append(out, algo.Algorithm{Kind: p.Kind, Rules: p.Rules})
	}
	for _, r := range []algo.Rules{
		{CountRejected: true},
		{Compare: algo.CompareAtMost},
		{Compare: algo.ComparePlusOneAtMost, Rounding: algo.RoundHalfUp},
		{Rounding: algo.RoundFloor, CountRejected: true},
	} {
		for _, k := range algo.Lesson {
			out = append(out, algo.Algorithm{Kind: k, Rules: r})
		}
	}
	out = append(out, algo.Algorithm{Kind: algo.KindFixedWindow, Rules: algo.Rules{WindowStart: algo.WindowFirstRequest}})
	return out
}()

// byIDCase is one random scenario: a configuration, the algorithms that
// decide it side by side, and its arrivals in decision order.
type byIDCase struct {
	cfg      algo.Config
	algs     []algo.Algorithm
	arrivals []Arrival
	start    algo.Instant
}

// randomName is a client name of 1 to 24 bytes, sometimes not ASCII.
func randomName(r *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789-._"
	b := make([]byte, 1+r.IntN(24))
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	if r.IntN(8) == 0 {
		return string(b) + "é"
	}
	return string(b)
}

func drawByIDCase(r *rand.Rand, arrivals int) byIDCase {
	var w int64
	switch r.IntN(4) {
	case 0:
		w = 1 + r.Int64N(10) // 1–10 ms: estimates land on the limit exactly
	case 1:
		w = 1 + r.Int64N(1000)
	case 2:
		w = 60_000 // the lesson's minute
	default:
		w = 1 + r.Int64N(60_000)
	}
	cfg := algo.Config{
		Limit:    1 + r.Int64N(int64([]int{3, 10, 100}[r.IntN(3)])),
		Window:   time.Duration(w) * time.Millisecond,
		NoExpiry: r.IntN(3) == 0,
	}
	if r.IntN(3) == 0 {
		cfg.Offset = time.Duration(r.Int64N(w)) * time.Millisecond
	}
	if r.IntN(3) == 0 {
		cfg.Burst = 1 + r.Int64N(2*cfg.Limit)
	}
	algs := make([]algo.Algorithm, 1+r.IntN(6))
	for i := range algs {
		algs[i] = byIDAlgorithms[r.IntN(len(byIDAlgorithms))]
	}

	// Clients with random names, some of them numbered by the source
	// (Arrival.Number), as a scenario's and a log's sources number theirs.
	clients := 1 + r.IntN(50)
	if r.IntN(8) == 0 {
		// Many clients, few of them active in any one window: the limiters'
		// sweeps then walk their clients with state, not every id.
		clients = 100 + r.IntN(1500)
	}
	names := make([]string, clients)
	seen := map[string]bool{}
	for i := range names {
		for names[i] == "" || seen[names[i]] {
			names[i] = randomName(r)
		}
		seen[names[i]] = true
	}
	numbered := r.IntN(2) == 0
	hot := r.IntN(len(names)) // one client sends a share of everything
	start := algo.Clock(r.IntN(24), 0, 0, 0) - algo.Instant(r.Int64N(3*w))
	at := start + algo.Instant(r.Int64N(w))
	out := make([]Arrival, 0, arrivals)
	for len(out) < arrivals {
		switch k := r.IntN(20); {
		case k < 6: // the same instant
		case k < 11:
			at += algo.Instant(r.Int64N(3))
		case k < 14:
			at = algo.Instant(floorDivMs(int64(at)-int64(cfg.Offset/time.Millisecond), w)*w+w) + algo.Instant(cfg.Offset/time.Millisecond) - algo.Instant(r.Int64N(2)) // at or just before the next edge
		case k < 19:
			at += algo.Instant(r.Int64N(w + 1))
		default:
			at += algo.Instant(r.Int64N(4 * w)) // long enough for clients to go idle and be swept
		}
		c := r.IntN(len(names))
		if r.IntN(3) == 0 {
			c = hot
		}
		n := 1
		if r.IntN(10) == 0 {
			n = 1 + r.IntN(int(min(3*cfg.Limit, 300))) // a burst at one instant
		}
		for range min(n, arrivals-len(out)) {
			a := Arrival{At: at, Client: names[c]}
			if numbered {
				a.Number = int32(c) + 1
			}
			out = append(out, a)
		}
	}
	return byIDCase{cfg: cfg, algs: algs, arrivals: out, start: start}
}

func floorDivMs(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// keyedFigures are the figures worked out from keyed decisions by their
// definitions, beside the engine.
type keyedFigures struct {
	allowed, denied int64
	max             int64 // most admitted to one client in any half-open window-long interval
	maxClient       string
	first, last     algo.Instant
	admitted        map[string][]algo.Instant // each client's admitted instants, oldest first
	peak            algo.Memory
}

func (f *keyedFigures) add(a Arrival, d algo.Decision, w algo.Instant, m algo.Memory) {
	f.peak = algo.Memory{Clients: max(f.peak.Clients, m.Clients), Entries: max(f.peak.Entries, m.Entries), Bytes: max(f.peak.Bytes, m.Bytes)}
	if !d.Allowed {
		f.denied++
		return
	}
	f.allowed++
	q := append(f.admitted[a.Client], a.At)
	i := 0
	for q[i] <= a.At-w {
		i++
	}
	q = q[i:]
	f.admitted[a.Client] = q
	if n := int64(len(q)); n > f.max {
		f.max, f.maxClient, f.first, f.last = n, a.Client, q[0], a.At
	}
}

func checkByIDCase(t *testing.T, seed uint64, c byIDCase) {
	t.Helper()
	var byID, keyed []algo.Limiter
	for _, a := range c.algs {
		l, err := a.New(c.cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		byID = append(byID, l)
		k, err := algo.New(a.Kind, func() algo.Config { cfg := c.cfg; cfg.Rules = a.Rules; return cfg }())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		keyed = append(keyed, k)
	}
	e, err := New(NewSliceSource(c.arrivals), byID, Options{Start: c.start, ForwardOnly: true})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	for i, l := range byID {
		if _, ok := l.(algo.ByID); !ok || e.byID[i] == nil {
			t.Fatalf("seed %d: %v does not decide by id in the engine", seed, c.algs[i])
		}
	}
	w := algo.Instant(c.cfg.Window / time.Millisecond)
	figs := make([]keyedFigures, len(keyed))
	for i := range figs {
		figs[i].admitted = map[string][]algo.Instant{}
	}
	describe := func() string {
		return fmt.Sprintf("seed %d (%+v, %v, %d arrivals)", seed, c.cfg, c.algs, len(c.arrivals))
	}
	for n := 0; ; n++ {
		r, ok := e.Step()
		if !ok {
			if n != len(c.arrivals) {
				t.Fatalf("%s: the engine ended after %d arrivals", describe(), n)
			}
			break
		}
		a := c.arrivals[n]
		for i, k := range keyed {
			want := k.Allow(a.At, a.Client)
			if got := r.Decisions[i]; got != want {
				t.Fatalf("%s: arrival %d (%v at %v), %v:\n by id %+v\n keyed %+v", describe(), n, a.Client, a.At, c.algs[i], got, want)
			}
			if got, want := e.Limiters()[i].Memory(), k.Memory(); got != want {
				t.Fatalf("%s: arrival %d, %v: memory by id %+v, keyed %+v", describe(), n, c.algs[i], got, want)
			}
			figs[i].add(a, want, w, k.Memory())
		}
	}
	stats := e.Stats()
	for i, s := range stats {
		f, k := &figs[i], keyed[i]
		got := [6]any{s.Allowed, s.Denied, s.MaxInWindow, s.MaxInWindowClient, s.MaxInWindowFirst, s.MaxInWindowLast}
		want := [6]any{f.allowed, f.denied, f.max, f.maxClient, f.first, f.last}
		if got != want {
			t.Errorf("%s: %v: allowed, denied, most in one window (whose, from, to) = %v, want %v", describe(), c.algs[i], got, want)
		}
		if s.PeakMemory != f.peak {
			t.Errorf("%s: %v: peak memory %+v, keyed %+v", describe(), c.algs[i], s.PeakMemory, f.peak)
		}
		if want := k.MemoryAt(e.Now()); s.Memory != want {
			t.Errorf("%s: %v: memory at the end %+v, keyed %+v", describe(), c.algs[i], s.Memory, want)
		}
	}
}

// TestByIDAgainstKeyed holds the engine, deciding by ids, to keyed
// limiters told only names, on random scenarios: limits, windows of 1 ms to
// a minute with and without offsets, expiry on and off, 1 to 50 clients
// with random names (sometimes hundreds), bursts at one instant, steps onto window edges and
// gaps long enough for clients to be swept.
func TestByIDAgainstKeyed(t *testing.T) {
	cases := long.N(300, 5000)
	for seed := range uint64(cases) {
		r := rand.New(rand.NewPCG(seed, 15))
		arrivals := 1 + r.IntN(400)
		if seed%50 == 0 {
			arrivals = long.N(3000, 30000)
		}
		checkByIDCase(t, seed, drawByIDCase(r, arrivals))
		if t.Failed() {
			return
		}
	}
}
