package loggen

import (
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// BenchmarkDecideBare is a yardstick for the deciding of `windowlab replay
// --limit 60 --window 1m` (issue 35): the engine as the text report runs
// it (sim.Options.FiguresOnly, the three limiters in one algo.Trio) beside
// the least any decider could do, "bare": the three rules on plain
// integers and slices of instants, one record a client, the clients
// numbered as the log numbers them, with the allowed counts and each
// limiter's most in one window and nothing else (no memory figures, no
// expiry, no interrupt). Both read the same requests, already numbered in
// memory, and the bare one checks its figures against the engine's. What
// lies between the two is the price of the engine's figures and its
// generality.
//
//	go test ./internal/loggen -run '^$' -bench DecideBare -benchtime 6x
func BenchmarkDecideBare(b *testing.B) {
	l := decideData(b)
	cfg := algo.Config{Limit: 60, Window: time.Minute}
	var algos []algo.Algorithm
	for _, k := range algo.Lesson {
		algos = append(algos, algo.Algorithm{Kind: k})
	}
	var ats []int64
	var cs []int32
	src := l.Source().(sim.Named)
	clients := int32(0)
	for a, ok := src.NextNumbered(); ok; a, ok = src.NextNumbered() {
		ats, cs = append(ats, int64(a.At)), append(cs, a.Number-1)
		clients = max(clients, a.Number)
	}
	var want []sim.Stats
	b.Run("engine-figures-only", func(b *testing.B) {
		cpu := cpuTime()
		for range b.N {
			e, err := sim.Setup{Algorithms: algos, Config: cfg}.Engine(l.Source(), sim.Options{ForwardOnly: true, FiguresOnly: true}, nil)
			if err != nil {
				b.Fatal(err)
			}
			e.RunToEnd()
			want = e.Stats()
		}
		perRequest(b, l, cpu)
	})
	b.Run("bare", func(b *testing.B) {
		if want == nil {
			b.Skip("needs engine-figures-only's figures: run both")
		}
		cpu := cpuTime()
		var d *bare
		for range b.N {
			d = &bare{limit: cfg.Limit, w: cfg.Window.Milliseconds(), recs: make([]bareRecord, clients)}
			for i, at := range ats {
				d.decide(at, cs[i])
			}
		}
		perRequest(b, l, cpu)
		for i, s := range want { // algo.Lesson's order, as the bare decider's
			if d.allowed[i] != s.Allowed || d.most[i] != s.MaxInWindow {
				b.Errorf("%v: the bare decider allowed %d, at most %d in one window; the engine %d and %d", s.Kind, d.allowed[i], d.most[i], s.Allowed, s.MaxInWindow)
			}
		}
	})
}

// bare decides the lesson's three limiters of one setting (limit, w ms)
// as plainly as it can: BenchmarkDecideBare's yardstick.
type bare struct {
	limit, w int64
	recs     []bareRecord
	allowed  [3]int64 // algo.Lesson's order: fixed window, sliding log, sliding counter
	most     [3]int64
}

// bareRecord is a client's state in the three limiters, and what the
// fixed window and the counter admitted in the last window.
type bareRecord struct {
	start, count            int64 // the fixed window's
	idx, current, previous  int64 // the counter's
	log, fixedIn, counterIn instants
}

// instants are instants in order, the oldest at head.
type instants struct {
	at   []int64
	head int
}

// keepAfter drops the instants at or before edge, pushes t and returns
// how many it holds.
func (q *instants) keepAfter(edge, t int64) int64 {
	q.dropThrough(edge)
	q.at = append(q.at, t)
	return int64(len(q.at) - q.head)
}

func (q *instants) dropThrough(edge int64) {
	for q.head < len(q.at) && q.at[q.head] <= edge {
		q.head++
	}
	if q.head == len(q.at) {
		q.at, q.head = q.at[:0], 0
	} else if q.head > 32 && q.head > len(q.at)/2 {
		q.at, q.head = q.at[:copy(q.at, q.at[q.head:])], 0
	}
}

func (d *bare) decide(at int64, c int32) {
	r := &d.recs[c]
	edge := at - d.w
	if start := at - at%d.w; r.start != start {
		r.start, r.count = start, 0
	}
	if r.count < d.limit {
		r.count++
		d.allowed[0]++
		d.most[0] = max(d.most[0], r.fixedIn.keepAfter(edge, at))
	}
	r.log.dropThrough(edge)
	if n := int64(len(r.log.at) - r.log.head); n < d.limit {
		r.log.at = append(r.log.at, at)
		d.allowed[1]++
		d.most[1] = max(d.most[1], n+1)
	}
	idx := at / d.w
	switch idx {
	case r.idx:
	case r.idx + 1:
		r.previous, r.current = r.current, 0
	default:
		r.previous, r.current = 0, 0
	}
	r.idx = idx
	if r.current*d.w+r.previous*(d.w-(at-idx*d.w)) < d.limit*d.w {
		r.current++
		d.allowed[2]++
		d.most[2] = max(d.most[2], r.counterIn.keepAfter(edge, at))
	}
}
