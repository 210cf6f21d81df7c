package algo

import (
	"math/rand/v2"
	"testing"

	"windowlab/internal/long"
)

// The ring holds what a slice of every instant pushed holds, through random
// pushes (bursts of one instant, small steps, huge gaps), drops at random
// edges (some far back, some past everything) and resets, on rings that
// grow long and rings that stay short.
func TestInstantRingAgainstASlice(t *testing.T) { ringsThenSpills(t, 100, ringAgainstASlice) }

// ringsThenSpills runs test as it is, then with rings that spill into
// queues past most runs.
func ringsThenSpills(t *testing.T, most uint, test func(*testing.T)) {
	t.Run("rings", test)
	t.Run("spilled", func(t *testing.T) {
		was := ringMaxRuns
		ringMaxRuns = most
		t.Cleanup(func() { ringMaxRuns = was })
		test(t)
	})
}

func ringAgainstASlice(t *testing.T) {
	steps := long.N(60_000, 600_000)
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 3))
		var q InstantRing
		var ref []Instant
		at := Instant(-1 << 40)
		for step := range steps {
			if q.Len() != int64(len(ref)) || (len(ref) > 0 && q.Oldest() != ref[0]) {
				t.Fatalf("seed %d step %d: len %d, want %d", seed, step, q.Len(), len(ref))
			}
			switch r.IntN(10) {
			case 0, 1, 2, 3, 4:
				switch r.IntN(12) {
				case 0:
					if at < 1<<61 {
						at += Instant(r.Int64N(1 << 60)) // a huge gap, kept from overflowing
					}
				case 1:
					at += Instant(r.IntN(100_000))
				case 2, 3, 4:
					// the same instant again
				default:
					at += Instant(r.IntN(3))
				}
				k := r.IntN(3) + 1
				if r.IntN(50) == 0 {
					k = 300 + r.IntN(1000) // a burst
				}
				for range k {
					q.Push(at)
					ref = append(ref, at)
				}
			case 5, 6, 7, 8:
				// Seeds 0-2 let the ring grow long: they drop rarely.
				if seed < 3 && r.IntN(30) > 0 {
					continue
				}
				edge := at - Instant(r.IntN(300))
				switch r.IntN(20) {
				case 0:
					edge = at - Instant(r.Int64N(1<<61))
				case 1:
					edge = at + Instant(r.IntN(3)) // past everything, or at the newest
				case 2:
					if len(ref) > 0 {
						edge = ref[r.IntN(len(ref))] - Instant(r.IntN(2))
					}
				}
				var n int64
				ref, n = dropThrough(ref, edge)
				if got := q.DropThrough(edge); got != n {
					t.Fatalf("seed %d step %d: DropThrough(%d) = %d, want %d", seed, step, edge, got, n)
				}
			default:
				if r.IntN(200) == 0 {
					q.Reset()
					ref = ref[:0]
				}
			}
		}
	}
}

// A ring that stays about a window long reuses its room: it stops growing
// however many instants pass through it, and a reset keeps the room.
func TestInstantRingReusesRoom(t *testing.T) {
	var q InstantRing
	most := throughAWindow(&q)
	if q.Len() != 1000 || q.Bytes() > most || most > 2*1000*RingRunBytes+64 {
		t.Errorf("len %d, %d bytes: want 1,000 held in the %d bytes it had at 10,000 pushes, at most twice the runs", q.Len(), q.Bytes(), most)
	}
	q.Reset()
	if q.Len() != 0 || q.Bytes() != most {
		t.Errorf("after Reset: len %d, %d bytes, want 0 in %d", q.Len(), q.Bytes(), most)
	}
	if n := q.DropThrough(1 << 62); n != 0 {
		t.Errorf("an empty ring dropped %d", n)
	}
}

// A ring past RingMaxRuns runs moves into a queue: it gives up its room,
// and what it holds costs varints; Reset makes it a ring again.
func TestInstantRingSpillsIntoAQueue(t *testing.T) {
	var q InstantRing
	n := 3 * RingMaxRuns
	for i := range n {
		q.Push(Instant(2 * i)) // distinct instants: a run each
	}
	if q.Len() != int64(n) || q.spilled() == nil || q.Bytes() > int64(n)*3+1024 {
		t.Fatalf("%d distinct instants: len %d, spilled %v, %d bytes, want at most 3 a run", n, q.Len(), q.spilled() != nil, q.Bytes())
	}
	if got := q.DropThrough(Instant(2 * (n - 10))); got != int64(n-9) || q.Len() != 9 || q.Oldest() != Instant(2*(n-9)) {
		t.Fatalf("after the drop: %d dropped, len %d, oldest %d", got, q.Len(), q.Oldest())
	}
	q.Reset()
	q.Push(1)
	q.Push(2)
	if q.spilled() != nil || q.Len() != 2 || q.Oldest() != 1 {
		t.Errorf("after Reset: spilled %v, len %d, oldest %d", q.spilled() != nil, q.Len(), q.Oldest())
	}
}

// Equal instants are one run, held in the header: a burst of a million, or
// one request, takes no room beyond it.
func TestInstantRingBurstIsOneRun(t *testing.T) {
	var q InstantRing
	for range 1_000_000 {
		q.Push(7)
	}
	if q.Len() != 1_000_000 || q.Bytes() != 0 || q.Oldest() != 7 {
		t.Errorf("a burst: len %d, %d bytes, oldest %d", q.Len(), q.Bytes(), q.Oldest())
	}
	q.Push(8)
	if n := q.DropThrough(7); n != 1_000_000 || q.Len() != 1 || q.Oldest() != 8 {
		t.Errorf("dropping the burst: %d dropped, len %d, oldest %d", n, q.Len(), q.Oldest())
	}
}
