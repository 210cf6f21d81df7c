package algo

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"windowlab/internal/long"
)

// dense is what the three dense limiters have in common, for the tests.
type dense interface {
	Allow(t Instant, client int) Verdict
	AllowEach(ts []Instant, client int, out []Verdict)
	Forget(client int)
}

func newDense(k Kind, c Config, clients int) dense {
	switch k {
	case KindFixedWindow:
		return NewDenseFixedWindow(c, clients)
	case KindSlidingLog:
		return NewDenseSlidingLog(c, clients)
	case KindSlidingCounter:
		return NewDenseSlidingCounter(c, clients)
	}
	panic(fmt.Sprintf("no dense %v", k))
}

// The dense limiters decide exactly as the keyed ones, with the same
// evidence, on random streams under the lesson's rules and every preset's,
// with a client forgotten now and then (a keyed client that has left
// everything behind) and expiry on and off; a second time with the dense
// log's rings spilling into queues at two runs.
func TestDenseDecidesAsKeyed(t *testing.T) { ringsThenSpills(t, 2, denseDecidesAsKeyed) }

func denseDecidesAsKeyed(t *testing.T) {
	rules := []Rules{{}}
	for _, p := range Presets {
		rules = append(rules, p.Rules)
	}
	r := rand.New(rand.NewPCG(5, 7))
	for i := range 1500 {
		s := randomStream(r, false)
		s.cfg.Rules = rules[i%len(rules)]
		s.cfg.NoExpiry = i%7 == 0
		for _, k := range Lesson {
			keyed := mustNew(t, k, s.cfg)
			d := newDense(k, s.cfg, len(clientNames))
			for n, e := range s.events {
				if e.op != opAllow {
					continue
				}
				id := clientID(e.client)
				want := keyed.Allow(e.at, e.client)
				got := d.Allow(e.at, id)
				if got.Allowed != want.Allowed || got.Count != want.Count || got.Previous != want.Previous ||
					(k == KindSlidingCounter && got.Elapsed != int64(want.Elapsed/time.Millisecond)) {
					t.Fatalf("stream %d, %v %v, event %d %v: dense %+v, keyed %s", i, k, s.cfg.Rules, n, e, got, want.Explain())
				}
			}
		}
	}
}

// AllowEach decides a run of one client's requests as Allow one after
// another does, whatever the run's length, under every rule set; a second
// time with rings that spill into queues at 64 runs, each at its own
// request.
func TestDenseAllowEachIsAllow(t *testing.T) { ringsThenSpills(t, 64, denseAllowEachIsAllow) }

func denseAllowEachIsAllow(t *testing.T) {
	rules := []Rules{{}}
	for _, p := range Presets {
		rules = append(rules, p.Rules)
	}
	r := rand.New(rand.NewPCG(11, 13))
	for i := range 300 {
		c := Config{Limit: 1 + r.Int64N(20), Window: time.Duration(1+r.Int64N(5000)) * time.Millisecond, Rules: rules[i%len(rules)]}
		ts := make([]Instant, 1+r.IntN(2000))
		at := Instant(r.Int64N(100_000) - 50_000)
		for j := range ts {
			if r.IntN(3) > 0 {
				at += Instant(r.Int64N(int64(c.Window/time.Millisecond)/4 + 1))
			}
			ts[j] = at
		}
		for _, k := range Lesson {
			one, each := newDense(k, c, 2), newDense(k, c, 2)
			out := make([]Verdict, len(ts))
			for rest := ts; len(rest) > 0; {
				n := min(len(rest), 1+r.IntN(200))
				each.AllowEach(rest[:n], 1, out[len(ts)-len(rest):])
				rest = rest[n:]
			}
			for j, at := range ts {
				if want := one.Allow(at, 1); out[j] != want {
					t.Fatalf("case %d, %v %v, request %d at %v: AllowEach %+v, Allow %+v", i, k, c.Rules, j, at, out[j], want)
				}
			}
		}
	}
}

func clientID(name string) int {
	for i, n := range clientNames {
		if n == name {
			return i
		}
	}
	panic(name)
}

// Forget leaves a client as if it had never sent a request.
func TestDenseForget(t *testing.T) {
	c := Config{Limit: 2, Window: time.Second}
	for _, k := range Lesson {
		d := newDense(k, c, 1)
		for range 3 {
			d.Allow(500, 0)
		}
		d.Forget(0)
		if v := d.Allow(500, 0); !v.Allowed || v.Count != 0 || v.Previous != 0 {
			t.Errorf("%v: after Forget, %+v; want a fresh client's first request", k, v)
		}
	}
}

// denseWorkload is workload with client ids instead of names.
type denseWorkload struct {
	l       dense
	clients int
	perTick int
	t       Instant
	i       int
	allowed int
}

func (w *denseWorkload) next() {
	if w.l.Allow(w.t, w.i%w.clients).Allowed {
		w.allowed++
	}
	w.i++
	if w.i%w.perTick == 0 {
		w.t++
	}
}

func newDenseWorkload(k Kind, s workloadSpec) *denseWorkload {
	w := &denseWorkload{l: newDense(k, s.cfg, s.clients), clients: s.clients, perTick: s.perTick, t: Clock(12, 0, 0, 0)}
	for range 3 * int(s.cfg.Window/time.Millisecond) * s.perTick {
		w.next()
	}
	w.i, w.allowed = 0, 0
	return w
}

// BenchmarkAllowDense is BenchmarkAllow with dense ids, as the lab decides.
// The concrete types are called directly, as the lab calls them.
func BenchmarkAllowDense(b *testing.B) {
	for _, k := range Lesson {
		b.Run(k.String(), func(b *testing.B) {
			for _, s := range workloads {
				b.Run(s.name, func(b *testing.B) {
					w := newDenseWorkload(k, s)
					b.ReportAllocs()
					b.ResetTimer()
					switch l := w.l.(type) {
					case *DenseFixedWindow:
						for b.Loop() {
							w.allowed += b2i(l.Allow(w.t, w.i%w.clients).Allowed)
							w.tick()
						}
					case *DenseSlidingLog:
						for b.Loop() {
							w.allowed += b2i(l.Allow(w.t, w.i%w.clients).Allowed)
							w.tick()
						}
					case *DenseSlidingCounter:
						for b.Loop() {
							w.allowed += b2i(l.Allow(w.t, w.i%w.clients).Allowed)
							w.tick()
						}
					}
					b.ReportMetric(float64(w.allowed)/float64(w.i), "allowed/op")
				})
			}
		})
	}
}

func (w *denseWorkload) tick() {
	w.i++
	if w.i%w.perTick == 0 {
		w.t++
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDenseDoesNotAllocate(t *testing.T) {
	for _, k := range Lesson {
		for _, s := range workloads {
			w := newDenseWorkload(k, s)
			if allocs := testing.AllocsPerRun(100, func() {
				for range 1000 {
					w.next()
				}
			}); allocs != 0 {
				t.Errorf("%v/%s: %v allocations per 1000 requests, want 0", k, s.name, allocs)
			}
			if w.allowed == 0 || w.allowed == w.i {
				t.Errorf("%v/%s: %d of %d allowed; the workload should meet the limit", k, s.name, w.allowed, w.i)
			}
		}
	}
}

// idleClientBytes is the heap a limiter holds per client after one request
// from each of clients clients, measured with the runtime's own accounting.
// Client names are made beforehand and are not counted.
func idleClientBytes(k Kind, isDense bool, clients int) float64 {
	var names []string
	if !isDense {
		names = make([]string, clients)
		for i := range names {
			names[i] = fmt.Sprintf("client-%07d", i)
		}
	}
	c := Config{Limit: 100, Window: time.Hour}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var keep any
	if isDense {
		d := newDense(k, c, clients)
		for i := range clients {
			d.Allow(Instant(i/1000), i)
		}
		keep = d
	} else {
		l, _ := New(k, c)
		for i, name := range names {
			l.Allow(Instant(i/1000), name)
		}
		keep = l
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	runtime.KeepAlive(names)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(clients)
}

// The targets for a million idle clients after one request each:
// at most 40 bytes a client for the fixed window and the sliding counter,
// and for the log at most 48 a client plus 8 a stored timestamp (one here),
// the dense limiters; and at most 40 for every keyed limiter with string
// names, the names' bytes it keeps included (the callers' own strings are
// not: they are made before the heap is read).
func TestIdleClientMemory(t *testing.T) {
	clients := long.N(100_000, 1_000_000) // the full run allocates a few hundred MB
	target := map[Kind]float64{KindFixedWindow: 40, KindSlidingCounter: 40, KindSlidingLog: 48 + 8}
	for _, k := range All {
		keyed := idleClientBytes(k, false, clients)
		if k == KindSegmentedWindow {
			// A ring of S counters a client whatever its traffic (S = 4
			// here), beside a record 8 bytes longer than the fixed
			// window's (the ring's head and total, 8 bytes each, and its
			// number): held to the 40 bytes, those 8 and the ring, and
			// under its model's map of rings.
			model := float64(NewSegmentedWindow(Config{Limit: 1, Window: time.Hour}).clientBytes(len("client-0000000")))
			want := float64(40 + 8 + 4*segmentBytes)
			t.Logf("%v: keyed %.1f B/client (target %.0f, model %.0f)", k, keyed, want, model)
			if keyed > want || keyed > model {
				t.Errorf("%v: keyed %.1f B/client, want at most %.0f", k, keyed, want)
			}
			continue
		}
		t.Logf("%v: keyed %.1f B/client (target 40)", k, keyed)
		if keyed > 40 {
			t.Errorf("%v: keyed %.1f B/client, want at most 40", k, keyed)
		}
		if target[k] == 0 {
			continue
		}
		dense := idleClientBytes(k, true, clients)
		t.Logf("%v: dense %.1f B/client (target %.0f)", k, dense, target[k])
		if dense > target[k] {
			t.Errorf("%v: dense %.1f B/client, want at most %.0f", k, dense, target[k])
		}
	}
}

// BenchmarkIdleClientMemory reports the bytes per idle client, keyed and
// dense, for a million clients after one request each (B/client; the time
// per op is the million requests and is not the point).
func BenchmarkIdleClientMemory(b *testing.B) {
	for _, k := range All {
		for _, isDense := range []bool{false, true} {
			if isDense && !slices.Contains(Lesson, k) {
				continue // the lab numbers only the lesson's three
			}
			name := "keyed"
			if isDense {
				name = "dense"
			}
			b.Run(k.String()+"/"+name, func(b *testing.B) {
				var per float64
				for b.Loop() {
					per = idleClientBytes(k, isDense, 1_000_000)
				}
				b.ReportMetric(per, "B/client")
			})
		}
	}
}
