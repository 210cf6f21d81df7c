package accesslog

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// reorderReference is the reorder window as a plain sorted list: every
// request waits until the latest time read is more than reorder past it,
// then goes out by (time, line); one earlier than a request already out
// is late.
func reorderReference(ats []algo.Instant, clients []string, reorder algo.Instant) (out []sim.Arrival, late int64) {
	type req struct {
		at     algo.Instant
		seq    int
		client string
	}
	var waiting []req
	var newest, emitted algo.Instant
	kept := 0
	flush := func(until algo.Instant) {
		slices.SortStableFunc(waiting, func(a, b req) int {
			if a.at != b.at {
				return int(a.at - b.at)
			}
			return a.seq - b.seq
		})
		i := 0
		for ; i < len(waiting) && waiting[i].at <= until; i++ {
			out = append(out, sim.Arrival{At: waiting[i].at, Client: waiting[i].client})
			emitted = waiting[i].at
			kept++
		}
		waiting = waiting[i:]
	}
	for i, at := range ats {
		started := kept+len(waiting) > 0
		if started && at < emitted {
			late++
			continue
		}
		waiting = append(waiting, req{at, i, clients[i]})
		if !started {
			newest = at
		}
		newest = max(newest, at)
		flush(newest - reorder)
	}
	flush(1<<62 - 1)
	return out, late
}

// Lines out of order are put in their place, ties in the file's order,
// exactly as a sorted list would: random logs with equal instants, jitter
// and jumps back, at reorder windows from none to more than the log.
func TestReorderPutsLinesInTheirPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 3))
	base := at("2026-12-01T00:00:00Z")
	for trial := range 400 {
		n := 1 + r.IntN(300)
		ats := make([]algo.Instant, n)
		clients := make([]string, n)
		var text strings.Builder
		clock := base
		for i := range n {
			switch r.IntN(4) {
			case 0: // the same instant as the line before
			case 1:
				clock += algo.Instant(r.IntN(5))
			default:
				clock += algo.Instant(r.IntN(40))
			}
			a := clock
			if r.IntN(5) == 0 {
				a -= algo.Instant(r.IntN(60)) // a line back in time
			}
			ats[i], clients[i] = a, fmt.Sprintf("c%d", r.IntN(4))
			fmt.Fprintf(&text, "{\"ts\":\"%s\",\"ip\":\"%s\"}\n", a.Time().UTC().Format(time.RFC3339Nano), clients[i])
		}
		// A nanosecond is none: read takes 0 for the default.
		reorder := []time.Duration{time.Nanosecond, time.Millisecond, 7 * time.Millisecond, 30 * time.Millisecond, time.Second}[trial%5]
		l := read(t, text.String(), Options{Reorder: reorder})
		want, late := reorderReference(ats, clients, algo.Instant(reorder/time.Millisecond))
		if l.LateLines != late {
			t.Fatalf("trial %d (reorder %s): %d late lines, want %d", trial, reorder, l.LateLines, late)
		}
		same(t, arrivals(l), want)
		if t.Failed() {
			t.Fatalf("trial %d (reorder %s):\n%s", trial, reorder, text.String())
		}
	}
}

// A merged log whose second half goes back to the first's start, under a
// --reorder as long as the log, comes out as a stable sort by time: tens of
// thousands of lines through the heap, its chunks grown and given back.
func TestReorderAMergedLog(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 4))
	var text strings.Builder
	var want []sim.Arrival
	for half := range 2 {
		clock := at("2026-12-01T00:00:00Z")
		for range 30_000 {
			clock += algo.Instant(r.IntN(3))
			a := sim.Arrival{At: clock, Client: fmt.Sprintf("s%d-c%d", half, r.IntN(50))}
			want = append(want, a)
			fmt.Fprintf(&text, "{\"ts\":\"%s\",\"ip\":\"%s\"}\n", a.At.Time().UTC().Format(time.RFC3339Nano), a.Client)
		}
	}
	slices.SortStableFunc(want, func(a, b sim.Arrival) int { return int(a.At - b.At) })
	l := read(t, text.String(), Options{Reorder: 100 * time.Hour})
	if l.LateLines != 0 {
		t.Errorf("%d late lines", l.LateLines)
	}
	same(t, arrivals(l), want)
}

// Lines read in time order wait in a few bytes each: a million identical
// lines within one second (all of them inside the reorder window until the
// end) hold a few MiB of heap, not 24 bytes and more a line (2.2 GB for
// 49,000,000 before).
func TestIdenticalLinesWaitCompactly(t *testing.T) {
	const n = 1_000_000
	line := "10.0.0.1 - - [01/Dec/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n"
	text := strings.Repeat(line, n)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var most uint64
	l, err := Read(strings.NewReader(text), Options{Name: "same.log", Reorder: DefaultReorder, Progress: func(_, lines int64) {
		if lines%(n/8) < 4096 { // a few looks at the heap as it reads
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			most = max(most, m.HeapAlloc-min(m.HeapAlloc, before.HeapAlloc))
		}
	}})
	if err != nil || l.Requests != n {
		t.Fatalf("%v, %d requests", err, l.Requests)
	}
	t.Logf("%d identical lines: at most %.1f MiB of heap while reading", n, float64(most)/(1<<20))
	if most > 8<<20 {
		t.Errorf("reading %d identical lines held %d MiB of heap; want a few bytes a line", n, most>>20)
	}
}

// Lines waiting in the heap are allocated once, a chunk at a time: growing
// by append copied the heap into one a quarter larger, the old array still
// held meanwhile (12,500,000 late lines: 300 MB held, 675 MB in the copy).
func TestLateLinesAreNotCopiedToGrow(t *testing.T) {
	var w waiting
	start := at("2026-12-01T00:00:00Z")
	w.add(start+1_000_000, 1, 0, VerdictNone, 0, false)
	const n = 200_000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range n {
		w.add(start+algo.Instant(i), int64(i+2), int32(i%100), VerdictNone, start+1_000_000, true)
	}
	runtime.ReadMemStats(&after)
	held, allocated := w.bytes(), int64(after.TotalAlloc-before.TotalAlloc)
	if w.len() != n+1 || allocated > held+held/8 {
		t.Errorf("%d waiting lines hold %d KiB and allocated %d KiB to get there", w.len(), held>>10, allocated>>10)
	}
	for i := range n + 1 {
		if _, _, ok := w.next(start + 2_000_000); !ok {
			t.Fatalf("request %d of %d did not come out", i+1, n+1)
		}
	}
	if w.bytes() > 128<<10+queueChunk {
		t.Errorf("emptied, the heap still holds %d KiB", w.bytes()>>10)
	}
}
