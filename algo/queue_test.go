package algo

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"windowlab/internal/long"
)

func TestInstantQueue(t *testing.T) {
	var q InstantQueue
	for _, at := range []Instant{10, 10, 20, 30, 40} {
		q.Push(at)
	}
	if q.Len() != 5 || q.Oldest() != 10 {
		t.Fatalf("after 5 pushes: len %d, oldest %d", q.Len(), q.Oldest())
	}
	if n, oldest := q.CountAfter(15); n != 3 || oldest != 20 {
		t.Errorf("CountAfter(15) = %d from %d, want 3 from 20", n, oldest)
	}
	if n, _ := q.CountAfter(5); n != 5 {
		t.Errorf("CountAfter(5) = %d, want 5", n)
	}
	if q.Len() != 5 {
		t.Error("CountAfter dropped instants")
	}
	if n := q.DropThrough(20); n != 3 || q.Len() != 2 || q.Oldest() != 30 {
		t.Errorf("DropThrough(20) dropped %d, left %d from %d", n, q.Len(), q.Oldest())
	}
	if n := q.DropThrough(20); n != 0 {
		t.Errorf("a second DropThrough(20) dropped %d", n)
	}
	if n := q.DropThrough(100); n != 2 || q.Len() != 0 {
		t.Errorf("dropping everything: %d dropped, %d left", n, q.Len())
	}
	if n, _ := q.CountAfter(-1); n != 0 {
		t.Errorf("an empty queue counts %d", n)
	}
}

// dropThrough is DropThrough on a sorted slice of every instant held: what
// is left, and how many went.
func dropThrough(ref []Instant, edge Instant) ([]Instant, int64) {
	n := int64(0)
	for len(ref) > 0 && ref[0] <= edge {
		ref, n = ref[1:], n+1
	}
	return ref, n
}

// instants is what an InstantQueue and an InstantRing do alike.
type instants interface {
	Push(t Instant)
	DropThrough(edge Instant) int64
	Bytes() int64
}

// throughAWindow passes 100,000 instants a millisecond apart through q,
// dropping each once it is a second old, and returns the bytes q held at
// the 10,000th.
func throughAWindow(q instants) (at10k int64) {
	for i := range 100_000 {
		at := Instant(i)
		q.DropThrough(at - 1000)
		q.Push(at)
		if i == 10_000 {
			at10k = q.Bytes()
		}
	}
	return at10k
}

// A queue that stays about a window long reuses the room it frees: its
// buffer stops growing however many instants pass through it.
func TestInstantQueueReusesRoom(t *testing.T) {
	var q InstantQueue
	most := throughAWindow(&q)
	if q.Len() != 1000 || q.Bytes() > most {
		t.Errorf("len %d, %d bytes: want 1,000 held in the %d bytes it had at 10,000 pushes", q.Len(), q.Bytes(), most)
	}
}

// Equal instants are one run: fifty million requests at one instant, the
// boundary burst at the scale of docs/memory.md's limits, cost a few bytes
// beyond the buffer's fixed header.
func TestInstantQueueBurstIsOneRun(t *testing.T) {
	var q InstantQueue
	n := int64(long.N(5_000_000, 50_000_000))
	for range n {
		q.Push(43_200_000)
	}
	q.Push(43_200_001)
	if q.Len() != n+1 || q.Bytes() > 160 {
		t.Errorf("%d instants in %d bytes: want %d in at most 160", q.Len(), q.Bytes(), n+1)
	}
	if c, oldest := q.CountAfter(43_199_999); c != n+1 || oldest != 43_200_000 {
		t.Errorf("CountAfter = %d from %d", c, oldest)
	}
	if c, _ := q.CountAfter(43_200_000); c != 1 {
		t.Errorf("after the burst's instant: %d, want 1", c)
	}
}

// Distinct instants cost at most 16 bytes each, buffer slack included,
// however far apart; a millisecond apart, about 2.
func TestInstantQueueBytesPerInstant(t *testing.T) {
	for _, tc := range []struct {
		gap  Instant
		most float64
	}{{1, 4}, {1000, 8}, {7 * 24 * 3600 * 1000, 16}, {1 << 40, 16}} {
		var q InstantQueue
		const n = 100_000
		for i := range n {
			q.Push(Instant(i) * tc.gap)
		}
		if per := float64(q.Bytes()) / n; per > tc.most {
			t.Errorf("instants %d ms apart: %.2f bytes each, want at most %.0f", tc.gap, per, tc.most)
		}
	}
}

// The queue agrees with a plain slice under random pushes (runs, small and
// large gaps) and drops, counted at random edges and listed (Runs), and
// its clones are independent of it.
func TestInstantQueueAgainstASlice(t *testing.T) {
	steps := long.N(40_000, 400_000)
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 2))
		var q InstantQueue
		var ref []Instant
		at := Instant(-5000)
		after := func(edge Instant) (int64, Instant) {
			i := sort.Search(len(ref), func(i int) bool { return ref[i] > edge })
			if i == len(ref) {
				return 0, 0
			}
			return int64(len(ref) - i), ref[i]
		}
		for step := range steps {
			if q.Len() != int64(len(ref)) || (len(ref) > 0 && q.Oldest() != ref[0]) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, q.Len(), len(ref))
			}
			switch r.IntN(8) {
			case 0, 1, 2, 3:
				switch r.IntN(10) {
				case 0:
					at += Instant(r.Int64N(1 << 40))
				case 1:
					at += Instant(r.IntN(100_000))
				case 2, 3, 4:
					// the same instant again
				default:
					at += Instant(r.IntN(3))
				}
				for k := r.IntN(3) + 1; k > 0; k-- {
					q.Push(at)
					ref = append(ref, at)
				}
			case 4:
				if seed < 2 && r.IntN(40) > 0 {
					continue // seeds 0 and 1 grow long queues, searched through the index
				}
				edge := at - Instant(r.IntN(300))
				if r.IntN(20) == 0 {
					edge = at - Instant(r.Int64N(1<<41))
				}
				var n int64
				ref, n = dropThrough(ref, edge)
				if got := q.DropThrough(edge); got != n {
					t.Fatalf("seed %d step %d: DropThrough(%d) = %d, want %d", seed, step, edge, got, n)
				}
			default:
				edge := at - Instant(r.IntN(400))
				if seed < 2 {
					edge = at - Instant(r.IntN(100_000))
				}
				if len(ref) > 0 && r.IntN(4) == 0 {
					edge = ref[r.IntN(len(ref))] - Instant(r.IntN(2))
				}
				wn, wo := after(edge)
				if n, oldest := q.CountAfter(edge); n != wn || oldest != wo {
					t.Fatalf("seed %d step %d: CountAfter(%d) = %d from %d, want %d from %d", seed, step, edge, n, oldest, wn, wo)
				}
			}
			if step%997 == 0 {
				var runs []Instant
				for at, n := range q.Runs {
					if n < 1 || (len(runs) > 0 && at < runs[len(runs)-1]) {
						t.Fatalf("seed %d step %d: Runs gave %d at %d after %v", seed, step, n, at, runs[max(len(runs)-3, 0):])
					}
					for range n {
						runs = append(runs, at)
					}
				}
				if !slices.Equal(runs, ref) {
					t.Fatalf("seed %d step %d: Runs gave %d instants, want %d (or others)", seed, step, len(runs), len(ref))
				}
				c := q.Clone()
				if c.Bytes() > q.Bytes() {
					t.Fatalf("seed %d step %d: a clone holds %d bytes, the queue %d", seed, step, c.Bytes(), q.Bytes())
				}
				edge := at - 50
				wn, wo := after(edge)
				if n, oldest := c.CountAfter(edge); n != wn || oldest != wo || c.Len() != q.Len() {
					t.Fatalf("seed %d step %d: clone counts %d from %d, want %d from %d", seed, step, n, oldest, wn, wo)
				}
				c.Push(at + 1)
				c.DropThrough(at)
				if q.Len() != int64(len(ref)) {
					t.Fatalf("seed %d step %d: changing a clone changed the queue", seed, step)
				}
			}
		}
	}
}

// Two runs, the usual queue of a quiet client, live in the header: no
// buffer until a third, and the header holds them again once the buffer's
// runs have left.
func TestInstantQueueTwoRunsInTheHeader(t *testing.T) {
	var q InstantQueue
	for range 1000 {
		q.Push(100)
	}
	for range 3 {
		q.Push(160)
	}
	if q.Bytes() != 0 || q.runs != nil {
		t.Fatalf("two runs hold %d bytes beyond the header", q.Bytes())
	}
	if q.Len() != 1003 || q.Oldest() != 100 {
		t.Fatalf("len %d from %d, want 1,003 from 100", q.Len(), q.Oldest())
	}
	if n, oldest := q.CountAfter(99); n != 1003 || oldest != 100 {
		t.Errorf("CountAfter(99) = %d from %d", n, oldest)
	}
	if n, oldest := q.CountAfter(100); n != 3 || oldest != 160 {
		t.Errorf("CountAfter(100) = %d from %d", n, oldest)
	}
	q.Push(170) // a third run: the two before it go to the buffer
	if q.runs == nil || q.Len() != 1004 || q.Oldest() != 100 {
		t.Fatalf("after a third run: len %d from %d", q.Len(), q.Oldest())
	}
	if n := q.DropThrough(100); n != 1000 || q.Oldest() != 160 {
		t.Fatalf("DropThrough(100) dropped %d, oldest now %d", n, q.Oldest())
	}
	if n := q.DropThrough(160); n != 3 || q.Len() != 1 || q.Oldest() != 170 {
		t.Fatalf("DropThrough(160) dropped %d, left %d from %d", n, q.Len(), q.Oldest())
	}
	q.Push(180)
	if q.prev&prevHeld == 0 {
		t.Error("the buffer drained, but the run before the newest went into it")
	}
	// Far apart (2³¹ ms and more), the run before goes to the buffer.
	var far InstantQueue
	far.Push(0)
	far.Push(1 << 31)
	if far.prev&prevHeld != 0 || far.Len() != 2 || far.Oldest() != 0 {
		t.Errorf("instants 2³¹ ms apart: prev %x, len %d from %d", far.prev, far.Len(), far.Oldest())
	}
}

// A run in the header counts at most maxTailN instants: one more at the
// same instant begins a new run, and the queue still counts them all.
func TestInstantQueueRunBeyondItsCount(t *testing.T) {
	var q InstantQueue
	q.Push(7)
	q.n, q.tailN = maxTailN-1, maxTailN-1 // as after that many pushes
	q.Push(7)
	q.Push(7)
	q.Push(7)
	if q.Len() != maxTailN+2 || q.Oldest() != 7 {
		t.Fatalf("len %d from %d, want %d from 7", q.Len(), q.Oldest(), int64(maxTailN)+2)
	}
	if n, _ := q.CountAfter(6); n != maxTailN+2 {
		t.Errorf("CountAfter(6) = %d", n)
	}
	q.Push(8)
	if n, oldest := q.CountAfter(6); n != maxTailN+3 || oldest != 7 {
		t.Errorf("with a third run: CountAfter(6) = %d from %d", n, oldest)
	}
	if n := q.DropThrough(7); n != maxTailN+2 || q.Len() != 1 {
		t.Errorf("DropThrough(7) dropped %d, left %d", n, q.Len())
	}
}
