package replay

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"windowlab/accesslog"
)

// --compare and --denied decided as the log is read (DecideAllWhileReading:
// every setting's report, agreement and denials at once, each chunk of
// requests dropped once all have passed it) print what the log read whole
// and replayed setting by setting, agreement after agreement, prints: the
// same table, the same JSON, the same --denied file, byte for byte, on
// random logs of many tiny chunks with the server's 200, 429 and 503,
// lines out of order within --reorder, in UTC and in a zone of its own.
func TestStreamedCompareAndDeniedAsTheStoredLog(t *testing.T) {
	tinyChunks(t)
	algos := mustAlgorithms(t, "fixed-window", "sliding-log", "token-bucket")
	kolkata, err := time.LoadLocation("Asia/Kolkata") // +5:30: an hour's windows move
	if err != nil {
		t.Fatal(err)
	}
	statuses := []int{200, 200, 200, 429, 503, 304}
	var rowsDenied int64
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 36))
		var b strings.Builder
		at := time.Date(2026, 11, 30, 23, 58, 0, 0, time.UTC)
		clients := 1 + rng.IntN(60)
		for range 2000 + rng.IntN(5000) {
			at = at.Add(time.Duration(rng.IntN(150)) * time.Millisecond)
			when := at
			if rng.IntN(10) == 0 {
				when = when.Add(-time.Duration(rng.IntN(3000)) * time.Millisecond) // within --reorder 5s
			}
			fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" %d 1 \"-\" \"-\"\n", rng.IntN(clients)%3, rng.IntN(clients),
				when.Format("02/Jan/2006:15:04:05.000 -0700"), statuses[rng.IntN(len(statuses))])
		}
		text := b.String()
		var zone *time.Location
		if seed%2 == 1 {
			zone = kolkata
		}
		limits := []int64{1 + rng.Int64N(20), 5 + rng.Int64N(200)}
		windows := []time.Duration{time.Second, time.Hour}
		for _, n := range []int{1, 4} {
			settings, err := Settings(limits[:min(n, 2)], windows[:n/2+n%2], algos)
			if err != nil {
				t.Fatal(err)
			}
			c, err := accesslog.ParseCompare("status")
			if err != nil {
				t.Fatal(err)
			}
			opts := accesslog.Options{Name: "random.log", Reorder: accesslog.DefaultReorder, Compare: &c}
			stored, err := accesslog.Read(strings.NewReader(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			tail := accesslog.NewTail()
			opts.Tail = tail
			var decided atomic.Int64
			result := DecideAllWhileReading(context.Background(), tail, "random.log", settings, zone, &decided, Streamed{Compare: true, Denied: true})
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
			aligned := make([]Setting, len(settings))
			for i, s := range settings {
				aligned[i] = s.Aligned(zone, stored.First())
			}
			rows, err := Compare(context.Background(), stored, aligned, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got, want bytes.Buffer
			PrintCompare(&got, streamed, "status", d.Agreements)
			PrintCompare(&want, stored, "status", rows)
			if !strings.Contains(want.String(), "agree") || got.String() != want.String() {
				t.Errorf("seed %d, %d settings: the streamed agreement differs:\n%s\nthe stored:\n%s", seed, n, got.String(), want.String())
			}
			got.Reset()
			want.Reset()
			if err := CompareJSON(&got, streamed, "status", d.Agreements); err != nil {
				t.Fatal(err)
			}
			if err := CompareJSON(&want, stored, "status", rows); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("seed %d, %d settings: the streamed JSON differs:\n%s\nthe stored:\n%s", seed, n, got.String(), want.String())
			}
			got.Reset()
			want.Reset()
			gw, _ := NewDeniedWriter(&got, false)
			ww, _ := NewDeniedWriter(&want, false)
			if err := d.Denied.Write(streamed.Clients(), gw.Write); err != nil {
				t.Fatal(err)
			}
			if err := Denied(context.Background(), stored, aligned, ww.Write); err != nil {
				t.Fatal(err)
			}
			gw.Flush()
			ww.Flush()
			rowsDenied += ww.Rows
			if got.String() != want.String() {
				t.Errorf("seed %d, %d settings: the streamed --denied file differs (%d rows):\n%s\nthe stored:\n%s", seed, n, ww.Rows, got.String(), want.String())
			}
		}
	}
	if rowsDenied < 50 {
		t.Errorf("the random logs had %d clients denied in all: too few to tell", rowsDenied)
	}
}

// The progress counts every request once an engine: a replay with
// --compare and --denied ends at requests × settings × 2 (the report's
// engine and theirs), not at what the report's engine alone decided (it
// once stored its count over theirs, and the bar went back).
func TestStreamedProgressCountsEveryEngine(t *testing.T) {
	tinyChunks(t)
	algos := mustAlgorithms(t, "fixed-window", "sliding-counter")
	var b strings.Builder
	at := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 37))
	const requests = 30_000
	for range requests {
		at = at.Add(time.Duration(rng.IntN(40)) * time.Millisecond)
		fmt.Fprintf(&b, "10.0.0.%d - - [%s] \"GET / HTTP/1.1\" %d 1 \"-\" \"-\"\n", rng.IntN(40), at.Format("02/Jan/2006:15:04:05.000 -0700"), []int{200, 429}[rng.IntN(2)])
	}
	for _, c := range []struct {
		limits []int64
		st     Streamed
		each   int64
	}{
		{[]int64{5}, Streamed{Report: true}, 1},
		{[]int64{5}, Streamed{Report: true, Compare: true, Denied: true}, 2},
		{[]int64{5}, Streamed{Report: true, Denied: true}, 2},
		{[]int64{5, 50}, Streamed{Report: true, Compare: true, Denied: true}, 2},
		{[]int64{5, 50}, Streamed{Compare: true}, 1},
	} {
		settings, err := Settings(c.limits, []time.Duration{time.Second}, algos)
		if err != nil {
			t.Fatal(err)
		}
		cmp, err := accesslog.ParseCompare("status")
		if err != nil {
			t.Fatal(err)
		}
		tail := accesslog.NewTail()
		var decided atomic.Int64
		result := DecideAllWhileReading(context.Background(), tail, "p.log", settings, nil, &decided, c.st)
		if _, err := accesslog.Read(strings.NewReader(b.String()), accesslog.Options{Name: "p.log", Reorder: accesslog.DefaultReorder, Compare: &cmp, Tail: tail}); err != nil {
			t.Fatal(err)
		}
		if d := <-result; d.Err != nil {
			t.Fatal(d.Err)
		}
		if want := requests * int64(len(settings)) * c.each; decided.Load() != want {
			t.Errorf("%d settings, %+v: the progress ended at %d, want %d", len(settings), c.st, decided.Load(), want)
		}
	}
}
