package replay

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/sim/report"
)

// A streamed replay (DecideWhileReading: every setting at once, each chunk
// of requests dropped once all have passed it, the reading held back for
// the slowest) decides as the log read whole and replayed setting by
// setting does: the same sweep rows and table, the same report, on random
// logs of many tiny chunks, lines out of order within --reorder included.
func TestStreamingDecidesAsTheStoredLog(t *testing.T) {
	tinyChunks(t)
	algos := mustAlgorithms(t, "fixed-window", "sliding-log", "sliding-counter")
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 35))
		var b strings.Builder
		at := time.Date(2026, 11, 30, 23, 58, 0, 0, time.UTC)
		clients := 1 + rng.IntN(40)
		for range 2000 + rng.IntN(6000) {
			at = at.Add(time.Duration(rng.IntN(120)) * time.Millisecond)
			when := at
			if rng.IntN(10) == 0 {
				when = when.Add(-time.Duration(rng.IntN(3000)) * time.Millisecond) // within --reorder 5s
			}
			fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", rng.IntN(clients)%3, rng.IntN(clients), when.Format("02/Jan/2006:15:04:05.000 -0700"))
		}
		text := b.String()
		limits := []int64{1 + rng.Int64N(20), 5 + rng.Int64N(200)}
		windows := []time.Duration{time.Second, time.Minute}
		for _, n := range []int{1, 4} {
			settings, err := Settings(limits[:min(n, 2)], windows[:n/2+n%2], algos)
			if err != nil {
				t.Fatal(err)
			}
			opts := accesslog.Options{Name: "random.log", Reorder: accesslog.DefaultReorder}
			stored, err := accesslog.Read(strings.NewReader(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			tail := accesslog.NewTail()
			opts.Tail = tail
			var decided atomic.Int64
			result := DecideWhileReading(context.Background(), tail, "random.log", settings, nil, &decided)
			streamed, err := accesslog.Read(strings.NewReader(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			d := <-result
			if d.Err != nil {
				t.Fatal(d.Err)
			}
			if chunks, _ := tail.PeakChunks(); chunks > 6 || stored.Bytes() < 40*int64(accesslog.ChunkSize) {
				t.Fatalf("seed %d: the streamed reading held %d chunks, the stored %d bytes", seed, chunks, stored.Bytes())
			}
			if decided.Load() != int64(len(settings))*stored.Requests && len(settings) > 1 || len(settings) == 1 && decided.Load() != stored.Requests {
				t.Errorf("seed %d: %d decided of %d requests at %d settings", seed, decided.Load(), stored.Requests, len(settings))
			}
			if len(settings) == 1 {
				e, err := Engine(context.Background(), stored.Source(), settings[0], nil)
				if err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				report.Text(&want, report.Header{Name: "random.log", Title: "random.log: your traffic"}, e, false)
				if !bytes.Equal(d.Report, want.Bytes()) {
					t.Errorf("seed %d: the streamed report differs:\n%s\nthe stored:\n%s", seed, d.Report, want.Bytes())
				}
				continue
			}
			rows, whole, err := sweep(context.Background(), stored.Source, settings, nil)
			if err != nil || whole != d.Whole || !reflect.DeepEqual(rows, d.Rows) {
				t.Fatalf("seed %d: %d settings: the streamed sweep's rows differ (%v; %d and %d whole)", seed, len(settings), err, d.Whole, whole)
			}
			var got, want bytes.Buffer
			PrintSweep(&got, streamed, d.Rows)
			PrintSweep(&want, stored, rows)
			if got.String() != want.String() {
				t.Errorf("seed %d: the streamed table differs:\n%s\nthe stored:\n%s", seed, got.String(), want.String())
			}
		}
	}
}

// tinyChunks makes the log's chunks a few requests each for the test:
// thousands of them released and waited for.
func tinyChunks(t *testing.T) {
	old := accesslog.ChunkSize
	accesslog.ChunkSize = 64
	t.Cleanup(func() { accesslog.ChunkSize = old })
}
