package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/algo"
	"windowlab/internal/long"
)

// The engine's properties on random streams drawn by rapid: a hundred or so
// cases each in the ordinary run, ten times as many with WINDOWLAB_LONG=1
// (internal/long); any other count with -rapid.checks (go test ./sim/ -run
// Prop -rapid.checks 20000).

// propAlgorithms is every kind and every preset: the engine must replay each
// exactly, whatever state it keeps.
var propAlgorithms = func() []algo.Algorithm {
	out := []algo.Algorithm{}
	for _, k := range algo.All {
		out = append(out, algo.Algorithm{Kind: k})
	}
	for _, p := range algo.Presets {
		out = append(out, algo.Algorithm{Kind: p.Kind, Rules: p.Rules})
	}
	return out
}()

// drawRun draws a configuration and a stream in decision order: mostly a few
// hundred arrivals, sometimes thousands, so that checkpoints (every 1,024
// arrivals, then further apart) are made, dropped and restored.
func drawRun(t *rapid.T) (algo.Config, []Arrival) {
	cfg := algo.Config{
		Limit:    rapid.Int64Range(1, 8).Draw(t, "limit"),
		Window:   time.Duration(rapid.Int64Range(1, 80).Draw(t, "window")) * time.Millisecond,
		NoExpiry: rapid.Bool().Draw(t, "no expiry"),
	}
	small := rapid.IntRange(0, 300)
	n := rapid.OneOf(small, small, small, rapid.IntRange(1000, 5000)).Draw(t, "arrivals")
	seed := rapid.Uint64().Draw(t, "seed") // a long stream from a few draws, so shrinking stays quick
	names := []string{"ann", "bob", "cy", "dee"}[:rapid.IntRange(1, 4).Draw(t, "clients")]
	w := int64(cfg.Window / time.Millisecond)
	at := algo.Clock(12, 0, 0, 0) + algo.Instant(seed%uint64(w))
	out := make([]Arrival, n)
	for i := range out {
		seed = seed*6364136223846793005 + 1442695040888963407
		switch r := seed >> 58; {
		case r < 24: // same instant
		case r < 40:
			at++
		case r < 48:
			at = algo.Instant((int64(at)/w + 1) * w) // the next edge
		default:
			at += algo.Instant(int64(seed>>40) % (3 * w))
		}
		out[i] = Arrival{At: at, Client: names[(seed>>20)%uint64(len(names))]}
	}
	return cfg, out
}

func propEngine(t *rapid.T, cfg algo.Config, arrivals []Arrival, limiters []algo.Limiter, opts Options) *Engine {
	if limiters == nil {
		for _, a := range propAlgorithms {
			l, err := a.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			limiters = append(limiters, l)
		}
	}
	e, err := New(NewSliceSource(arrivals), limiters, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// position is what the engine shows at a position, less the clock and the
// live memory, which follow the instant a seek asked for.
type position struct {
	N       int64
	Last    Record
	HasLast bool
	Stats   []Stats
}

func positionOf(e *Engine) position {
	r, ok := e.Last()
	stats := e.Stats()
	for i := range stats {
		stats[i].Memory = algo.Memory{}
	}
	return position{e.Processed(), r.clone(), ok, stats}
}

// The engine: after any route of seeks (back and forward, to instants, to
// indexes, by steps, by window edges), the position equals the one reached by
// stepping straight there, and stepping on from it reproduces every later
// decision of the straight run, record for record, with the same history.
func TestPropSeekBackThenForwardReproducesDecisions(t *testing.T) {
	long.Check(t, 100, 1000, func(t *rapid.T) {
		cfg, arrivals := drawRun(t)
		straight := propEngine(t, cfg, arrivals, nil, Options{History: true})
		want := []position{positionOf(straight)}
		for _, ok := straight.Step(); ok; _, ok = straight.Step() {
			want = append(want, positionOf(straight))
		}
		marks := straight.History().AppendMarks(nil)

		e := propEngine(t, cfg, arrivals, nil, Options{History: true})
		e.RunToEnd() // every checkpoint made, as after a first play through
		first, last := algo.Clock(12, 0, 0, 0), algo.Clock(12, 0, 0, 0)
		if len(arrivals) > 0 {
			first, last = arrivals[0].At, arrivals[len(arrivals)-1].At
		}
		ops := rapid.SliceOfN(rapid.IntRange(0, 7), 1, 8).Draw(t, "ops")
		for i, op := range ops {
			at := first - 5 + algo.Instant(rapid.Int64Range(0, int64(last-first)+10).Draw(t, "at"))
			switch op {
			case 0, 1:
				e.Seek(at)
			case 2:
				e.SeekIndex(rapid.Int64Range(-1, int64(len(arrivals))+1).Draw(t, "index"))
			case 3:
				e.StepBack()
			case 4:
				e.Step()
			case 5:
				e.StepInstant()
			case 6:
				e.PrevEdge()
			default:
				e.NextEdge()
			}
			n := e.Processed()
			if got := positionOf(e); !reflect.DeepEqual(got, want[n]) {
				t.Fatalf("after op %d (%d) the engine at position %d differs from stepping straight there:\n got %+v\nwant %+v", i, op, n, got, want[n])
			}
			if !slices.Equal(e.History().AppendMarks(nil), marks[:n]) {
				t.Fatalf("after op %d the history of %d marks differs from a straight run's", i, n)
			}
		}
		for r, ok := e.Step(); ok; r, ok = e.Step() {
			if w := want[r.Index+1].Last; !reflect.DeepEqual(r.clone(), w) {
				t.Fatalf("stepping on, record %d:\n got %+v\nwant %+v", r.Index, r, w)
			}
		}
		if !reflect.DeepEqual(positionOf(e), want[len(want)-1]) || !slices.Equal(e.History().AppendMarks(nil), marks) {
			t.Fatal("at the end the engine differs from a straight run's")
		}
	})
}

// A run split at any instant and resumed gives the same records: the
// arrivals before the instant replayed by one engine, and the rest by a
// second engine that takes over the first one's limiters, decide exactly as
// one unbroken run; the totals add up and the peaks are the larger of the
// two. And one engine seeking to the instant, then stepping on, gives the
// same records too.
func TestPropSplitAndResumeGivesTheSameRecords(t *testing.T) {
	long.Check(t, 150, 1500, func(t *rapid.T) {
		cfg, arrivals := drawRun(t)
		whole := propEngine(t, cfg, arrivals, nil, Options{})
		var want []Record
		for r, ok := whole.Step(); ok; r, ok = whole.Step() {
			want = append(want, r.clone())
		}
		first, last := algo.Clock(12, 0, 0, 0), algo.Clock(12, 0, 0, 0)
		if len(arrivals) > 0 {
			first, last = arrivals[0].At, arrivals[len(arrivals)-1].At
		}
		split := first - 2 + algo.Instant(rapid.Int64Range(0, int64(last-first)+4).Draw(t, "split"))
		cut := 0
		for cut < len(arrivals) && arrivals[cut].At < split {
			cut++
		}

		before := propEngine(t, cfg, arrivals[:cut], nil, Options{ForwardOnly: true})
		before.RunToEnd()
		var carried []algo.Limiter
		for _, l := range before.Limiters() {
			carried = append(carried, l.Clone())
		}
		after := propEngine(t, cfg, arrivals[cut:], carried, Options{ForwardOnly: true})
		for r, ok := after.Step(); ok; r, ok = after.Step() {
			w := want[cut+int(r.Index)]
			if r.Arrival != w.Arrival || !reflect.DeepEqual(r.Decisions, w.Decisions) {
				t.Fatalf("split at %v (%d before it), resumed record %d:\n got %+v\nwant %+v", split, cut, r.Index, r, w)
			}
		}
		ws, bs, as := whole.Stats(), before.Stats(), after.Stats()
		for i := range ws {
			if ws[i].Allowed != bs[i].Allowed+as[i].Allowed || ws[i].Denied != bs[i].Denied+as[i].Denied {
				t.Fatalf("%v: allowed %d+%d, denied %d+%d; unbroken %d and %d", ws[i].Algorithm,
					bs[i].Allowed, as[i].Allowed, bs[i].Denied, as[i].Denied, ws[i].Allowed, ws[i].Denied)
			}
			p := algo.Memory{Clients: max(bs[i].PeakMemory.Clients, as[i].PeakMemory.Clients),
				Entries: max(bs[i].PeakMemory.Entries, as[i].PeakMemory.Entries), Bytes: max(bs[i].PeakMemory.Bytes, as[i].PeakMemory.Bytes)}
			if cut < len(arrivals) && p != ws[i].PeakMemory {
				t.Fatalf("%v: peaks %+v and %+v, unbroken %+v", ws[i].Algorithm, bs[i].PeakMemory, as[i].PeakMemory, ws[i].PeakMemory)
			}
			if cut < len(arrivals) && as[i].Memory != ws[i].Memory {
				t.Fatalf("%v: memory at the end %+v, unbroken %+v", ws[i].Algorithm, as[i].Memory, ws[i].Memory)
			}
		}

		e := propEngine(t, cfg, arrivals, nil, Options{})
		e.Seek(split - 1)
		if e.Processed() != int64(cut) {
			t.Fatalf("Seek(%v) decided %d arrivals, want the %d before %v", split-1, e.Processed(), cut, split)
		}
		for r, ok := e.Step(); ok; r, ok = e.Step() {
			if !reflect.DeepEqual(r.clone(), want[r.Index]) {
				t.Fatalf("seek to %v and on, record %d:\n got %+v\nwant %+v", split-1, r.Index, r, want[r.Index])
			}
		}
	})
}
