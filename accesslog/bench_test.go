package accesslog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"syscall"
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
	benchOnce.Do(func() {
		// WINDOWLAB_BENCH_LOG: a log of 1,000,000 lines or more to read
		// instead (the benchmark's, internal/loggen), cut to its first million.
		if name := os.Getenv("WINDOWLAB_BENCH_LOG"); name != "" {
			if b, err := os.ReadFile(name); err == nil {
				for i, n := 0, 0; i < len(b); i++ {
					if b[i] == '\n' {
						if n++; n == 1_000_000 {
							benchLog = b[:i+1]
							return
						}
					}
				}
			}
			panic("WINDOWLAB_BENCH_LOG: not a log of 1,000,000 lines or more")
		}
		benchLog = synthetic(1_000_000, 100_000)
	})
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

// Reading as a streamed replay reads (replay's report and sweep): from a
// file, a streaming Tail dropping the chunks read, one source draining it
// as fast as it can, the usage counts of a 1-minute window, a budget's
// Check and the progress every few thousand lines. Beside
// BenchmarkReadFloor, in the same run, its cpu-ns/line over the floor's is
// the reading's CPU ratio. On two cores it is parsed on one (the deciding
// has the other).
func BenchmarkReadStreamed(b *testing.B) { readFile(b, true, -2) }

// Reading a file whole before anything decides (--save, --tui), parsed by
// one worker beside the reading, and on one core.
func BenchmarkReadWholeParallel(b *testing.B) { readFile(b, false, 1) }
func BenchmarkReadWholeOneCore(b *testing.B)  { readFile(b, false, 0) }

// The same in blocks on one core (the lines cut and parsed a block at a
// time, a block's clients looked up together), whole and streamed.
func BenchmarkReadWholeInBlocks(b *testing.B)    { readFile(b, false, -1) }
func BenchmarkReadStreamedInBlocks(b *testing.B) { readFile(b, true, -1) }
func BenchmarkReadStreamedOneCore(b *testing.B)  { readFile(b, true, 0) }

// readFile reads the benchmark's log from a file, streamed (or whole), by
// workers goroutines beside the reading (−1: in blocks by the reading
// itself, 0: line by line, −2: as parallelWorkers decides).
func readFile(b *testing.B, streamed bool, workers int) {
	data := benchData()
	name := filepath.Join(b.TempDir(), "access.log")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if workers != -2 {
		defer func(decide func(Input, Options) int) { parallelWorkers = decide }(parallelWorkers)
		parallelWorkers = func(Input, Options) int { return workers }
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	start := cpu()
	for range b.N {
		var seen int64
		opts := Options{Reorder: DefaultReorder, Windows: []time.Duration{time.Minute},
			Check:     func(u Usage) error { seen = u.Lines; return nil },
			Progress:  func(_, n int64) { seen = n },
			Interrupt: func() bool { return false }}
		drained := make(chan int64, 1)
		drained <- 1_000_000
		if streamed {
			<-drained
			opts.Tail = NewTail()
			opts.Tail.Stream()
			src := opts.Tail.Source()
			go func() {
				n := int64(0)
				for _, ok := src.Next(); ok; _, ok = src.Next() {
					n++
				}
				src.(*source).Close()
				drained <- n
			}()
		}
		f, err := os.Open(name)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Read(f, opts); err != nil {
			b.Fatal(err)
		}
		f.Close()
		if n := <-drained; n != 1_000_000 || seen != 1_000_000 {
			b.Fatalf("drained %d, seen %d", n, seen)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "cpu-ns/line")
}

// The floor: split the lines, parse the address's end and the [time] to
// an instant, keep nothing (internal/loggen/cmd/readfloor's loop).
func BenchmarkReadFloor(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	start := cpu()
	for range b.N {
		var sum int64
		rest := data
		for len(rest) > 0 {
			line := rest
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				line, rest = rest[:j], rest[j+1:]
			} else {
				rest = nil
			}
			sp := bytes.IndexByte(line, ' ')
			open := bytes.IndexByte(line, '[')
			end := bytes.IndexByte(line, ']')
			if sp < 0 || open < 0 || end < open {
				continue
			}
			st, _ := clfTime(line[open+1 : end])
			sum += int64(st.at) + int64(sp)
		}
		if sum == 0 {
			b.Fatal("nothing read")
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "cpu-ns/line")
}

// cpu is the process's CPU time so far (user and system, every thread),
// in ns: a benchmark's cpu-ns/line, which the machine's other load moves
// less than its wall time.
func cpu() int64 {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
