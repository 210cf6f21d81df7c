package sim

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"windowlab/algo"
)

// fileOrder is the stream a scenario file gives when the added batches are
// appended to its traffic list after the source's: a stable sort by
// instant of the source's arrivals, then each batch in the order added.
// It is built here from scratch, independently of the engine's merge.
func fileOrder(base []Arrival, batches [][]Added) []Arrival {
	all := slices.Clone(base)
	for _, b := range batches {
		for _, r := range b {
			for range r.Count {
				all = append(all, Arrival{At: r.At, Client: r.Client})
			}
		}
	}
	slices.SortStableFunc(all, func(a, b Arrival) int { return int(a.At - b.At) })
	return all
}

// records decides every arrival of a fresh engine over arrivals.
func freshAt(t *rapid.T, cfg algo.Config, arrivals []Arrival, n int64) (*Engine, []Record) {
	e := propEngine(t, cfg, arrivals, nil, Options{History: true})
	var out []Record
	for e.Processed() < n {
		r, ok := e.Step()
		if !ok {
			t.Fatalf("the file's stream ends at %d, before %d", e.Processed(), n)
		}
		out = append(out, r.clone())
	}
	return e, out
}

// TestPropInjectIsTheFile: traffic added at the clock, in any order of
// seeks (forward and back), additions and undos, leaves the engine exactly
// where an engine over the same traffic written in the file stands after
// as many arrivals: the same last record, the same figures, the same
// history; and every record decided after an addition is the file's.
func TestPropInjectIsTheFile(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg, base := drawRun(t)
		e := propEngine(t, cfg, base, nil, Options{History: true})
		e.budget = rapid.SampledFrom([]int64{checkpointBudget, 1 << 12}).Draw(t, "budget")
		w := algo.Instant(cfg.Window / time.Millisecond)
		var batches [][]Added
		end := algo.Clock(12, 0, 0, 0)
		if len(base) > 0 {
			end = base[len(base)-1].At
		}
		for op := range rapid.IntRange(1, 30).Draw(t, "ops") {
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1: // add at the clock (or a little after), then decide up to it
				now := e.Now()
				at := now + algo.Instant(rapid.Int64Range(0, int64(2*w)).Draw(t, "after"))
				var b []Added
				for range rapid.IntRange(1, 4).Draw(t, "runs") {
					b = append(b, Added{At: at, Client: rapid.SampledFrom([]string{"ann", "bob", "eve"}).Draw(t, "client"),
						Count: rapid.Int64Range(1, 6).Draw(t, "count")})
					at += algo.Instant(rapid.Int64Range(0, 3).Draw(t, "gap"))
				}
				if err := e.Inject(b); err != nil {
					t.Fatal(err)
				}
				batches = append(batches, b)
				before := e.Processed()
				e.Seek(b[len(b)-1].At)
				// Every record decided now is the file's record at its index.
				_, want := freshAt(t, cfg, fileOrder(base, batches), e.Processed())
				if r, ok := e.Last(); ok && e.Processed() > before {
					if got := r.clone(); !reflect.DeepEqual(got, want[len(want)-1]) {
						t.Fatalf("op %d: added at %s, decided %+v, the file decides %+v", op, now, got, want[len(want)-1])
					}
				}
			case 2: // undo the last addition
				if len(batches) == 0 {
					continue
				}
				if err := e.Uninject(len(batches[len(batches)-1])); err != nil {
					t.Fatal(err)
				}
				batches = batches[:len(batches)-1]
			case 3: // step back a little
				e.SeekIndex(max(0, e.Processed()-rapid.Int64Range(1, 40).Draw(t, "back")))
			case 4: // seek anywhere
				e.Seek(algo.Clock(12, 0, 0, 0) + algo.Instant(rapid.Int64Range(0, int64(end-algo.Clock(12, 0, 0, 0))+int64(3*w)).Draw(t, "to")))
			case 5: // forward a few
				for range rapid.IntRange(1, 50).Draw(t, "steps") {
					e.Step()
				}
			}
			file := fileOrder(base, batches)
			f, _ := freshAt(t, cfg, file, e.Processed())
			sameState(t, e, f)
			if got, want := e.Len(), int64(len(file)); got != want {
				t.Fatalf("op %d: Len %d, the file has %d", op, got, want)
			}
		}
		// From the start to the end, the whole stream is the file's.
		e.SeekIndex(0)
		file := fileOrder(base, batches)
		_, want := freshAt(t, cfg, file, int64(len(file)))
		for i := range want {
			r, ok := e.Step()
			if !ok || !reflect.DeepEqual(r.clone(), want[i]) {
				t.Fatalf("replayed from the start, record %d is %+v (%v), the file's %+v", i, r, ok, want[i])
			}
		}
		if _, ok := e.Step(); ok {
			t.Fatal("the replay has more arrivals than the file")
		}
	})
}

// sameState fails unless a and b stand at the same position with the same
// last record, figures and history.
func sameState(t *rapid.T, a, b *Engine) {
	t.Helper()
	if a.Processed() != b.Processed() {
		t.Fatalf("processed %d and %d", a.Processed(), b.Processed())
	}
	la, oka := a.Last()
	lb, okb := b.Last()
	if oka != okb || !reflect.DeepEqual(la.clone(), lb.clone()) {
		t.Fatalf("at %d: last %+v, the file's %+v", a.Processed(), la, lb)
	}
	sa, sb := a.Stats(), b.Stats()
	for i := range sa {
		sa[i].Memory, sb[i].Memory = algo.Memory{}, algo.Memory{} // live memory depends on the clock, which may differ
	}
	if !reflect.DeepEqual(sa, sb) {
		t.Fatalf("at %d: stats\n%+v\nthe file's\n%+v", a.Processed(), sa, sb)
	}
	na, nb := a.Next()
	ma, mb := b.Next()
	if nb != mb || (nb && na != ma) {
		t.Fatalf("at %d: next %+v %v, the file's %+v %v", a.Processed(), na, nb, ma, mb)
	}
	ha, hb := a.History(), b.History()
	if ha.Len() != hb.Len() {
		t.Fatalf("history %d and %d", ha.Len(), hb.Len())
	}
}

// TestInjectRefusesThePast: an addition before the clock changes nothing.
func TestInjectRefusesThePast(t *testing.T) {
	cfg := algo.Config{Limit: 2, Window: time.Second}
	l, _ := algo.Algorithm{Kind: algo.KindFixedWindow}.New(cfg)
	e, err := New(NewSliceSource([]Arrival{{At: 1000, Client: "a"}, {At: 2000, Client: "a"}}), []algo.Limiter{l}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Seek(1500)
	if err := e.Inject([]Added{{At: 1499, Client: "a", Count: 1}}); err == nil {
		t.Fatal("an arrival before the clock was added")
	}
	if err := e.Inject([]Added{{At: 1600, Client: "a", Count: 1}, {At: 1550, Client: "a", Count: 1}}); err == nil {
		t.Fatal("arrivals out of order were added")
	}
	if err := e.Inject([]Added{{At: 1600, Client: "a", Count: 0}}); err == nil {
		t.Fatal("a run of no request was added")
	}
	if runs, n := e.Injected(); runs != 0 || n != 0 || e.Len() != 2 {
		t.Fatalf("a refused addition left %d runs of %d added, %d in all", runs, n, e.Len())
	}
	if err := e.Uninject(1); err == nil {
		t.Fatal("took away an addition never made")
	}
}

// Undoing a burst part of which is decided (the clock stepped into it)
// leaves the engine where an engine without the burst stands after the
// arrivals decided besides.
func TestUninjectPartlyDecided(t *testing.T) {
	cfg := algo.Config{Limit: 3, Window: 10 * time.Millisecond}
	base := []Arrival{{At: 100, Client: "a"}, {At: 105, Client: "a"}, {At: 120, Client: "b"}}
	rapid.Check(t, func(t *rapid.T) {
		e := propEngine(t, cfg, base, nil, Options{History: true})
		e.Seek(100)
		if err := e.Inject([]Added{{At: 100, Client: "a", Count: 5}, {At: 103, Client: "b", Count: 4}}); err != nil {
			t.Fatal(err)
		}
		k := rapid.Int64Range(0, 11).Draw(t, "steps") // into the first run, the second, past both
		for range k {
			e.Step()
		}
		if err := e.Uninject(2); err != nil {
			t.Fatal(err)
		}
		// Decided besides the added: the first base arrival always, the
		// second after the nine added, the third after it.
		want := int64(1)
		if k >= 10 {
			want++
		}
		if k >= 11 {
			want++
		}
		f := propEngine(t, cfg, base, nil, Options{History: true})
		f.SeekIndex(want)
		sameState(t, e, f)
	})
}
