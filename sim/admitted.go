package sim

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"
	"unsafe"

	"windowlab/algo"
)

// admitted tracks, per client, the requests each limiter admitted in the
// last window, to find the most admitted in any one-window interval: the
// figure that shows the fixed window's boundary burst, whatever the limiter
// itself remembers.
//
// All the tracked limiters share one queue a client: runs of admitted
// requests at one instant admitted by the same limiters (a bit mask), packed
// as varints (gap, mask, count). Limiters that agree, as they mostly do,
// cost one run between them, and a burst at one instant costs one. Each
// limiter keeps its count in the window per client, and the oldest of them,
// found again from the queue's front when the one it knew leaves. Clients
// are the engine's dense ids, so a lookup is an index, not a hash.
type admitted struct {
	window  algo.Instant
	slots   int // limiters tracked, each a bit of the masks
	clients []admittedRuns
	counts  []int64        // counts[client*slots+k]: admitted by limiter k in the window
	firsts  []algo.Instant // firsts[client*slots+k]: the oldest of them, or unknownFirst
}

// unknownFirst marks a limiter's oldest admitted request as to be found.
const unknownFirst = algo.Instant(math.MinInt64)

// admittedRuns is one client's queue: encoded runs data[head:], then the
// newest run, not encoded yet.
type admittedRuns struct {
	data     []byte
	head     int
	frontAt  algo.Instant // the instant the run at data[head] counts its gap from
	lastAt   algo.Instant // the newest encoded run's instant
	tailAt   algo.Instant
	tailMask uint32
	tailN    int64 // 0 when the queue is empty
}

func newAdmitted(window time.Duration, slots int) *admitted {
	return &admitted{window: algo.Instant(window / time.Millisecond), slots: slots}
}

// record adds a request at t admitted by the limiters in mask (slot bits),
// after dropping what left the window.
func (a *admitted) record(client int32, t algo.Instant, mask uint32) {
	for int(client) >= len(a.clients) {
		a.clients = append(a.clients, admittedRuns{})
		for range a.slots {
			a.counts = append(a.counts, 0)
			a.firsts = append(a.firsts, unknownFirst)
		}
	}
	base := int(client) * a.slots
	counts, firsts := a.counts[base:base+a.slots], a.firsts[base:base+a.slots]
	q := &a.clients[client]
	q.dropThrough(t-a.window, counts, firsts)
	q.push(t, mask)
	for m := mask; m != 0; m &= m - 1 {
		k := bits.TrailingZeros32(m)
		if counts[k]++; counts[k] == 1 {
			firsts[k] = t
		}
	}
}

// inWindow is how many requests limiter k admitted to the client in the
// window as of its last record, and the oldest of them.
func (a *admitted) inWindow(client int32, k int) (n int64, first algo.Instant) {
	i := int(client)*a.slots + k
	if a.counts[i] == 0 {
		return 0, 0
	}
	if a.firsts[i] == unknownFirst {
		a.firsts[i] = a.clients[client].oldest(uint32(1) << k)
	}
	return a.counts[i], a.firsts[i]
}

func (q *admittedRuns) push(t algo.Instant, mask uint32) {
	if q.tailN > 0 && t == q.tailAt && mask == q.tailMask {
		q.tailN++
		return
	}
	if q.tailN > 0 {
		q.encode()
	}
	q.tailAt, q.tailMask, q.tailN = t, mask, 1
}

// encode moves the tail run into the buffer.
func (q *admittedRuns) encode() {
	if q.head == len(q.data) {
		q.data, q.head, q.frontAt, q.lastAt = q.data[:0], 0, q.tailAt, q.tailAt
	} else if len(q.data)+3*binary.MaxVarintLen64 > cap(q.data) && q.head >= len(q.data)/2 {
		n := copy(q.data, q.data[q.head:])
		q.data, q.head = q.data[:n], 0
	}
	q.data = binary.AppendUvarint(q.data, uint64(q.tailAt-q.lastAt))
	q.data = binary.AppendUvarint(q.data, uint64(q.tailMask))
	q.data = binary.AppendUvarint(q.data, uint64(q.tailN-1))
	q.lastAt = q.tailAt
}

// run decodes the run at off, whose gap counts from prev.
func (q *admittedRuns) run(off int, prev algo.Instant) (at algo.Instant, mask uint32, count int64, size int) {
	b := q.data[off:]
	gap, k1 := binary.Uvarint(b)
	m, k2 := binary.Uvarint(b[k1:])
	c, k3 := binary.Uvarint(b[k1+k2:])
	return prev + algo.Instant(gap), uint32(m), int64(c) + 1, k1 + k2 + k3
}

// dropThrough drops the runs at or before edge, taking them off each
// limiter's count; a limiter whose oldest left has it found again later.
func (q *admittedRuns) dropThrough(edge algo.Instant, counts []int64, firsts []algo.Instant) {
	drop := func(mask uint32, n int64) {
		for m := mask; m != 0; m &= m - 1 {
			k := bits.TrailingZeros32(m)
			counts[k] -= n
			firsts[k] = unknownFirst
		}
	}
	for q.head < len(q.data) {
		at, mask, n, size := q.run(q.head, q.frontAt)
		if at > edge {
			return
		}
		drop(mask, n)
		q.head += size
		q.frontAt = at
	}
	if q.tailN > 0 && q.tailAt <= edge {
		drop(q.tailMask, q.tailN)
		q.data, q.head, q.tailN = q.data[:0], 0, 0
	}
}

// oldest is the instant of the oldest run any limiter in bit admitted; one
// must be held.
func (q *admittedRuns) oldest(bit uint32) algo.Instant {
	off, prev := q.head, q.frontAt
	for off < len(q.data) {
		at, mask, _, size := q.run(off, prev)
		if mask&bit != 0 {
			return at
		}
		off += size
		prev = at
	}
	return q.tailAt
}

func (a *admitted) clone() *admitted {
	c := *a
	c.clients = make([]admittedRuns, len(a.clients))
	for i, q := range a.clients {
		q.data = append([]byte(nil), q.data[q.head:]...)
		q.head = 0
		c.clients[i] = q
	}
	c.counts = append([]int64(nil), a.counts...)
	c.firsts = append([]algo.Instant(nil), a.firsts...)
	return &c
}

// bytes is what the tracking holds, headers included.
func (a *admitted) bytes() int64 {
	n := int64(cap(a.clients))*int64(unsafe.Sizeof(admittedRuns{})) + int64(cap(a.counts))*8 + int64(cap(a.firsts))*8
	for i := range a.clients {
		n += int64(cap(a.clients[i].data))
	}
	return n
}

// ownsAdmitted reports whether a limiter's own decisions tell how many it
// admitted to the client in the last window, so the engine need not keep a
// copy: a sliding log that stores only admitted requests holds exactly
// those, and its decision counts them (with the new one, Count + 1).
func ownsAdmitted(l algo.Limiter) bool {
	switch l.(type) {
	case *algo.Fleet, *algo.Racy:
		return false // a server's log holds only the requests it saw; a racy one's, only the writes landed
	}
	return l.Kind() == algo.KindSlidingLog && !l.Config().Rules.CountRejected
}
