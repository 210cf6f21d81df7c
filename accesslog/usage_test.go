package accesslog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// shapes are the logs a memory budget must see coming, scaled down: many
// clients with long keys, many identical lines within one second, and a
// merged log whose second half goes back in time under a long --reorder.
func shapes() []struct {
	name string
	text string
	opts Options
} {
	var keys, same, merged strings.Builder
	pad := strings.Repeat("x", 1000)
	for i := range 20_000 {
		fmt.Fprintf(&keys, "{\"ts\":%d.%03d,\"agent\":\"%s%d\"}\n", 1796083200+i/1000, i%1000, pad, i)
	}
	line := "10.0.0.1 - - [01/Dec/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n"
	same.WriteString(strings.Repeat(line, 400_000))
	for half := range 2 {
		for i := range 100_000 {
			fmt.Fprintf(&merged, "{\"ts\":%d,\"ip\":\"10.0.%d.%d\"}\n", 1796083200+i/10, half, i%200)
		}
	}
	key, _ := ParseKey("field:agent")
	return []struct {
		name string
		text string
		opts Options
	}{
		{"long keys", keys.String(), Options{Key: key, Reorder: DefaultReorder}},
		{"identical lines", same.String(), Options{Reorder: DefaultReorder}},
		{"merged, --reorder 100h", merged.String(), Options{Reorder: 100 * time.Hour}},
	}
}

// What Usage says a log holds is what the heap holds: at every check as
// the log is read, the heap measured after a collection stays within the
// figure (and a little for the reader's buffers), and the figure is not
// more than a few times the heap.
func TestUsageIsTheHeap(t *testing.T) {
	for _, s := range shapes() {
		t.Run(s.name, func(t *testing.T) {
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			checks := 0
			var last Usage
			var most, at int64 // the heap at its largest, and Usage then
			s.opts.Name = s.name
			s.opts.Check = func(u Usage) error {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				heap := int64(m.HeapAlloc) - int64(base.HeapAlloc)
				checks++
				last = u
				if heap > most {
					most, at = heap, u.Bytes()
				}
				if heap > u.Bytes()+u.Bytes()/4+1<<20 || u.Bytes() > 3*heap+1<<20 {
					t.Errorf("line %d: Usage says %d KiB (keys %d, store %d, waiting %d), the heap holds %d KiB",
						u.Lines, u.Bytes()>>10, u.Keys>>10, u.Store>>10, u.Waiting>>10, heap>>10)
				}
				return nil
			}
			l, err := Read(strings.NewReader(s.text), s.opts)
			if err != nil {
				t.Fatal(err)
			}
			if checks < 4 || last.Requests != l.Requests || last.Waiting != 0 {
				t.Errorf("%d checks, the last of %+v", checks, last)
			}
			t.Logf("%d requests, %d clients: the heap at most %.1f MiB, Usage then %.1f MiB", l.Requests, len(l.Clients()), float64(most)/(1<<20), float64(at)/(1<<20))
		})
	}
}

// Usage counts the traffic an engine will hold state for: distinct
// (client, instant) pairs, in all and at most in one window (bounded by
// two aligned windows), the runs --save writes, the span, the longest key.
func TestUsageCountsRuns(t *testing.T) {
	text := strings.Join([]string{
		`{"ts":1796083200.000,"ip":"a"}`,
		`{"ts":1796083200.000,"ip":"a"}`, // the same run
		`{"ts":1796083200.000,"ip":"bb"}`,
		`{"ts":1796083200.000,"ip":"a"}`, // still a's run at that instant
		`{"ts":1796083200.500,"ip":"a"}`,
		`{"ts":1796083201.000,"ip":"a"}`,
		`{"ts":1796083205.000,"ip":"a"}`,
	}, "\n") + "\n"
	var got Usage
	l := read(t, text, Options{Windows: []time.Duration{time.Second, time.Minute}, Check: func(u Usage) error { got = u; return nil }})
	want := Usage{Lines: 7, Clients: 2, Requests: 7, Runs: 5, Sequences: 6, Span: 5000, KeyBytes: 2}
	if got.Lines != want.Lines || got.Clients != want.Clients || got.Requests != want.Requests || got.Runs != want.Runs || got.Sequences != want.Sequences ||
		got.Span != want.Span || got.KeyBytes != want.KeyBytes || len(got.RunsInWindow) != 2 {
		t.Fatalf("Usage %+v, want %+v", got, want)
	}
	// In 1 s: a, bb at :00, a at :00.5, a at :01 lie in two neighbouring seconds.
	if got.RunsInWindow[0] != 4 || got.RunsInWindow[1] != 5 {
		t.Errorf("runs in a second and a minute: %v, want [4 5]", got.RunsInWindow)
	}
	if l.Usage().Runs != 5 {
		t.Errorf("the log read: %+v", l.Usage())
	}
}

// Runs are the distinct (client, instant) pairs however the lines come:
// many clients (more than one word of Log.seenAtLast's bits), many at one
// instant, a client again at an instant after others, lines out of order
// within --reorder. Checked against a map of the pairs.
func TestUsageRunsAgainstAMap(t *testing.T) {
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 5))
		var text strings.Builder
		pairs := map[[2]int64]bool{}
		ms := int64(1796083200000)
		clients := 1 + r.IntN(500)
		for range 5000 {
			if r.IntN(8) == 0 {
				ms += r.Int64N(30) * 100
			}
			at := ms - r.Int64N(20)*100 // up to 2 s back: within --reorder's 5
			c := r.IntN(clients)
			if r.IntN(2) == 0 {
				c = r.IntN(min(clients, 3))
			}
			pairs[[2]int64{int64(c), at}] = true
			fmt.Fprintf(&text, "{\"ts\":%d.%03d,\"ip\":\"c%d\"}\n", at/1000, at%1000, c)
		}
		u := read(t, text.String(), Options{}).Usage()
		if u.Requests != 5000 || u.Runs != int64(len(pairs)) {
			t.Errorf("seed %d: %d requests in %d runs, want 5000 in %d", seed, u.Requests, u.Runs, len(pairs))
		}
	}
}

// A Check's error stops the reading at the line, with the log's name.
func TestCheckStopsTheReading(t *testing.T) {
	var text strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&text, "{\"ts\":%d,\"ip\":\"c%d\"}\n", 1796083200+i/100, i)
	}
	_, err := Read(strings.NewReader(text.String()), Options{Name: "big.jsonl", Reorder: DefaultReorder, Check: func(u Usage) error {
		if u.Clients > 5000 {
			return fmt.Errorf("%d clients are too many", u.Clients)
		}
		return nil
	}})
	if err == nil || err.Error() != "big.jsonl:8192: 8192 clients are too many" {
		t.Errorf("got %v", err)
	}
}
