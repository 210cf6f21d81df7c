package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/replay"
)

// The shapes of log that went past windowlab's memory budget (issue 29),
// at any size: testdata/replay/shapes.sh writes them at full size.

// longKeys is a JSON Lines log of n clients, each keyed (--key
// field:agent) by an agent keyBytes long, a millisecond apart.
func longKeys(w io.Writer, n, keyBytes int) {
	pad := strings.Repeat("x", keyBytes-10)
	for i := range n {
		fmt.Fprintf(w, "{\"ts\":%d.%03d,\"agent\":\"%s%010d\"}\n", 1796083200+i/1000, i%1000, pad, i)
	}
}

// identicalLines is n copies of one Combined line: one client, one second.
func identicalLines(w io.Writer, n int) {
	line := "10.0.0.1 - - [01/Dec/2026:00:00:00 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n"
	for range n {
		io.WriteString(w, line)
	}
}

// mergedLogs is two servers' logs of n lines each, one after the other:
// the second goes back to the first's start, so that under a --reorder as
// long as the log every line of it is put in its place.
func mergedLogs(w io.Writer, n int) {
	for server := range 2 {
		for i := range n {
			fmt.Fprintf(w, "{\"ts\":%d.%03d,\"ip\":\"10.0.%d.%d\"}\n", 1796083200+i/100, i%100*10, server, i%250)
		}
	}
}

// manyClients is n clients by their address, one request each, over an hour.
func manyClients(w io.Writer, n int) {
	for i := range n {
		s := i * 3600 / n
		fmt.Fprintf(w, "10.%d.%d.%d - - [01/Dec/2026:%02d:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n",
			i>>16&255, i>>8&255, i&255, s/3600, s/60%60, s%60)
	}
}

// burstingClients is manyClients with three requests a client at once:
// past the limit of 1 a minute and of 2, so a sweep of both keeps each
// client's record a setting (algo.Trio splits it).
func burstingClients(w io.Writer, n int) {
	var b strings.Builder
	manyClients(&b, n)
	for line := range strings.Lines(b.String()) {
		fmt.Fprint(w, line, line, line)
	}
}

func logOf(t *testing.T, name string, write func(io.Writer)) string {
	var b strings.Builder
	write(&b)
	return writeFile(t, name, []byte(b.String()))
}

// withBudget lowers the replay's memory budget for the test.
func withBudget(t *testing.T, bytes int64) {
	old := replay.Budget
	replay.Budget = bytes
	t.Cleanup(func() { replay.Budget = old })
}

// A replay counts the bytes it holds as it reads the log, keys included,
// and refuses one over the budget with the figure, what filled it and what
// to change, exit 2: many clients with long keys, a --reorder as long as a
// merged log, a sweep's settings; many identical lines within one second
// fit in a few bytes each (2.2 GB for 49,000,000 before).
func TestReplayMemoryBudget(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	if replay.Budget != algo.BudgetLive {
		t.Fatalf("the replay's budget is %d bytes, the 896 MiB of docs/replay.md is %d", replay.Budget, algo.BudgetLive)
	}
	keys := logOf(t, "agents.jsonl", func(w io.Writer) { longKeys(w, 20_000, 1024) })
	same := logOf(t, "same.log", func(w io.Writer) { identicalLines(w, 1_000_000) })
	merged := logOf(t, "merged.jsonl", func(w io.Writer) { mergedLogs(w, 500_000) })
	clients := logOf(t, "clients.log", func(w io.Writer) { manyClients(w, 100_000) })
	for _, c := range []struct {
		name   string
		budget int64 // MiB
		args   []string
		want   []string // in order, on standard error; none: replayed
	}{
		{"many clients with long keys", 16, []string{"replay", keys, "--key", "field:agent"},
			[]string{"agents.jsonl:", ": by this line replaying the log needs about ", "",
				" MiB for the keys of ", " clients by --key field:agent (the longest 1,024 bytes)",
				"; use a shorter --key (ip rather than field:agent) or a log of fewer clients"}},
		{"the same, saved", 16, []string{"replay", keys, "--key", "field:agent", "--save", t.TempDir() + "/agents.yaml"},
			[]string{"agents.jsonl:", "", "for the keys of", "use a shorter --key"}},
		{"many identical lines in one second", 4, []string{"replay", same}, nil},
		{"identical lines, a sweep", 4, []string{"replay", same, "--limits", "10,20", "--windows", "1s,1m"}, nil},
		{"a --reorder as long as a merged log", 8, []string{"replay", merged, "--reorder", "100h"},
			[]string{"merged.jsonl:", "", " MiB for lines waiting to be put in order (--reorder 100h)", "; use a smaller --reorder"}},
		{"the merged log at the default --reorder", 8, []string{"replay", merged}, nil},
		{"a sweep of many clients", 48, []string{"replay", clients, "--limits", "1,2,3,4"},
			[]string{"clients.log:", "", " MiB for the limiters' state of 4 settings decided side by side", "; replay fewer settings at a time"}},
		{"many clients at one setting", 48, []string{"replay", clients, "--limit", "1"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			withBudget(t, c.budget<<20)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // a sweep's four settings side by side, on any machine
			out, errOut, code := windowlab(t, c.args...)
			if c.want == nil {
				if code != 0 {
					t.Fatalf("exit %d:\n%s", code, errOut)
				}
				return
			}
			if code != 2 || out != "" {
				t.Fatalf("exit %d, want 2 and nothing on standard output:\n%s\n%s", code, out, errOut)
			}
			// The budget's figures, then what filled it, then what to change.
			c.want[2] = fmt.Sprintf("more than the %d MiB that windowlab's memory budget of 1,024 MiB leaves for its data: ", c.budget)
			rest := errOut
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("standard error does not say %q (in this order):\n%s", w, errOut)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// The figure is what the heap holds: a replay deciding as it reads, as
// the command does, with the heap measured after a collection at every
// check, holds no more than the figure (and a little for the runtime and
// the buffers), and the figure, an estimate that errs high, is not more
// than a few times the heap.
func TestReplayMemoryIsTheHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates beside the replay; the run without it holds the figure to the heap")
	}
	ip, _ := accesslog.ParseKey("ip")
	agent, _ := accesslog.ParseKey("field:agent")
	for _, c := range []struct {
		name     string
		write    func(io.Writer)
		key      accesslog.Key
		reorder  time.Duration
		settings int
	}{
		{"many clients", func(w io.Writer) { manyClients(w, 100_000) }, ip, accesslog.DefaultReorder, 1},
		{"many clients, a sweep", func(w io.Writer) { manyClients(w, 100_000) }, ip, accesslog.DefaultReorder, 2},
		{"many clients past both limits, a sweep", func(w io.Writer) { burstingClients(w, 100_000) }, ip, accesslog.DefaultReorder, 2},
		{"long keys", func(w io.Writer) { longKeys(w, 10_000, 1024) }, agent, accesslog.DefaultReorder, 1},
		{"identical lines", func(w io.Writer) { identicalLines(w, 500_000) }, ip, accesslog.DefaultReorder, 1},
		{"merged, --reorder 100h", func(w io.Writer) { mergedLogs(w, 100_000) }, ip, 100 * time.Hour, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var text strings.Builder
			c.write(&text)
			var limits []int64
			for i := range c.settings {
				limits = append(limits, int64(i+1))
			}
			algos, _ := parseAlgorithms("fixed-window,sliding-log,sliding-counter")
			settings, err := replay.Settings(limits, []time.Duration{time.Minute}, algos)
			if err != nil {
				t.Fatal(err)
			}
			atOnce := replay.Workers(len(settings))
			mem, err := replay.NewMemory(c.key, c.reorder, settings, atOnce, len(settings) > 1, false)
			if err != nil {
				t.Fatal(err)
			}
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			var mostHeap, figureThen int64
			checks := 0
			tail := accesslog.NewTail()
			opts := accesslog.Options{Name: c.name, Key: c.key, Reorder: c.reorder, Tail: tail, Windows: mem.Windows(),
				Check: func(u accesslog.Usage) error {
					var m runtime.MemStats
					runtime.GC()
					runtime.ReadMemStats(&m)
					heap, figure := int64(m.HeapAlloc)-int64(base.HeapAlloc), mem.Total(u)
					checks++
					if heap > mostHeap {
						mostHeap, figureThen = heap, figure
					}
					if heap > figure+figure/4+2<<20 || figure > 4*heap+2<<20 {
						t.Errorf("line %d: the figure is %.1f MiB, the heap %.1f MiB", u.Lines, float64(figure)/(1<<20), float64(heap)/(1<<20))
					}
					return nil
				}}
			var decided atomic.Int64
			result := replay.DecideWhileReading(context.Background(), tail, c.name, settings, nil, &decided)
			if _, err := accesslog.Read(strings.NewReader(text.String()), opts); err != nil {
				t.Fatal(err)
			}
			if d := <-result; d.Err != nil {
				t.Fatal(d.Err)
			}
			if checks < 2 {
				t.Errorf("%d checks", checks)
			}
			t.Logf("the heap at most %.1f MiB, the figure then %.1f MiB", float64(mostHeap)/(1<<20), float64(figureThen)/(1<<20))
		})
	}
}
