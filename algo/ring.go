package algo

import "unsafe"

// InstantRing holds instants in the order they were pushed, never
// decreasing, and lets the oldest go once they leave a window, as an
// InstantQueue does, for a client that is busy: the dense sliding log's
// timestamps (one source at a time, in the lab) and the lab's record of a
// source's requests.
//
// It holds runs of equal instants too, but each run is a fixed 16 bytes
// (its instant and its count) in a ring whose length is a power of two, so
// a push is a store and a drop a load and a comparison, where an
// InstantQueue encodes and decodes varints. The price is room: a run costs
// 16 bytes, not two or three, and the ring up to twice the runs it holds,
// which is why the keyed log and the engine, holding millions of clients'
// queues, keep InstantQueue.
//
// The zero value is an empty ring. The newest run is held in the 32-byte
// header, so a client whose instants are all one (one request, or a burst)
// takes no memory beyond it; the runs before it are in the ring, allocated
// at the second distinct instant and kept, with its room, while the ring is
// reset and used again.
type InstantRing struct {
	older *ringRuns // the runs before the newest, once there were any
	at    Instant   // the newest run's instant
	atN   int64     // instants in the newest run; 0 when the ring is empty
	n     int64     // instants held
}

// ringRuns is a ring of the runs before the newest, oldest first.
type ringRuns struct {
	runs       []instantRun // len a power of two
	head, tail uint         // runs[head&mask], …, runs[(tail−1)&mask] are live
}

// instantRun is count instants at at.
type instantRun struct {
	at    Instant
	count int64
}

// RingRunBytes is what one run of an InstantRing takes in its ring.
const RingRunBytes = int64(unsafe.Sizeof(instantRun{}))

// ringFirstRuns is the room a ring starts with.
const ringFirstRuns = 8

// Len is how many instants the ring holds.
func (q *InstantRing) Len() int64 { return q.n }

// Oldest is the first instant held; the ring must not be empty.
func (q *InstantRing) Oldest() Instant {
	if r := q.older; r != nil && r.head != r.tail {
		return r.runs[r.head&uint(len(r.runs)-1)].at
	}
	return q.at
}

// Push adds t, which must not be before the newest instant held.
func (q *InstantRing) Push(t Instant) {
	q.n++
	if t == q.at && q.atN > 0 {
		q.atN++
		return
	}
	q.newRun(t)
}

// newRun begins a run at t, the newest run before it (if any) moved into
// the ring, which grows when it is full.
func (q *InstantRing) newRun(t Instant) {
	if q.atN == 0 {
		q.at, q.atN = t, 1
		return
	}
	r := q.older
	if r == nil {
		r = &ringRuns{runs: make([]instantRun, ringFirstRuns)}
		q.older = r
	}
	if r.tail-r.head == uint(len(r.runs)) {
		r.grow()
	}
	r.runs[r.tail&uint(len(r.runs)-1)] = instantRun{q.at, q.atN}
	r.tail++
	q.at, q.atN = t, 1
}

// grow doubles the ring's room, its runs moved to the front in order.
func (r *ringRuns) grow() {
	runs := make([]instantRun, 2*len(r.runs))
	m := uint(len(r.runs) - 1)
	n := r.tail - r.head
	for i := range n {
		runs[i] = r.runs[(r.head+i)&m]
	}
	r.runs, r.head, r.tail = runs, 0, n
}

// DropThrough drops every instant at or before edge, and returns how many
// it dropped. Each run is dropped once: O(1) amortised.
func (q *InstantRing) DropThrough(edge Instant) (dropped int64) {
	if q.atN == 0 {
		return 0
	}
	if q.at <= edge {
		// The newest goes, and everything with it, without a scan.
		dropped = q.n
		q.Reset()
		return dropped
	}
	r := q.older
	if r == nil {
		return 0
	}
	h, t := r.head, r.tail
	m := uint(len(r.runs) - 1)
	for h != t {
		x := &r.runs[h&m]
		if x.at > edge {
			break
		}
		dropped += x.count
		h++
	}
	r.head = h
	q.n -= dropped
	return dropped
}

// Reset empties the ring, keeping its room for later pushes.
func (q *InstantRing) Reset() {
	q.n, q.atN = 0, 0
	if r := q.older; r != nil {
		r.head, r.tail = 0, 0
	}
}

// Bytes is the memory the ring holds beyond its own header, counting its
// spare room.
func (q *InstantRing) Bytes() int64 {
	if q.older == nil {
		return 0
	}
	return int64(unsafe.Sizeof(*q.older)) + int64(len(q.older.runs))*RingRunBytes
}
