package accesslog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// synthetic writes n Combined lines from clients addresses, a few a
// second over a day from 2026-11-30, in order: a web server's log.
func synthetic(n, clients int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	t := time.Date(2026, 11, 30, 6, 25, 0, 0, time.UTC)
	paths := []string{"/", "/api/items", "/api/items?page=2", "/login", "/static/app.js", "/health"}
	for i := 0; i < n; i++ {
		t = t.Add(time.Duration(rng.IntN(20)) * time.Millisecond)
		c := rng.IntN(clients)
		fmt.Fprintf(&b, "10.%d.%d.%d - - [%s] \"GET %s HTTP/1.1\" 200 %d \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"\n",
			c>>16&255, c>>8&255, c&255, t.Format("02/Jan/2006:15:04:05 -0700"), paths[rng.IntN(len(paths))], 200+rng.IntN(5000))
	}
	return b.Bytes()
}

var (
	benchOnce sync.Once
	benchLog  []byte
)

func benchData() []byte {
	benchOnce.Do(func() { benchLog = synthetic(1_000_000, 100_000) })
	return benchLog
}

// Reading alone: parse, key, order, store.
func BenchmarkRead(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if _, err := Read(bytes.NewReader(data), Options{Reorder: DefaultReorder}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "lines/s")
}

// Reading and deciding: the three limiters, 100 a minute, every request.
func BenchmarkReadAndDecide(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		l, err := Read(bytes.NewReader(data), Options{Reorder: DefaultReorder})
		if err != nil {
			b.Fatal(err)
		}
		cfg := algo.Config{Limit: 100, Window: time.Minute}
		var ls []algo.Limiter
		for _, k := range []algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog, algo.KindSlidingCounter} {
			lim, _ := algo.New(k, cfg)
			ls = append(ls, lim)
		}
		e, err := sim.New(l.Source(), ls, sim.Options{ForwardOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		e.RunToEnd()
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "lines/s")
}

// Reading and deciding at once, as windowlab replay does: the engine
// decides from a Tail while Read goes on, one core each.
func BenchmarkReadWhileDeciding(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		tail := NewTail()
		cfg := algo.Config{Limit: 100, Window: time.Minute}
		var ls []algo.Limiter
		for _, k := range []algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog, algo.KindSlidingCounter} {
			lim, _ := algo.New(k, cfg)
			ls = append(ls, lim)
		}
		decided := make(chan int64)
		go func() {
			// New waits for the first request, as every step may.
			e, err := sim.New(tail.Source(), ls, sim.Options{ForwardOnly: true})
			if err != nil {
				panic(err)
			}
			e.RunToEnd()
			decided <- e.Processed()
		}()
		if _, err := Read(bytes.NewReader(data), Options{Reorder: DefaultReorder, Tail: tail}); err != nil {
			b.Fatal(err)
		}
		if n := <-decided; n != 1_000_000 {
			b.Fatalf("decided %d", n)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "lines/s")
}
