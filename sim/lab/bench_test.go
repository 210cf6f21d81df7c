package lab

import (
	"context"
	"sync/atomic"
	"testing"
)

// BenchmarkLab is `windowlab lab` with its defaults (270,000 sources, 10
// million requests) on all cores, reported per request; the 400-million
// target is measured on the binary (BENCHMARKS.md). Profile with
// go test -run '^$' -bench Lab -cpuprofile cpu.out ./sim/lab/
func BenchmarkLab(b *testing.B) {
	o := DefaultOptions
	var r Result
	for b.Loop() {
		var err error
		if r, err = RunToEnd(context.Background(), o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*r.Requests), "ns/request")
}

// BenchmarkSource is one core deciding one busy source: generation and the
// three decisions, without the worker pool.
func BenchmarkSource(b *testing.B) {
	o := DefaultOptions
	o.Sources, o.Requests = 1, 1
	p, _ := newPlan(o.Model, o.Seed, 1, 1, o.Limit, o.Window.Milliseconds(), new(atomic.Bool))
	p.counts[0] = int64(b.N)
	p.duration = int64(b.N) * o.Window.Milliseconds() / (2 * o.Limit) // twice the limit
	a := newArrivals()
	j := newJudge(o.config())
	b.ReportAllocs()
	a.reset(&p, 0, int64(b.N), new(atomic.Bool))
	j.begin()
	b.ResetTimer()
	for range b.N {
		j.decide(a.next())
	}
	b.StopTimer()
	var t Totals
	j.end(&t)
}
