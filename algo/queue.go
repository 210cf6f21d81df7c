package algo

import (
	"encoding/binary"
	"sort"
	"unsafe"
)

// InstantQueue holds instants in the order they were pushed, never
// decreasing, and lets the oldest go once they leave a window: the sliding
// log's timestamps, and the engine's and the lab's record of what was
// admitted in the last window.
//
// It stores runs, not instants: every instant pushed again is one more on
// the newest run's count, so a burst of fifty million requests at one
// instant costs a few bytes. Runs are packed as two varints, the gap from
// the run before and the count, so a run costs 2 bytes when instants are
// under 128 ms apart and at most 16 bytes whatever they are. Once the
// buffer passes indexFrom bytes, the first count (CountAfter) indexes every
// 64th run and the queue keeps the index up, so counting the instants after
// an edge is a binary search and a short scan; a queue only pushed and
// dropped through, as the lab's and the expiring log's, keeps none. Dropping from
// the front only moves an offset, and the room it frees is reused before
// the buffer grows, so a queue that stays about one window long costs O(1)
// amortised per instant and no allocation once it has reached its size.
//
// The zero value is an empty queue; a queue of at most two runs (all its
// instants at one or two instants, less than 2³¹ ms apart) takes no memory
// beyond its 32-byte header.
//
// The header holds the newest run, and the one before it while there are
// no others: its distance back from the newest and, implicitly, its count
// (n less the newest's). From a third run on, every run but the newest is
// encoded in the buffer. So the encoded runs hold instants exactly when
// n > tailN and prev is not held; when they hold none their buffer is not
// read (what it holds is stale, kept for its room) and the next run encoded
// starts it afresh. A quiet client's queue, one or two runs in a window, is
// decided, emptied and pushed to without following runs.
type InstantQueue struct {
	runs   *encodedRuns // the runs before the newest, from the third run on
	tailAt Instant      // the newest run's instant
	n      int64        // instants held
	tailN  uint32       // instants in the newest run, which is not encoded; 0 when empty
	prev   uint32       // prevHeld and the run before the newest's distance back from it, when the header holds it
}

// prevHeld marks InstantQueue.prev as holding the run before the newest.
const prevHeld = 1 << 31

// maxTailN is the most instants one run in the header counts; the next
// instant, equal or not, begins a new run.
const maxTailN = 1<<32 - 1

// older is how many instants the queue holds before its newest run.
func (q *InstantQueue) older() int64 { return q.n - int64(q.tailN) }

// prevAt is the instant of the run before the newest, when prev holds it.
func (q *InstantQueue) prevAt() Instant { return q.tailAt - Instant(q.prev&^prevHeld) }

// encodedHold reports whether the encoded runs hold instants.
func (q *InstantQueue) encodedHold() bool { return q.older() > 0 && q.prev&prevHeld == 0 }

// encodedRuns are a queue's runs before its newest.
type encodedRuns struct {
	data    []byte    // data[head:] live, oldest first
	head    int       // offset of the oldest run
	frontAt Instant   // the instant the run at data[head] counts its gap from
	headAt  Instant   // that run's own instant, kept decoded: a decision reads it
	headN   int64     // that run's count and the offset of the run after it,
	headEnd int       // kept decoded too: each run is decoded once
	lastAt  Instant   // the newest encoded run's instant
	idx     *runIndex // once the buffer is longer than a short scan
}

// runIndex marks every runsPerMark-th encoded run, for CountAfter, once the
// buffer holds indexFrom bytes.
type runIndex struct {
	marks   []runMark // marks[first:] are live
	first   int
	since   int   // runs encoded since the last mark
	encoded int64 // instants encoded since the index began, plus those held then
	dropped int64 // encoded instants dropped since the index began
}

// runMark locates one encoded run: its offset, its instant and the one
// before it (from which its gap counts), and how many encoded instants
// came before it, in the index's count.
type runMark struct {
	off      int
	prev, at Instant
	before   int64
}

const runsPerMark = 64

// indexFrom is the buffer length from which runs are indexed: below it a
// scan from the front is as quick, and a million clients with a few dozen
// runs each are spared an index each.
const indexFrom = 1024

// VarintLen is the bytes v takes as an unsigned varint, as runs are packed
// here and in the engine: what the memory estimates count a run at.
func VarintLen(v int64) int {
	var b [binary.MaxVarintLen64]byte
	return binary.PutUvarint(b[:], uint64(max(v, 0)))
}

// maxRunBytes is the most one encoded run takes: two 64-bit varints.
const maxRunBytes = 2 * binary.MaxVarintLen64

// Len is how many instants the queue holds.
func (q *InstantQueue) Len() int64 { return q.n }

// Bytes is the memory the queue holds beyond its own header: its buffer and
// its index, counting their spare room.
func (q *InstantQueue) Bytes() int64 {
	r := q.runs
	if r == nil {
		return 0
	}
	b := int64(unsafe.Sizeof(*r)) + int64(cap(r.data))
	if r.idx != nil {
		b += int64(unsafe.Sizeof(*r.idx)) + int64(cap(r.idx.marks))*int64(unsafe.Sizeof(runMark{}))
	}
	return b
}

// Runs yields the instants held, oldest first, a run of equal ones at a
// time: its instant and how many.
func (q *InstantQueue) Runs(yield func(at Instant, n int64) bool) {
	switch {
	case q.n == 0:
		return
	case q.older() == 0:
	case q.prev&prevHeld != 0:
		if !yield(q.prevAt(), q.older()) {
			return
		}
	default:
		r := q.runs
		for off, prev := r.head, r.frontAt; off < len(r.data); {
			at, c, size := r.run(off, prev)
			if !yield(at, c) {
				return
			}
			off, prev = off+size, at
		}
	}
	yield(q.tailAt, int64(q.tailN))
}

// Oldest is the first instant in the queue; the queue must not be empty.
func (q *InstantQueue) Oldest() Instant {
	switch {
	case q.older() == 0:
		return q.tailAt
	case q.prev&prevHeld != 0:
		return q.prevAt()
	}
	return q.runs.headAt
}

// Push adds t, which must not be before the newest instant held.
func (q *InstantQueue) Push(t Instant) {
	if q.tailN > 0 {
		if t == q.tailAt && q.tailN < maxTailN {
			q.n++
			q.tailN++
			return
		}
		q.keep(t)
	}
	q.n++
	q.tailAt, q.tailN = t, 1
}

// pushN adds k instants at t, which must not be before the newest held.
func (q *InstantQueue) pushN(t Instant, k int64) {
	for k > 0 {
		if q.tailN > 0 && t == q.tailAt && q.tailN < maxTailN {
			add := min(k, maxTailN-int64(q.tailN))
			q.tailN += uint32(add)
			q.n += add
			k -= add
			continue
		}
		q.Push(t)
		k--
	}
}

// keep moves the newest run back, before a new one at t: into the header
// when it is the only run and t is near enough, otherwise into the buffer
// (with the run the header held before it, if any).
func (q *InstantQueue) keep(t Instant) {
	older := q.older()
	if older == 0 {
		if d := uint64(t) - uint64(q.tailAt); d < prevHeld {
			q.prev = prevHeld | uint32(d)
			return
		}
	}
	if q.runs == nil {
		q.runs = new(encodedRuns)
	}
	if q.prev&prevHeld != 0 {
		q.runs.encode(q.prevAt(), older, true)
		q.prev = 0
		q.runs.encode(q.tailAt, int64(q.tailN), false)
		return
	}
	q.runs.encode(q.tailAt, int64(q.tailN), older == 0)
}

// encode appends the run (at, count) after the runs already encoded; fresh
// when no encoded run holds any.
func (r *encodedRuns) encode(at Instant, count int64, fresh bool) {
	if fresh {
		// Nothing encoded is held: start afresh at the front.
		r.data, r.head, r.frontAt, r.lastAt, r.headAt = r.data[:0], 0, at, at, at
		if r.idx != nil {
			*r.idx = runIndex{marks: r.idx.marks[:0]}
		}
	} else if len(r.data)+maxRunBytes > cap(r.data) && r.head >= len(r.data)/2 {
		r.compact()
	}
	off, prev := len(r.data), r.lastAt
	gap, c := uint64(at-prev), uint64(count-1)
	if gap < 1<<14 && c < 0x80 && off+3 <= cap(r.data) {
		// The usual run, a gap under 2^14 ms and a count of at most 128, in
		// two or three bytes written without a branch on which.
		long := uint64(0)
		if gap >= 0x80 {
			long = 1
		}
		second := c
		if long == 1 {
			second = gap >> 7
		}
		b := r.data[off : off+3]
		b[0], b[1], b[2] = byte(gap)|byte(long<<7), byte(second), byte(c)
		r.data = r.data[:off+2+int(long)]
	} else {
		r.data = binary.AppendUvarint(r.data, gap)
		r.data = binary.AppendUvarint(r.data, c)
	}
	r.lastAt = at
	if off == r.head {
		r.headN, r.headEnd = count, len(r.data)
	}
	x := r.idx
	if x == nil {
		return // no index until a count needs one (CountAfter)
	}
	if x.since++; x.since >= runsPerMark {
		x.marks = append(x.marks, runMark{off: off, prev: prev, at: at, before: x.encoded})
		x.since = 0
	}
	x.encoded += count
}

// compact moves the live runs to the front of the buffer, reusing the room
// that dropped runs left.
func (r *encodedRuns) compact() {
	h := r.head
	n := copy(r.data, r.data[h:])
	r.data, r.head, r.headEnd = r.data[:n], 0, r.headEnd-h
	if x := r.idx; x != nil {
		live := copy(x.marks, x.marks[x.first:])
		x.marks, x.first = x.marks[:live], 0
		for i := range x.marks {
			x.marks[i].off -= h
		}
	}
}

// run decodes the run at off, whose gap counts from prev: its instant, its
// count and how many bytes it takes.
func (r *encodedRuns) run(off int, prev Instant) (at Instant, count int64, size int) {
	b := r.data[off:]
	var gap, c uint64
	var k int
	switch {
	case b[0] < 0x80:
		gap, k = uint64(b[0]), 1
	case b[1] < 0x80: // under 2^14 ms: the lab's and most traffic's gaps
		gap, k = uint64(b[0]&0x7f)|uint64(b[1])<<7, 2
	default:
		gap, k = binary.Uvarint(b)
	}
	if b[k] < 0x80 {
		c, size = uint64(b[k]), k+1
	} else {
		var k2 int
		c, k2 = binary.Uvarint(b[k:])
		size = k + k2
	}
	return prev + Instant(gap), int64(c) + 1, size
}

// DropThrough drops every instant at or before edge, and returns how many
// it dropped. Each run is dropped once, so the scan from the front costs
// O(1) amortised; when the newest instant goes, everything does, without a
// scan.
func (q *InstantQueue) DropThrough(edge Instant) int64 {
	if q.tailN == 0 || q.tailAt <= edge {
		dropped := q.n
		q.n, q.tailN, q.prev = 0, 0, 0
		return dropped
	}
	older := q.older()
	switch {
	case older == 0:
		return 0 // the newest run alone, after edge
	case q.prev&prevHeld != 0:
		if q.prevAt() > edge {
			return 0
		}
		q.n, q.prev = int64(q.tailN), 0
		return older
	}
	return q.dropEncoded(edge)
}

// dropEncoded is DropThrough of a queue whose encoded runs hold instants
// and whose newest run stays.
func (q *InstantQueue) dropEncoded(edge Instant) int64 {
	var dropped int64
	if r := q.runs; r.headAt <= edge {
		// The head run kept in locals while runs are dropped.
		head, end, at, n, next, front := r.head, len(r.data), r.headAt, r.headN, r.headEnd, r.frontAt
		for head < end && at <= edge {
			dropped += n
			head, front = next, at
			if head >= end {
				break
			}
			// The next run, decoded inline when it is the usual two or
			// three bytes (a gap under 2^14 ms, a count of at most 128),
			// without a branch on which; by run otherwise.
			if b := r.data[head:cap(r.data)]; len(b) >= 3 {
				long := uint64(b[0] >> 7)
				gap := uint64(b[0]&0x7f) | uint64(b[1]&0x7f)<<7&-long
				c := b[1+long]
				if c < 0x80 && b[1]&byte(long<<7) == 0 {
					at, n, next = front+Instant(gap), int64(c)+1, head+2+int(long)
					continue
				}
			}
			var size int
			at, n, size = r.run(head, front)
			next = head + size
		}
		r.head, r.headAt, r.headN, r.headEnd, r.frontAt = head, at, n, next, front
		if x := r.idx; x != nil {
			x.dropped += dropped
			for x.first < len(x.marks) && x.marks[x.first].off < r.head {
				x.first++
			}
		}
	}
	q.n -= dropped
	return dropped
}

// CountAfter is how many instants held are after edge, and the oldest of
// them, without dropping the others.
func (q *InstantQueue) CountAfter(edge Instant) (count int64, oldest Instant) {
	if q.n == 0 || q.tailAt <= edge {
		return 0, 0
	}
	switch {
	case q.older() == 0:
		return int64(q.tailN), q.tailAt
	case q.prev&prevHeld != 0:
		if at := q.prevAt(); at > edge {
			return q.n, at
		}
		return int64(q.tailN), q.tailAt
	}
	r := q.runs
	if r.idx == nil && len(r.data)-r.head >= indexFrom {
		r.index()
	}
	off, prev, before := r.head, r.frontAt, int64(0)
	if x := r.idx; x != nil && len(x.marks) > x.first {
		live := x.marks[x.first:]
		if i := sort.Search(len(live), func(i int) bool { return live[i].at > edge }); i > 0 {
			m := live[i-1]
			off, prev, before = m.off, m.prev, m.before-x.dropped
		}
	}
	for off < len(r.data) {
		at, c, size := r.run(off, prev)
		if at > edge {
			return q.n - before, at
		}
		before += c
		off += size
		prev = at
	}
	return int64(q.tailN), q.tailAt
}

// index builds the index of the runs held, for a count on a long buffer; the
// queue keeps it up from then on.
func (r *encodedRuns) index() {
	x := &runIndex{}
	for off, prev := r.head, r.frontAt; off < len(r.data); {
		at, c, size := r.run(off, prev)
		if x.since++; x.since >= runsPerMark {
			x.marks = append(x.marks, runMark{off: off, prev: prev, at: at, before: x.encoded})
			x.since = 0
		}
		x.encoded += c
		off += size
		prev = at
	}
	r.idx = x
}

// single reports whether every instant held is the same one (or none is
// held): the queue is then its newest run alone, n instants at at.
func (q *InstantQueue) single() (at Instant, n int64, ok bool) {
	// The run before the newest, held in the header at distance 0, is more
	// of the same instant than one run counts.
	return q.tailAt, q.n, q.older() == 0 || q.prev == prevHeld
}

// setSingle makes q hold n instants, all at at, keeping its room: past
// maxTailN, the rest in the run before the newest, at the same instant.
func (q *InstantQueue) setSingle(at Instant, n int64) {
	q.Reset()
	if n > 0 {
		q.tailAt, q.n, q.tailN = at, n, uint32(min(n, maxTailN))
		if n > maxTailN {
			q.prev = prevHeld
		}
	}
}

// Reset empties the queue, keeping its room for later pushes.
func (q *InstantQueue) Reset() { q.tailN, q.n, q.prev = 0, 0, 0 }

// Clone is an independent copy of just the runs held, in as little room as
// they need (none beyond the header when they are all at one instant).
func (q *InstantQueue) Clone() InstantQueue {
	c := *q
	c.runs = nil
	r := q.runs
	if !q.encodedHold() {
		return c
	}
	cr := *r
	cr.data, cr.head, cr.headEnd = append([]byte(nil), r.data[r.head:]...), 0, r.headEnd-r.head
	if x := r.idx; x != nil {
		cx := *x
		cx.marks, cx.first = make([]runMark, len(x.marks)-x.first), 0
		copy(cx.marks, x.marks[x.first:])
		for i := range cx.marks {
			cx.marks[i].off -= r.head
		}
		cr.idx = &cx
	}
	c.runs = &cr
	return c
}
