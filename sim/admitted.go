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
// requests at one instant admitted by the same limiters (a bit mask).
// Limiters that agree, as they mostly do, cost one run between them, and a
// burst at one instant costs one. Each limiter keeps its count in the
// window per client, and the oldest of them, found again from the queue's
// front when the one it knew leaves. Clients are the engine's dense ids, so
// a lookup is an index, not a hash.
//
// A client's record is one stretch of words in recs: its newest run, not
// encoded yet; the instant of its oldest encoded run; and each limiter's
// count and oldest (the layout below). With two limiters tracked, as for
// the lesson's three, it is 64 bytes, one cache line, and a request whose
// client has nothing older in the window, or nothing still in it, is
// recorded from it alone. The runs before the newest are packed as varints
// (gap, mask, count) in the client's buffer in encs, read only while it
// holds some.
type admitted struct {
	window algo.Instant
	slots  int // limiters tracked, each a bit of the masks
	stride int // words a client's record takes: recTallies + 2·slots
	recs   []int64
	encs   []admittedRuns
}

// The words of a client's record.
const (
	recTailAt  = iota // the newest run's instant
	recTailN          // requests in the newest run; 0 when the queue is empty
	recFlags          // the newest run's mask, and encodedLive
	recHeadAt         // the oldest encoded run's instant, while encodedLive
	recTallies        // then, for each limiter k, its count in the window and the oldest of them
)

// encodedLive is set in a record's flags while its encoded runs hold
// requests; without it the buffer's bytes are stale, kept for their room.
const encodedLive = 1 << 32

// unknownFirst marks a limiter's oldest admitted request as to be found.
const unknownFirst = algo.Instant(math.MinInt64)

// admittedRuns is one client's runs before its newest: encoded runs
// data[head:], the first one's gap counting from an instant already
// dropped (its own instant is the record's recHeadAt).
type admittedRuns struct {
	data   []byte
	head   int
	lastAt algo.Instant // the newest encoded run's instant
}

func newAdmitted(window time.Duration, slots int) *admitted {
	return &admitted{window: algo.Instant(window / time.Millisecond), slots: slots, stride: recTallies + 2*slots}
}

// rec is the client's record, made (empty) if it is new.
func (a *admitted) rec(client int32) []int64 {
	if int(client) >= len(a.encs) {
		n := int(client) + 1
		a.encs = append(a.encs, make([]admittedRuns, n-len(a.encs))...)
		a.encs = a.encs[:cap(a.encs)]
		a.recs = append(a.recs, make([]int64, len(a.encs)*a.stride-len(a.recs))...)
	}
	i := int(client) * a.stride
	return a.recs[i : i+a.stride : i+a.stride]
}

// record adds a request at t admitted by the limiters in mask (slot bits),
// after dropping what left the window.
func (a *admitted) record(client int32, t algo.Instant, mask uint32) {
	r := a.rec(client)
	a.dropThrough(client, r, t-a.window)
	if n := r[recTailN]; n > 0 {
		if t == algo.Instant(r[recTailAt]) && mask == uint32(r[recFlags]) {
			r[recTailN] = n + 1
			a.count(r, t, mask)
			return
		}
		a.encs[client].encode(r)
	}
	r[recTailAt], r[recTailN], r[recFlags] = int64(t), 1, r[recFlags]&encodedLive|int64(mask)
	a.count(r, t, mask)
}

// count counts a request at t for each limiter in mask.
func (a *admitted) count(r []int64, t algo.Instant, mask uint32) {
	for m := mask; m != 0; m &= m - 1 {
		k := recTallies + 2*bits.TrailingZeros32(m)
		if r[k]++; r[k] == 1 {
			r[k+1] = int64(t)
		}
	}
}

// inWindow is how many requests limiter k admitted to the client in the
// window as of its last record, and the oldest of them.
func (a *admitted) inWindow(client int32, k int) (n int64, first algo.Instant) {
	r := a.recs[int(client)*a.stride : int(client+1)*a.stride]
	i := recTallies + 2*k
	if r[i] == 0 {
		return 0, 0
	}
	if algo.Instant(r[i+1]) == unknownFirst {
		r[i+1] = int64(a.oldest(client, r, uint32(1)<<k))
	}
	return r[i], algo.Instant(r[i+1])
}

// dropThrough drops the client's runs at or before edge, taking them off
// each limiter's count; a limiter whose oldest left has it found again
// later. When the newest run goes everything does, and when the oldest
// stays nothing does: neither reads the buffer.
func (a *admitted) dropThrough(client int32, r []int64, edge algo.Instant) {
	switch {
	case r[recTailN] == 0:
		return
	case algo.Instant(r[recTailAt]) <= edge:
		for k := recTallies; k < len(r); k += 2 {
			r[k], r[k+1] = 0, int64(unknownFirst)
		}
		r[recTailN], r[recFlags] = 0, 0
		return
	case r[recFlags]&encodedLive == 0 || algo.Instant(r[recHeadAt]) > edge:
		return
	}
	a.encs[client].dropThrough(r, edge)
}

// drop takes n requests admitted by the limiters in mask off their counts.
func drop(r []int64, mask uint32, n int64) {
	for m := mask; m != 0; m &= m - 1 {
		k := recTallies + 2*bits.TrailingZeros32(m)
		r[k] -= n
		r[k+1] = int64(unknownFirst)
	}
}

// dropThrough drops the encoded runs at or before edge, the first of which
// is; the newest run, after edge, stays.
func (q *admittedRuns) dropThrough(r []int64, edge algo.Instant) {
	at := algo.Instant(r[recHeadAt])
	for {
		_, mask, n, size := q.run(q.head)
		drop(r, mask, n)
		q.head += size
		if q.head == len(q.data) {
			r[recFlags] &^= encodedLive
			return
		}
		gap, _ := uvarint(q.data[q.head:])
		at += algo.Instant(gap)
		r[recHeadAt] = int64(at)
		if at > edge {
			return
		}
	}
}

// encode moves the record's newest run into the buffer.
func (q *admittedRuns) encode(r []int64) {
	at := algo.Instant(r[recTailAt])
	if r[recFlags]&encodedLive == 0 {
		q.data, q.head, q.lastAt = q.data[:0], 0, at
		r[recHeadAt] = int64(at)
		r[recFlags] |= encodedLive
	} else if len(q.data)+3*binary.MaxVarintLen64 > cap(q.data) && q.head >= len(q.data)/2 {
		n := copy(q.data, q.data[q.head:])
		q.data, q.head = q.data[:n], 0
	}
	q.data = binary.AppendUvarint(q.data, uint64(at-q.lastAt))
	q.data = binary.AppendUvarint(q.data, uint64(uint32(r[recFlags])))
	q.data = binary.AppendUvarint(q.data, uint64(r[recTailN]-1))
	q.lastAt = at
}

// run decodes the run at off: its gap from the run before, its mask, its
// count and how many bytes it takes.
func (q *admittedRuns) run(off int) (gap int64, mask uint32, count int64, size int) {
	b := q.data[off:]
	g, k1 := uvarint(b)
	m, k2 := uvarint(b[k1:])
	c, k3 := uvarint(b[k1+k2:])
	return int64(g), uint32(m), int64(c) + 1, k1 + k2 + k3
}

// uvarint is binary.Uvarint with the one-byte case, the usual one, first.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// oldest is the instant of the client's oldest run any limiter in bit
// admitted; one must be held.
func (a *admitted) oldest(client int32, r []int64, bit uint32) algo.Instant {
	if r[recFlags]&encodedLive != 0 {
		q := &a.encs[client]
		at := algo.Instant(r[recHeadAt])
		for off := q.head; off < len(q.data); {
			gap, mask, _, size := q.run(off)
			if off != q.head {
				at += algo.Instant(gap)
			}
			if mask&bit != 0 {
				return at
			}
			off += size
		}
	}
	return algo.Instant(r[recTailAt])
}

func (a *admitted) clone() *admitted {
	c := *a
	c.recs = append([]int64(nil), a.recs...)
	c.encs = make([]admittedRuns, len(a.encs))
	for i, q := range a.encs {
		if r := a.recs[i*a.stride:]; r[recFlags]&encodedLive != 0 {
			c.encs[i] = admittedRuns{data: append([]byte(nil), q.data[q.head:]...), lastAt: q.lastAt}
		}
	}
	return &c
}

// bytes is what the tracking holds, headers included.
func (a *admitted) bytes() int64 {
	n := int64(cap(a.recs))*8 + int64(cap(a.encs))*int64(unsafe.Sizeof(admittedRuns{}))
	for i := range a.encs {
		n += int64(cap(a.encs[i].data))
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
