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
			names := NewNames()
			if !touched.(ByID).UseNames(names) || !plain.(ByID).UseNames(names) {
				t.Fatal("UseNames refused")
			}
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
