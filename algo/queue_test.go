package algo

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestInstantQueue(t *testing.T) {
	var q InstantQueue
	for _, at := range []Instant{10, 10, 20, 30, 40} {
		q.Push(at)
	}
	if q.Len() != 5 || q.Oldest() != 10 {
		t.Fatalf("after 5 pushes: len %d, oldest %d", q.Len(), q.Oldest())
	}
	if got := q.After(15); !slices.Equal(got, []Instant{20, 30, 40}) {
		t.Errorf("After(15) = %v", got)
	}
	if q.Len() != 5 {
		t.Error("After dropped instants")
	}
	if n := q.DropThrough(20); n != 3 || q.Len() != 2 || q.Oldest() != 30 {
		t.Errorf("DropThrough(20) dropped %d, left %d from %d", n, q.Len(), q.Oldest())
	}
	if n := q.DropThrough(20); n != 0 {
		t.Errorf("a second DropThrough(20) dropped %d", n)
	}
	if n := q.DropThrough(100); n != 2 || q.Len() != 0 || len(q.After(0)) != 0 {
		t.Errorf("dropping everything: %d dropped, %d left", n, q.Len())
	}
}

// A queue that stays about a window long reuses the room it frees: its
// capacity stops growing however many instants pass through it.
func TestInstantQueueReusesRoom(t *testing.T) {
	var q InstantQueue
	for i := range 100_000 {
		at := Instant(i)
		q.DropThrough(at - 64)
		q.Push(at)
	}
	if q.Len() != 64 || q.Cap() > 128 {
		t.Errorf("len %d, cap %d: want 64 held in at most 128 slots", q.Len(), q.Cap())
	}
}

// The queue agrees with a plain slice under random pushes and drops, and
// its copies are independent of it.
func TestInstantQueueAgainstASlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var q InstantQueue
	var ref []Instant
	at := Instant(0)
	for step := range 20_000 {
		switch r.IntN(3) {
		case 0, 1:
			at += Instant(r.IntN(3))
			q.Push(at)
			ref = append(ref, at)
		case 2:
			edge := at - Instant(r.IntN(10))
			n := 0
			for len(ref) > 0 && ref[0] <= edge {
				ref, n = ref[1:], n+1
			}
			if got := q.DropThrough(edge); got != n {
				t.Fatalf("step %d: DropThrough(%d) = %d, want %d", step, edge, got, n)
			}
		}
		if !slices.Equal(q.After(-1), ref) {
			t.Fatalf("step %d: queue %v, want %v", step, q.After(-1), ref)
		}
		if step%1000 == 0 {
			c, k := q.Clone(), q.Compact()
			if c.Cap() != q.Cap() || !slices.Equal(c.After(-1), ref) || !slices.Equal(k.After(-1), ref) || k.Cap() > q.Cap() {
				t.Fatalf("step %d: clone cap %d (want %d), compact cap %d (want at most that)", step, c.Cap(), q.Cap(), k.Cap())
			}
			c.Push(at + 1)
			k.Push(at + 1)
			if !slices.Equal(q.After(-1), ref) {
				t.Fatalf("step %d: pushing to a copy changed the queue", step)
			}
		}
	}
}
