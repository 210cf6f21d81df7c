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
// The zero value is an empty queue; a queue whose instants are all equal
// takes no memory beyond its 32-byte header.
type InstantQueue struct {
	runs   *encodedRuns // the runs before the newest, once there are any
	tailAt Instant      // the newest run's instant
	tailN  int64        // instants in the newest run, which is not encoded yet; 0 when empty
	n      int64        // instants held
}

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

// Oldest is the first instant in the queue; the queue must not be empty.
func (q *InstantQueue) Oldest() Instant {
	if r := q.runs; r != nil && r.head < len(r.data) {
		return r.headAt
	}
	return q.tailAt
}

// Push adds t, which must not be before the newest instant held.
func (q *InstantQueue) Push(t Instant) {
	if q.tailN == 0 || t != q.tailAt {
		q.pushRun(t)
		return
	}
	q.tailN++
	q.n++
}

// pushRun starts a new newest run at t, appending the one it ends, if any,
// after the runs already encoded. Push is small enough to inline without it.
func (q *InstantQueue) pushRun(t Instant) {
	at, count := q.tailAt, q.tailN
	q.tailAt, q.tailN = t, 1
	q.n++
	if count == 0 {
		return
	}
	if q.runs == nil {
		q.runs = new(encodedRuns)
	}
	r := q.runs
	if r.head == len(r.data) {
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
// O(1) amortised.
func (q *InstantQueue) DropThrough(edge Instant) int64 {
	var dropped int64
	encodedLeft := false
	if r := q.runs; r != nil {
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
		encodedLeft = head < end
		if x := r.idx; x != nil && dropped > 0 {
			x.dropped += dropped
			for x.first < len(x.marks) && x.marks[x.first].off < r.head {
				x.first++
			}
		}
	}
	if !encodedLeft && q.tailN > 0 && q.tailAt <= edge {
		dropped += q.tailN
		q.tailN = 0
	}
	q.n -= dropped
	if q.n == 0 {
		q.Reset()
	}
	return dropped
}

// CountAfter is how many instants held are after edge, and the oldest of
// them, without dropping the others.
func (q *InstantQueue) CountAfter(edge Instant) (count int64, oldest Instant) {
	if q.n == 0 || q.tailAt <= edge {
		return 0, 0
	}
	r := q.runs
	if r == nil {
		return q.tailN, q.tailAt
	}
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
	return q.tailN, q.tailAt
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

// Reset empties the queue, keeping its room for later pushes.
func (q *InstantQueue) Reset() {
	if r := q.runs; r != nil {
		idx := r.idx
		if idx != nil {
			*idx = runIndex{marks: idx.marks[:0]}
		}
		*r = encodedRuns{data: r.data[:0], idx: idx}
	}
	q.tailN, q.n = 0, 0
}

// Clone is an independent copy of just the runs held, in as little room as
// they need (none beyond the header when they are all at one instant).
func (q *InstantQueue) Clone() InstantQueue {
	c := *q
	c.runs = nil
	r := q.runs
	if q.n == 0 || r == nil || r.head == len(r.data) {
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
