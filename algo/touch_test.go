package algo

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// Touching a client's state, known or not yet, changes nothing: a limiter
// touched before every request (and at random ids between) decides and
// holds exactly what an untouched one does.
func TestTouchChangesNothing(t *testing.T) {
	for _, k := range []Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter, KindTokenBucket} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 37))
			cfg := Config{Limit: int64(r.IntN(5) + 1), Window: time.Duration(r.IntN(3)+1) * time.Second}
			touched, plain := mustNew(t, k, cfg), mustNew(t, k, cfg)
			names := sharedNames(t, touched, plain)
			tb, ok := touched.(Toucher)
			if !ok {
				t.Fatalf("%v is no Toucher", k)
			}
			at := Instant(0)
			for i := range 2000 {
				at += Instant(r.IntN(200))
				id := names.ID(string(rune('a' + r.IntN(40))))
				tb.Touch(id)
				tb.Touch(int32(r.IntN(100)))
				if i%97 == 0 {
					touched, plain = touched.Clone(), plain.Clone() // a copy's packed states, touched too
					tb = touched.(Toucher)
					tb.Touch(id)
				}
				got, want := touched.(ByID).AllowID(at, id), plain.(ByID).AllowID(at, id)
				if got != want {
					t.Fatalf("%v seed %d request %d: %+v, want %+v", k, seed, i, got, want)
				}
				if !reflect.DeepEqual(touched.Memory(), plain.Memory()) {
					t.Fatalf("%v seed %d request %d: memory %+v, want %+v", k, seed, i, touched.Memory(), plain.Memory())
				}
			}
		}
	}
}

// A decision written in place (Writer) is the one Allow gives by name (the
// keyed store's path, not the table's), whatever the Decision held before:
// every field is written, none left from the last limiter's; and the
// memory read in place (Held) is what Memory says by name.
func TestWriterWritesEveryField(t *testing.T) {
	rules := []Rules{{}, {CountRejected: true}, {WindowStart: WindowFirstRequest}, {WindowStart: WindowFirstEvent}}
	for _, k := range []Kind{KindFixedWindow, KindSlidingLog, KindSlidingCounter} {
		for seed := range uint64(12) {
			r := rand.New(rand.NewPCG(seed, 41))
			cfg := Config{Limit: int64(r.IntN(5) + 1), Window: time.Duration(r.IntN(3)+1) * time.Second, Rules: rules[seed%uint64(len(rules))]}
			if err := cfg.Validate(); err != nil {
				continue
			}
			if cfg.Rules.WindowStart == WindowFirstRequest && k != KindFixedWindow || cfg.Rules.WindowStart == WindowFirstEvent && k != KindSlidingCounter {
				continue
			}
			written, named := mustNew(t, k, cfg), mustNew(t, k, cfg)
			names := sharedNames(t, written)
			w, ok := written.(Writer)
			if !ok {
				t.Fatalf("%v is no Writer", k)
			}
			at := Instant(0)
			for i := range 1500 {
				at += Instant(r.IntN(300))
				client := string(rune('a' + r.IntN(30)))
				d := Decision{Kind: KindTokenBucket, Tokens: 7, Capacity: 9, Delay: time.Second, Segments: 3, Previous: 5, Elapsed: time.Minute, Oldest: 11, WindowStart: 13}
				w.AllowIDInto(at, names.ID(client), &d)
				if want := named.Allow(at, client); d != want {
					t.Fatalf("%v %+v seed %d request %d: wrote %+v, want %+v", k, cfg.Rules, seed, i, d, want)
				}
				if h, m := *w.Held(), named.Memory(); h != m {
					t.Fatalf("%v seed %d request %d: holds %+v, Memory by name %+v", k, seed, i, h, m)
				}
			}
		}
	}
}

// sharedNames is a new Names table the limiters ls all number their
// clients by (ByID.UseNames).
func sharedNames(t *testing.T, ls ...Limiter) *Names {
	t.Helper()
	names := NewNames()
	for _, l := range ls {
		if !l.(ByID).UseNames(names) {
			t.Fatalf("%v refused UseNames", l.Kind())
		}
	}
	return names
}
