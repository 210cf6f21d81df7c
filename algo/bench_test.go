package algo

import (
	"fmt"
	"testing"
	"time"
)

// workload feeds a limiter requests round-robin over clients, moving the
// clock one millisecond every perTick requests so windows keep rolling over.
type workload struct {
	l       Limiter
	admit   func(Instant, string) bool // when set, the allow-only path decides instead of Allow
	clients []string
	perTick int
	t       Instant
	i       int
	allowed int
}

func (w *workload) next() {
	client := w.clients[w.i%len(w.clients)]
	if w.admit != nil && w.admit(w.t, client) || w.admit == nil && w.l.Allow(w.t, client).Allowed {
		w.allowed++
	}
	w.i++
	if w.i%w.perTick == 0 {
		w.t++
	}
}

// warm runs n whole windows so maps, slices and logs reach their steady size.
func (w *workload) warm(windows int) {
	ms := int(w.l.Config().Window / time.Millisecond)
	for range windows * ms * w.perTick {
		w.next()
	}
	w.allowed = 0
}

type workloadSpec struct {
	name    string
	cfg     Config
	clients int
	perTick int
}

var workloads = []workloadSpec{
	// One client at 1000 requests per 1s window, limit 100.
	{"hot-client", Config{Limit: 100, Window: time.Second}, 1, 1},
	// 10,000 clients, each asking 10 times per 1s window, limit 5.
	{"10k-clients", Config{Limit: 5, Window: time.Second}, 10_000, 100},
}

func newWorkload(tb testing.TB, k Kind, s workloadSpec) *workload {
	clients := make([]string, s.clients)
	for i := range clients {
		clients[i] = fmt.Sprintf("client-%05d", i)
	}
	if s.clients == 1 {
		clients[0] = "hot"
	}
	return &workload{l: mustNew(tb, k, s.cfg), clients: clients, perTick: s.perTick, t: Clock(12, 0, 0, 0)}
}

func BenchmarkAllow(b *testing.B) { benchWorkloads(b, false) }

// benchWorkloads runs every kind through every workload, through Allow or,
// with admit, the allow-only path.
func benchWorkloads(b *testing.B, admit bool) {
	for _, k := range All {
		b.Run(k.String(), func(b *testing.B) {
			for _, s := range workloads {
				b.Run(s.name, func(b *testing.B) {
					w := newWorkload(b, k, s)
					if admit {
						w.admit = admitOf(w.l)
					}
					w.warm(3)
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						w.next()
					}
					b.ReportMetric(float64(w.allowed)/float64(w.i-w.startAfterWarm()), "allowed/op")
				})
			}
		})
	}
}

// startAfterWarm is the request count the warm-up used.
func (w *workload) startAfterWarm() int {
	return 3 * int(w.l.Config().Window/time.Millisecond) * w.perTick
}

// Once warm, deciding a request allocates nothing, for a hot client and for
// many clients, with windows rolling over and idle-client sweeps running.
func TestAllowDoesNotAllocate(t *testing.T) {
	for _, k := range All {
		for _, s := range workloads {
			w := newWorkload(t, k, s)
			w.warm(3)
			// 2 windows' worth of requests, in runs of 1000.
			runs := 2 * int(s.cfg.Window/time.Millisecond) * s.perTick / 1000
			allocs := testing.AllocsPerRun(runs, func() {
				for range 1000 {
					w.next()
				}
			})
			if allocs != 0 {
				t.Errorf("%v/%s: %v allocations per 1000 requests, want 0", k, s.name, allocs)
			}
			if w.allowed == 0 || w.allowed == w.i-w.startAfterWarm() {
				t.Errorf("%v/%s: %d of %d allowed; the workload should meet the limit", k, s.name,
					w.allowed, w.i-w.startAfterWarm())
			}
		}
	}
}

// The sliding counter under each preset: rounding and 128-bit comparisons
// cost a few nanoseconds and allocate nothing.
func BenchmarkAllowPresets(b *testing.B) {
	for _, p := range Presets {
		b.Run(p.Name, func(b *testing.B) {
			for _, s := range workloads {
				b.Run(s.name, func(b *testing.B) {
					s.cfg.Rules = p.Rules
					w := newWorkload(b, p.Kind, s)
					w.warm(3)
					b.ReportAllocs()
					b.ResetTimer()
					for b.Loop() {
						w.next()
					}
				})
			}
		})
	}
}

func TestPresetsDoNotAllocate(t *testing.T) {
	for _, k := range Lesson {
		for _, p := range Presets {
			s := workloads[1]
			s.cfg.Rules = p.Rules
			w := newWorkload(t, k, s)
			w.warm(2)
			if allocs := testing.AllocsPerRun(100, func() {
				for range 1000 {
					w.next()
				}
			}); allocs != 0 {
				t.Errorf("%v/%s: %v allocations per 1000 requests", k, p.Name, allocs)
			}
		}
	}
}

// BenchmarkAdmit is BenchmarkAllow through the allow-only path, called on
// each limiter's own type (no interface, no Decision): what a server that
// only enforces the limit calls.
func BenchmarkAdmit(b *testing.B) { benchWorkloads(b, true) }

// admitOf is l's Admit, bound to its concrete type.
func admitOf(l Limiter) func(Instant, string) bool {
	switch l := l.(type) {
	case *FixedWindow:
		return l.Admit
	case *SlidingLog:
		return l.Admit
	case *SlidingCounter:
		return l.Admit
	case *TokenBucket:
		return l.Admit
	case *SegmentedWindow:
		return l.Admit
	}
	panic(fmt.Sprintf("no Admit for %T", l))
}
