package sim

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/long"
)

// genSource is traffic made on the fly, so a test measures the engine's
// memory, not the source's: n arrivals over span ms from clients clients
// (every gap-th millisecond when clients is 1), or a burst at one instant.
type genSource struct {
	names []string
	n, i  int64
	span  int64
	burst bool
	rng   *rand.Rand
	seed  uint64
	at    algo.Instant
}

func newGen(clients int, n, span int64, burst bool) *genSource {
	g := &genSource{n: n, span: span, burst: burst, seed: 5}
	for i := range clients {
		g.names = append(g.names, fmt.Sprintf("client-%07d", i))
	}
	g.rng = rand.New(rand.NewPCG(g.seed, 1))
	return g
}

func (g *genSource) Next() (Arrival, bool) {
	if g.i >= g.n {
		return Arrival{}, false
	}
	if !g.burst {
		g.at = algo.Instant(g.i * g.span / g.n)
	}
	g.i++
	return Arrival{At: g.at, Client: g.names[g.rng.IntN(len(g.names))]}, true
}

func (g *genSource) Clone() Source {
	c := *g
	c.rng = rand.New(rand.NewPCG(g.seed, 1))
	for range g.i {
		c.rng.IntN(len(g.names))
	}
	return &c
}

func (g *genSource) Len() int64 { return g.n }

func heapNow() int64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// The estimate bounds what an engine really holds, measured on the heap,
// and is not absurdly above it: on BENCHMARKS.md's cases at the limits scaled down (a
// million clients over a day inside one window, all eight limiters, a
// stream a millisecond apart, a burst at one instant, a short window), for
// a report's replay and for the view's.
func TestEstimateBoundsTheHeap(t *testing.T) {
	scale := int64(long.N(200, 20))
	var all []algo.Algorithm
	for _, k := range algo.All {
		all = append(all, algo.Algorithm{Kind: k})
	}
	for _, p := range algo.Presets {
		all = append(all, algo.Algorithm{Kind: p.Kind, Rules: p.Rules})
	}
	lesson := all[:3]
	day := int64(86_400_000)
	for _, c := range []struct {
		name    string
		algs    []algo.Algorithm
		clients int
		n, span int64
		window  time.Duration
		burst   bool
	}{
		{"random-3", lesson, int(1_000_000 / scale), 50_000_000 / scale, day, 168 * time.Hour, false},
		{"random-all", all, int(1_000_000 / scale), 50_000_000 / scale, day, 168 * time.Hour, false},
		{"random-1m", lesson, int(1_000_000 / scale), 50_000_000 / scale, day, time.Minute, false},
		{"stream-all", all, 1, 50_000_000 / scale, 50_000_000 / scale, 168 * time.Hour, false},
		{"burst-3", lesson, 1, 50_000_000 / scale, 1, 168 * time.Hour, true},
		{"random-fixed", all[:1], int(1_000_000 / scale), 50_000_000 / scale, day, 168 * time.Hour, false},
		{"random-counter", all[2:3], int(1_000_000 / scale), 50_000_000 / scale, day, time.Minute, false},
	} {
		for _, opts := range []Options{{ForwardOnly: true}, {History: true}} {
			var ls []algo.Limiter
			for _, a := range c.algs {
				l, _ := algo.New(a.Kind, algo.Config{Limit: 1_000_000_000, Window: c.window, Rules: a.Rules})
				ls = append(ls, l)
			}
			w := c.window.Milliseconds()
			ld := Load{Clients: int64(c.clients), Runs: c.n, Span: c.span, KeyBytes: 14,
				RunsInWindow: min(c.n, c.n*w/c.span+1)}
			if c.burst {
				ld.Runs, ld.RunsInWindow = 1, 1
			}
			estimate := EstimateBytes(ls, ld, opts)
			src := newGen(c.clients, c.n, c.span, c.burst)
			before := heapNow()
			e, _ := New(src, ls, opts)
			e.RunToEnd()
			e.SeekIndex(c.n / 2) // the view steps back: checkpoints restored
			e.RunToEnd()
			heap := heapNow() - before
			runtime.KeepAlive(e)
			t.Logf("%s %+v: heap %d KiB, estimate %d KiB (%.2f×)", c.name, opts, heap>>10, estimate>>10, float64(estimate)/float64(heap))
			if heap > estimate || estimate > 4*heap+1<<20 {
				t.Errorf("%s %+v: heap %d B, estimate %d B: want the heap at most the estimate, and the estimate at most 4× it", c.name, opts, heap, estimate)
			}
		}
	}
}
