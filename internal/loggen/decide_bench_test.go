package loggen

import (
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/sim"
)

var (
	decideOnce sync.Once
	decideLog  *accesslog.Log
	decideErr  error
)

// decideData is the benchmark's log in small (1M lines, 100k clients, 5
// heavy), read once into memory: what BenchmarkDecide decides again and
// again.
func decideData(b *testing.B) *accesslog.Log {
	decideOnce.Do(func() {
		var buf bytes.Buffer
		if decideErr = Write(&buf, Options{Seed: 1, Lines: 1_000_000, Clients: 100_000, Heavy: 5, Format: "combined"}); decideErr != nil {
			return
		}
		decideLog, decideErr = accesslog.Read(&buf, accesslog.Options{Name: "gen", Reorder: accesslog.DefaultReorder})
	})
	if decideErr != nil {
		b.Fatal(decideErr)
	}
	return decideLog
}

// BenchmarkDecide is the deciding alone of `windowlab replay --limit 60
// --window 1m` on a log already in memory: the source and the engine with
// each default limiter, and the three together (one setting), per request.
// "source" reads the requests and decides nothing.
func BenchmarkDecide(b *testing.B) {
	l := decideData(b)
	cfg := algo.Config{Limit: 60, Window: time.Minute}
	b.Run("source", func(b *testing.B) {
		cpu := cpuTime()
		for range b.N {
			// As the engine reads it: without names where it can.
			src := l.Source()
			next := src.Next
			if n, ok := src.(interface{ NextNumbered() (sim.Arrival, bool) }); ok {
				next = n.NextNumbered
			}
			for _, ok := next(); ok; _, ok = next() {
			}
		}
		perRequest(b, l, cpu)
	})
	for _, set := range []string{"fixed-window", "sliding-log", "sliding-counter", "fixed-window,sliding-log,sliding-counter"} {
		name := set
		if len(name) > 20 {
			name = "setting"
		}
		b.Run(name, func(b *testing.B) {
			var algos []algo.Algorithm
			for _, a := range strings.Split(set, ",") {
				al, err := algo.ParseAlgorithm(a)
				if err != nil {
					b.Fatal(err)
				}
				algos = append(algos, al)
			}
			decideEach(b, l, func() (*sim.Engine, error) {
				return sim.Setup{Algorithms: algos, Config: cfg}.Engine(l.Source(), sim.Options{ForwardOnly: true}, nil)
			})
		})
	}
}

// BenchmarkDecideFigures is the deciding alone as a report and a sweep's
// pass decide (sim.Options.FiguresOnly: by algo.Trio): one setting, and
// passes of two and four settings that differ in their limit only
// (Options.AnyLimits), per request of the log whatever the settings.
func BenchmarkDecideFigures(b *testing.B) {
	l := decideData(b)
	three := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}}
	for _, c := range []struct {
		name   string
		limits []int64
		window time.Duration
	}{
		{"setting", []int64{60}, time.Minute},
		{"pass-of-2", []int64{60, 120}, time.Minute},
		{"pass-of-4", []int64{30, 60, 120, 240}, time.Minute},
		// An hour: the heavy clients pass both limits, their records split.
		{"pass-of-2-1h", []int64{60, 120}, time.Hour},
	} {
		limits := c.limits
		b.Run(c.name, func(b *testing.B) {
			decideEach(b, l, func() (*sim.Engine, error) {
				var ls []algo.Limiter
				for _, n := range limits {
					s, err := sim.Setup{Algorithms: three, Config: algo.Config{Limit: n, Window: c.window}}.Limiters()
					if err != nil {
						return nil, err
					}
					ls = append(ls, s...)
				}
				return sim.New(l.Source(), ls, sim.Options{ForwardOnly: true, FiguresOnly: true, AnyLimits: true})
			})
		})
	}
}

// decideEach runs a new engine (engine) over the whole of l b.N times and
// reports the time a request (perRequest).
func decideEach(b *testing.B, l *accesslog.Log, engine func() (*sim.Engine, error)) {
	cpu := cpuTime()
	for range b.N {
		e, err := engine()
		if err != nil {
			b.Fatal(err)
		}
		e.RunToEnd()
		if e.Processed() != l.Requests {
			b.Fatalf("decided %d of %d", e.Processed(), l.Requests)
		}
	}
	perRequest(b, l, cpu)
}

// perRequest reports the time and the CPU time (the process's, since cpu:
// on a shared machine the steadier of the two) a request.
func perRequest(b *testing.B, l *accesslog.Log, cpu time.Duration) {
	n := float64(int64(b.N) * l.Requests)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/request")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/n, "cpu-ns/request")
}

// cpuTime is the CPU the process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
