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
// A ring that would pass RingMaxRuns runs (1 MiB) moves what it holds to
// an InstantQueue, gives up its room, and goes on as the queue until it is
// reset: a source whose window holds millions of distinct instants (a
// week's window at a billion requests) then costs varints, two or three
// bytes a run, as before rings.
//
// The zero value is an empty ring. The newest run is held in the 32-byte
// header, so a client whose instants are all one (one request, or a burst)
// takes no memory beyond it; the runs before it are in the ring, allocated
// at the second distinct instant and kept, with its room, while the ring is
// reset and used again.
type InstantRing struct {
	older *ringRuns // the runs before the newest, once there were any
	at    Instant   // the newest run's instant, when n > 0
	atN   int64     // instants in the newest run, when n > 0
	n     int64     // instants held; none in the ring when 0
}

// ringRuns is a ring of the runs before the newest, oldest first.
type ringRuns struct {
	runs       []instantRun  // len a power of two
	head, tail uint          // runs[head&mask], …, runs[(tail−1)&mask] are live
	big        *InstantQueue // once spilled: every instant held, the ring unused
}

// RingMaxRuns is the most runs a ring holds before it spills into a queue.
const RingMaxRuns = 1 << 16

// ringMaxRuns is RingMaxRuns; tests lower it.
var ringMaxRuns uint = RingMaxRuns

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
	if b := q.spilled(); b != nil {
		return b.Oldest()
	}
	if r := q.older; r != nil && r.head != r.tail {
		return r.runs[r.head&uint(len(r.runs)-1)].at
	}
	return q.at
}

// Push adds t, which must not be before the newest instant held.
func (q *InstantRing) Push(t Instant) {
	if b := q.spilled(); b != nil {
		b.Push(t)
		q.n++
		return
	}
	c := q.open()
	if t != c.at {
		if !q.fits(1) {
			q.spill(&c)
			q.Push(t)
			return
		}
		c.reserve(1)
	}
	c.push(t)
	q.close(&c)
}

// DropThrough drops every instant at or before edge, and returns how many
// it dropped. Each run is dropped once: O(1) amortised.
func (q *InstantRing) DropThrough(edge Instant) int64 {
	if b := q.spilled(); b != nil {
		dropped := b.DropThrough(edge)
		q.n -= dropped
		return dropped
	}
	c := q.open()
	dropped := c.dropThrough(edge)
	q.close(&c)
	return dropped
}

// Reset empties the ring, keeping its room for later pushes.
func (q *InstantRing) Reset() {
	q.n = 0
	if r := q.older; r != nil {
		r.head, r.tail, r.big = 0, 0, nil
	}
}

// spilled is the queue the ring moved into, or nil.
func (q *InstantRing) spilled() *InstantQueue {
	if r := q.older; r != nil {
		return r.big
	}
	return nil
}

// spill moves what the ring holds, its state in c, into a queue, which
// holds every instant from now until Reset. The ring's room goes: a queue
// this long is what a ring would take too much room for.
//
//go:noinline // rare: kept out of the loops that reserve
func (q *InstantRing) spill(c *ringCursor) {
	q.close(c)
	if q.older == nil {
		q.older = new(ringRuns)
	}
	b := new(InstantQueue)
	if c.n > 0 {
		m := uint(len(c.runs) - 1)
		for i := c.head; i != c.tail; i++ {
			b.pushN(c.runs[i&m].at, c.runs[i&m].count)
		}
		b.pushN(c.at, c.atN)
	}
	q.older.runs, q.older.head, q.older.tail, q.older.big = nil, 0, 0, b
}

// Bytes is the memory the ring holds beyond its own header, counting its
// spare room.
func (q *InstantRing) Bytes() int64 {
	if q.older == nil {
		return 0
	}
	b := int64(unsafe.Sizeof(*q.older)) + int64(len(q.older.runs))*RingRunBytes
	if q.older.big != nil {
		b += int64(unsafe.Sizeof(*q.older.big)) + q.older.big.Bytes()
	}
	return b
}

// ringCursor is a ring's state taken out of it (open) into a caller's
// locals for a loop of pushes and drops without a call, and put back
// (close): the dense log's block of a source's requests. Push and
// DropThrough are the same operations, one at a time.
type ringCursor struct {
	runs       []instantRun // the ring's, nil before it has one
	head, tail uint
	at         Instant
	atN, n     int64
}

func (q *InstantRing) open() ringCursor {
	c := ringCursor{at: q.at, atN: q.atN, n: q.n}
	if r := q.older; r != nil {
		c.runs, c.head, c.tail = r.runs, r.head, r.tail
	}
	return c
}

func (q *InstantRing) close(c *ringCursor) {
	q.at, q.atN, q.n = c.at, c.atN, c.n
	if c.runs != nil {
		if q.older == nil {
			q.older = new(ringRuns)
		}
		q.older.runs, q.older.head, q.older.tail = c.runs, c.head, c.tail
	}
}

// push adds t, which must not be before the newest instant held; the ring
// must have room for one more run (reserve).
func (c *ringCursor) push(t Instant) {
	c.tail, c.at, c.atN, c.n = ringPush(c.runs, c.tail, c.at, c.atN, c.n, t)
}

// dropThrough drops every instant at or before edge, and returns how many
// it dropped.
func (c *ringCursor) dropThrough(edge Instant) int64 {
	n := c.n
	c.head, c.n = ringDrop(c.runs, c.head, c.tail, c.at, c.n, edge)
	return n - c.n
}

// ringPush is push on a ring's state in a caller's locals (a cursor's
// fields, or the dense log's loop's: a struct of six is kept in memory, six
// locals in registers): it returns the new tail, the newest run and the
// count held.
func ringPush(runs []instantRun, tail uint, at Instant, atN, n int64, t Instant) (uint, Instant, int64, int64) {
	if n > 0 {
		if t == at {
			return tail, at, atN + 1, n + 1
		}
		// The newest run moves into the ring.
		runs[tail&uint(len(runs)-1)] = instantRun{at, atN}
		tail++
	}
	return tail, t, 1, n + 1
}

// ringDrop is dropThrough on a ring's state in a caller's locals: the
// ring's runs go, oldest first, while they are at or before edge, then the
// newest run (at) when the ring is left empty and it is too. It returns the
// new head and the count left.
func ringDrop(runs []instantRun, head, tail uint, at Instant, n int64, edge Instant) (uint, int64) {
	m := uint(len(runs) - 1)
	for head != tail && runs[head&m].at <= edge {
		n -= runs[head&m].count
		head++
	}
	if head == tail && at <= edge {
		n = 0 // the newest goes too, and with it everything (nothing when empty)
	}
	return head, n
}

// fits reports whether the ring, not spilled, can make room for k more
// runs without passing RingMaxRuns.
func (q *InstantRing) fits(k int) bool {
	r := q.older
	if r == nil {
		return uint(k) <= ringMaxRuns
	}
	return r.big == nil && r.tail-r.head+uint(k) <= ringMaxRuns
}

// reserve makes room in the ring for k more runs, so that a loop of k
// pushes needs no room made; the ring fits them (fits).
func (c *ringCursor) reserve(k int) {
	if c.n == 0 {
		k-- // the first push begins the newest run, in the header
	}
	if k > 0 && c.tail-c.head+uint(k) > uint(len(c.runs)) {
		c.grow(k)
	}
}

// grow makes the ring's room (its first, or twice, as often as it takes) a
// power of two that holds k more runs, its runs moved to the front in order.
//
//go:noinline // rare: kept out of the loops that reserve
func (c *ringCursor) grow(k int) {
	n := c.tail - c.head
	size := max(uint(len(c.runs)), ringFirstRuns)
	for size < n+uint(k) {
		size *= 2
	}
	runs := make([]instantRun, size)
	if n > 0 {
		m := uint(len(c.runs) - 1)
		for i := range n {
			runs[i] = c.runs[(c.head+i)&m]
		}
	}
	c.runs, c.head, c.tail = runs, 0, n
}
