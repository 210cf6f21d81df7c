package sim

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/long"
)

// numbered is a Named source over arrivals that carry their names and
// numbers: NextNumbered leaves the names out, Name gives them back.
type numbered struct {
	SliceSource
	names []string // by number − 1
}

func (s *numbered) NextNumbered() (Arrival, bool) {
	a, ok := s.Next()
	a.Client = ""
	return a, ok
}

func (s *numbered) Name(number int32) string { return s.names[number-1] }

func (s *numbered) Clone() Source { c := *s; return &c }

// An engine reading a Named source hands out and keeps exactly what one
// reading the same arrivals whole does: every record, next arrival and
// last record on the way (stepping back to checkpoints and on again, and
// after added requests merge the source), the figures (the busiest
// client's name among them) and the clients, with limiters deciding by
// id, and with a fleet deciding by name beside them.
func TestNamedSourceDecidesAsANamedOne(t *testing.T) {
	for seed := range uint64(long.N(30, 300)) {
		r := rand.New(rand.NewPCG(seed, 35))
		cfg := algo.Config{Limit: int64(r.IntN(5) + 1), Window: time.Duration(r.IntN(3)+1) * time.Second}
		clients := r.IntN(30) + 1
		var names []string
		for i := range clients {
			names = append(names, fmt.Sprintf("10.0.%d.%d", i/256, i%256))
		}
		var arrivals []Arrival
		at := algo.Instant(r.IntN(1000))
		for range r.IntN(600) + 1 {
			at += algo.Instant(r.IntN(300))
			for range 1 + r.IntN(4) {
				c := r.IntN(clients)
				if r.IntN(3) == 0 {
					c = 0 // a busy client, which spills its admitted runs
				}
				arrivals = append(arrivals, Arrival{At: at, Client: names[c], Number: int32(c) + 1})
			}
		}
		limiters := func() []algo.Limiter {
			var ls []algo.Limiter
			algos := []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog}, {Kind: algo.KindSlidingCounter}}
			if seed%2 == 1 { // a limiter deciding by name: every arrival's name is loaded
				algos = append(algos, algo.Algorithm{Kind: algo.KindFixedWindow}.Fleet(2, algo.RoundRobin))
			}
			for _, a := range algos {
				l, err := a.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				ls = append(ls, l)
			}
			return ls
		}
		opts := Options{CheckpointBytes: int64(r.IntN(2)) << 20}
		whole, err := New(NewSliceSource(arrivals), limiters(), opts)
		if err != nil {
			t.Fatal(err)
		}
		lazy, err := New(&numbered{SliceSource: SliceSource{arrivals: arrivals}, names: names}, limiters(), opts)
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string) {
			t.Helper()
			w, wok := whole.Next()
			l, lok := lazy.Next()
			if w != l || wok != lok {
				t.Fatalf("seed %d, %s: next %+v %v, want %+v %v", seed, what, l, lok, w, wok)
			}
			wr, wok := whole.Last()
			lr, lok := lazy.Last()
			if !reflect.DeepEqual(wr, lr) || wok != lok {
				t.Fatalf("seed %d, %s: last %+v, want %+v", seed, what, lr, wr)
			}
		}
		injected := false
		for i := 0; ; i++ {
			if r.IntN(4) == 0 { // Next and Last name what they hand out: not every time, to see Step does too
				same(fmt.Sprintf("at %d", i))
			}
			wr, wok := whole.Step()
			lr, lok := lazy.Step()
			if !reflect.DeepEqual(wr, lr) || wok != lok {
				t.Fatalf("seed %d, step %d: %+v, want %+v", seed, i, lr, wr)
			}
			if !wok {
				break
			}
			switch r.IntN(40) {
			case 0:
				back := int64(r.IntN(i + 1))
				whole.SeekIndex(back)
				lazy.SeekIndex(back)
				same(fmt.Sprintf("back at %d", back))
				whole.SeekIndex(int64(i + 1))
				lazy.SeekIndex(int64(i + 1))
			case 1:
				if !injected {
					injected = true
					run := []Added{{At: whole.Now() + 1, Client: names[r.IntN(clients)], Count: int64(r.IntN(5) + 1)}}
					if err := whole.Inject(run); err != nil {
						t.Fatal(err)
					}
					if err := lazy.Inject(run); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if w, l := whole.Stats(), lazy.Stats(); !reflect.DeepEqual(w, l) {
			t.Fatalf("seed %d: stats\n%+v\nwant\n%+v", seed, l, w)
		}
		if w, l := whole.Clients(), lazy.Clients(); !reflect.DeepEqual(w, l) {
			t.Fatalf("seed %d: clients %q, want %q", seed, l, w)
		}
	}
}

// StepNumbered hands out Step's records, without the names a Named source
// left out (all but the first's, which New names), and Name gives each
// record's back.
func TestStepNumberedLeavesOnlyTheName(t *testing.T) {
	names := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}
	var arrivals []Arrival
	for i := range 200 {
		c := (i * 7) % len(names)
		arrivals = append(arrivals, Arrival{At: algo.Instant(i * 90), Client: names[c], Number: int32(c) + 1})
	}
	engine := func() *Engine {
		var ls []algo.Limiter
		for _, k := range []algo.Kind{algo.KindFixedWindow, algo.KindSlidingLog} {
			l, err := algo.New(k, algo.Config{Limit: 3, Window: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, l)
		}
		e, err := New(&numbered{SliceSource: SliceSource{arrivals: arrivals}, names: names}, ls, Options{ForwardOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	named, numbers := engine(), engine()
	unnamed := 0
	for i := 0; ; i++ {
		want, ok := named.Step()
		got, ok2 := numbers.StepNumbered()
		if ok != ok2 {
			t.Fatalf("record %d: Step %v, StepNumbered %v", i, ok, ok2)
		}
		if !ok {
			break
		}
		if got.Arrival.Client == "" {
			unnamed++
		} else if got.Arrival.Client != want.Arrival.Client {
			t.Fatalf("record %d: StepNumbered named %q, Step %q", i, got.Arrival.Client, want.Arrival.Client)
		}
		if name := numbers.Name(got.Arrival); name != want.Arrival.Client {
			t.Fatalf("record %d: Name %q, Step's %q", i, name, want.Arrival.Client)
		}
		got.Arrival.Client = want.Arrival.Client
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("record %d: %+v, Step's %+v", i, got, want)
		}
	}
	if unnamed < len(arrivals)-1 { // the first may be named, as the engine's next arrival on New
		t.Errorf("StepNumbered named %d of %d records", len(arrivals)-unnamed, len(arrivals))
	}
}
