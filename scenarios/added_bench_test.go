package scenarios

import (
	"testing"

	"windowlab/sim"
)

// BenchmarkAddAtTheClock is what a burst made at the clock costs at the
// end of a long scenario: inject is the view's way (sim.Engine.Inject, then
// one decision per limiter for each request added); rebuild is what it
// avoids, the scenario with the burst written in, replayed to the same
// place. BENCHMARKS.md records the ratio.
func BenchmarkAddAtTheClock(b *testing.B) {
	s, err := Parse("long.yaml", []byte(`limit: 100
window: 1m
traffic:
  - {from: "12:00:00", to: "13:00:00", rate: 100/s, clients: 1000, seed: 7}
`))
	if err != nil {
		b.Fatal(err)
	}
	base, err := s.Engine(sim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	base.RunToEnd()
	now, n := base.Now(), base.Processed()
	burst := Traffic{Shape: Burst, At: now, Count: 10, Client: "student"}
	b.Logf("%d requests before the burst", n)
	b.Run("inject", func(b *testing.B) {
		e, err := s.Engine(sim.Options{})
		if err != nil {
			b.Fatal(err)
		}
		e.RunToEnd()
		b.ResetTimer()
		for b.Loop() {
			if err := e.Inject(burst.Runs(now, now+1)); err != nil {
				b.Fatal(err)
			}
			e.RunToEnd()
			b.StopTimer()
			if err := e.Uninject(1); err != nil { // back to where it stood, outside the timing
				b.Fatal(err)
			}
			b.StartTimer()
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			w, err := s.WithTraffic([]Traffic{burst})
			if err != nil {
				b.Fatal(err)
			}
			e, err := w.Engine(sim.Options{})
			if err != nil {
				b.Fatal(err)
			}
			e.SeekIndex(n + 10)
		}
	})
}
