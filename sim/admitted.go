package sim

import (
	"encoding/binary"
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
// window per client; the oldest of them is looked for in the queue only
// when the count beats the most so far. Clients are the engine's dense ids,
// so a lookup is an index, not a hash.
//
// A client's record is one stretch of words in recs (the layout below):
// the newest run, each limiter's count, and room for the two runs before
// the newest, 64 bytes with the lesson's two limiters tracked, one cache
// line. Most clients hold no more than that in a window (10,000 clients at
// 120 requests a second: 97% of requests), and their requests are recorded
// from the record alone. A client with more spills its older runs into its
// buffer in encs, packed as varints (gap, mask, count), until they have
// all left the window; the record's first room then keeps the oldest
// encoded run's instant.
type admitted struct {
	window algo.Instant
	slots  int // limiters tracked, each a bit of the masks
	stride int // words a client's record takes: recCounts + slots + 2·inlineRuns
	recs   []int64
	encs   []admittedRuns
}

// The words of a client's record: the newest run's instant and its meta
// (its count, its mask, and the record's flags, below), then each
// limiter's count in the window, then inlineRuns runs, oldest first, an
// instant and a meta each (count and mask).
const (
	recTailAt = 0
	recMeta   = 1
	recCounts = 2
)

// inlineRuns is how many runs before the newest a record holds itself.
const inlineRuns = 2

// A meta word: the run's count in its low bits, its mask in the high 32;
// in a record's own meta, also how many inline runs it holds and whether
// it has spilled into its buffer (then it holds none inline, and its first
// inline instant is the oldest encoded run's).
const (
	metaN       = 1<<29 - 1 // a run's count; a longer run continues in a new one
	metaInline  = 3 << 29   // the inline runs held
	metaSpilled = 1 << 31   // the buffer holds runs
	metaMask    = 32        // the mask's shift
)

// admittedRuns is a spilled client's runs before its newest: encoded runs
// data[head:], the first one's gap counting from an instant already
// dropped (its own instant is the record's first inline instant).
type admittedRuns struct {
	data   []byte
	head   int
	lastAt algo.Instant // the newest encoded run's instant
}

func newAdmitted(window time.Duration, slots int) *admitted {
	return &admitted{window: algo.Instant(window / time.Millisecond), slots: slots, stride: recCounts + slots + 2*inlineRuns}
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

// inline is the offset in a record of its i-th inline run.
func (a *admitted) inline(i int) int { return recCounts + a.slots + 2*i }

// record adds a request at t admitted by the limiters in mask (slot bits),
// after dropping what left the window.
func (a *admitted) record(client int32, t algo.Instant, mask uint32) {
	r := a.rec(client)
	a.dropThrough(client, r, t-a.window)
	meta := r[recMeta]
	if n := meta & metaN; n > 0 {
		if t == algo.Instant(r[recTailAt]) && mask == uint32(meta>>metaMask) && n < metaN {
			r[recMeta] = meta + 1
			a.count(r, mask)
			return
		}
		meta = a.keep(client, r, meta)
	}
	r[recTailAt], r[recMeta] = int64(t), meta&(metaInline|metaSpilled)|int64(mask)<<metaMask|1
	a.count(r, mask)
}

// keep moves the newest run before the one about to come: inline while
// there is room, otherwise into the buffer (the inline runs first). It
// returns the record's meta with its flags as they now are.
func (a *admitted) keep(client int32, r []int64, meta int64) int64 {
	run := meta &^ (metaInline | metaSpilled)
	if meta&metaSpilled != 0 {
		a.encs[client].encode(algo.Instant(r[recTailAt]), run)
		return meta
	}
	held := int(meta&metaInline) >> 29
	if held < inlineRuns {
		i := a.inline(held)
		r[i], r[i+1] = r[recTailAt], run
		return meta + 1<<29
	}
	q := &a.encs[client]
	q.data, q.head, q.lastAt = q.data[:0], 0, algo.Instant(r[a.inline(0)])
	for k := range inlineRuns {
		i := a.inline(k)
		q.encode(algo.Instant(r[i]), r[i+1])
	}
	q.encode(algo.Instant(r[recTailAt]), run)
	return meta&^metaInline | metaSpilled
}

// count counts a request for each limiter in mask.
func (a *admitted) count(r []int64, mask uint32) {
	for m := mask; m != 0; m &= m - 1 {
		r[recCounts+bits.TrailingZeros32(m)]++
	}
}

// inWindow is how many requests limiter k admitted to the client in the
// window as of its last record.
func (a *admitted) inWindow(client int32, k int) int64 {
	return a.recs[int(client)*a.stride+recCounts+k]
}

// dropThrough drops the client's runs at or before edge, taking them off
// each limiter's count. When the newest run goes everything does, without
// reading a run.
func (a *admitted) dropThrough(client int32, r []int64, edge algo.Instant) {
	meta := r[recMeta]
	switch {
	case meta&metaN == 0:
		return
	case algo.Instant(r[recTailAt]) <= edge:
		clear(r[recMeta : recCounts+a.slots])
		return
	case meta&metaSpilled != 0:
		if algo.Instant(r[a.inline(0)]) <= edge {
			a.encs[client].dropThrough(r, a.inline(0), edge)
		}
		return
	}
	held := int(meta&metaInline) >> 29
	dropped := 0
	for dropped < held {
		i := a.inline(dropped)
		if algo.Instant(r[i]) > edge {
			break
		}
		drop(r, r[i+1])
		dropped++
	}
	if dropped > 0 {
		copy(r[a.inline(0):], r[a.inline(dropped):a.inline(held)])
		r[recMeta] = meta - int64(dropped)<<29
	}
}

// drop takes a run (its meta: count and mask) off its limiters' counts.
func drop(r []int64, run int64) {
	n := run & metaN
	for m := uint32(run >> metaMask); m != 0; m &= m - 1 {
		r[recCounts+bits.TrailingZeros32(m)] -= n
	}
}

// dropThrough drops the encoded runs at or before edge, the first of which
// is; the instant of the oldest is r[at]. The newest run, after edge,
// stays; when no encoded run does, the record is no longer spilled.
func (q *admittedRuns) dropThrough(r []int64, at int, edge algo.Instant) {
	head := algo.Instant(r[at])
	for {
		_, run, size := q.run(q.head)
		drop(r, run)
		q.head += size
		if q.head == len(q.data) {
			r[recMeta] &^= metaSpilled
			return
		}
		gap, _ := uvarint(q.data[q.head:])
		head += algo.Instant(gap)
		r[at] = int64(head)
		if head > edge {
			return
		}
	}
}

// encode appends the run at (meta run: count and mask) to the buffer.
func (q *admittedRuns) encode(at algo.Instant, run int64) {
	if len(q.data)+3*binary.MaxVarintLen64 > cap(q.data) && q.head >= len(q.data)/2 {
		n := copy(q.data, q.data[q.head:])
		q.data, q.head = q.data[:n], 0
	}
	q.data = binary.AppendUvarint(q.data, uint64(at-q.lastAt))
	q.data = binary.AppendUvarint(q.data, uint64(uint32(run>>metaMask)))
	q.data = binary.AppendUvarint(q.data, uint64(run&metaN-1))
	q.lastAt = at
}

// run decodes the run at off: its gap from the run before, its meta (count
// and mask) and how many bytes it takes.
func (q *admittedRuns) run(off int) (gap int64, run int64, size int) {
	b := q.data[off:]
	g, k1 := uvarint(b)
	m, k2 := uvarint(b[k1:])
	c, k3 := uvarint(b[k1+k2:])
	return int64(g), int64(m)<<metaMask | int64(c+1), k1 + k2 + k3
}

// uvarint is binary.Uvarint with the one-byte case, the usual one, first.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}

// oldest is the instant of the oldest request limiter k admitted to the
// client still in the window as of its last record; one must be held.
func (a *admitted) oldest(client int32, k int) algo.Instant {
	r := a.recs[int(client)*a.stride : int(client+1)*a.stride]
	bit := int64(1) << (metaMask + k)
	meta := r[recMeta]
	if meta&metaSpilled != 0 {
		q := &a.encs[client]
		at := algo.Instant(r[a.inline(0)])
		for off := q.head; off < len(q.data); {
			gap, run, size := q.run(off)
			if off != q.head {
				at += algo.Instant(gap)
			}
			if run&bit != 0 {
				return at
			}
			off += size
		}
	}
	for i := range int(meta&metaInline) >> 29 {
		if j := a.inline(i); r[j+1]&bit != 0 {
			return algo.Instant(r[j])
		}
	}
	return algo.Instant(r[recTailAt])
}

func (a *admitted) clone() *admitted {
	c := *a
	c.recs = append([]int64(nil), a.recs...)
	c.encs = make([]admittedRuns, len(a.encs))
	for i, q := range a.encs {
		if a.recs[i*a.stride+recMeta]&metaSpilled != 0 {
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
