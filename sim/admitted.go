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
// burst at one instant costs one. Clients are the engine's dense ids, so a
// lookup is an index, not a hash.
//
// A client's record is four words, 32 bytes (two clients a cache line): its
// newest run, and the two runs before it, each as its distance back from
// the newest, its mask and its count. Most clients hold no more than that in
// a window (10,000 clients at 120 requests a second: 96% of requests), and
// each limiter's count in the window is then read off the three runs, so a
// request is recorded from the record alone. A client with more spills its
// older runs into a buffer of encs, packed as varints (gap, mask, count),
// which then also keeps each limiter's count, until they have all left the
// window; the record keeps the oldest encoded run's instant and the
// buffer's index meanwhile. Buffers are only the spilled clients' (a few
// hundred of a hundred thousand), taken from free when one is left. The
// oldest request a limiter admitted in the window is looked for only when
// its count beats the most so far.
type admitted struct {
	window algo.Instant
	slots  int // limiters tracked, each a bit of the masks
	recs   []int64
	encs   []admittedRuns // the spilled clients' runs (recRun1 says which)
	free   []int32        // the buffers of encs no client holds now
	// An inline run's word: its distance back from the newest run (30
	// bits: less than a window, at most 7 days), its mask (slots bits),
	// then its count (the rest; a longer run spills).
	inlineMax int64 // the most an inline run counts
}

// The words of a client's record.
const (
	recTailAt = 0 // the newest run's instant
	recMeta   = 1 // its count, the flags below, and its mask in the high 32 bits
	recRun0   = 2 // the oldest inline run; spilled, the oldest encoded run's instant
	recRun1   = 3 // the inline run after it; spilled, its buffer's index in encs
	recWords  = 4
)

const (
	metaN       = 1<<29 - 1 // the newest run's count; a longer run continues in a new one
	metaInline  = 3 << 29   // the inline runs held, 0 to 2
	metaOne     = 1 << 29   // one inline run, in metaInline
	metaSpilled = 1 << 31   // the buffer holds the runs before the newest (none inline)
	metaMask    = 32        // the mask's shift
	runDistance = 1<<30 - 1 // an inline run's distance back from the newest
	runMask     = 30        // the shift of its mask
)

// admittedRuns is a spilled client's runs before its newest: encoded runs
// data[head:], the first one's gap counting from an instant already
// dropped (its own instant is the record's recRun0); and, while spilled,
// each limiter's count in the window.
type admittedRuns struct {
	data   []byte
	head   int
	lastAt algo.Instant // the newest encoded run's instant
	counts []int64
}

func newAdmitted(window time.Duration, slots int) *admitted {
	return &admitted{window: algo.Instant(window / time.Millisecond), slots: slots,
		inlineMax: 1<<(64-runMask-slots) - 1}
}

// rec is the client's record, made (empty) if it is new.
func (a *admitted) rec(client int32) *[recWords]int64 {
	if n := int(client) + 1; n*recWords > len(a.recs) {
		// Grown by a half: append's quarter (past 256 elements) copied and
		// page-faulted five times the final arrays over a replay's first
		// clients, a twentieth of its CPU; a half is three times, within
		// the half more that EstimateBytes allows for growing slices.
		n = max(n, len(a.recs)/recWords*3/2)
		a.recs = append(a.recs, make([]int64, n*recWords-len(a.recs))...)
		a.recs = a.recs[:cap(a.recs)/recWords*recWords]
	}
	return (*[recWords]int64)(a.recs[int(client)*recWords:])
}

// touch loads the client's record ahead of recording (algo.Toucher).
func (a *admitted) touch(client int32) byte {
	if i := int(client) * recWords; i < len(a.recs) {
		return byte(a.recs[i])
	}
	return 0
}

// idle reports whether the client's record holds nothing after edge (then
// dropping what it holds, its buffer freed).
func (a *admitted) idle(client int32, edge algo.Instant) bool {
	if int(client)*recWords >= len(a.recs) {
		return true
	}
	r := a.rec(client)
	if r[recMeta]&metaN != 0 && algo.Instant(r[recTailAt]) > edge {
		return false
	}
	a.dropThrough(r, edge)
	return true
}

// run unpacks an inline run's word.
func (a *admitted) run(w int64) (distance int64, mask uint32, n int64) {
	return w & runDistance, uint32(w>>runMask) & (1<<a.slots - 1), int64(uint64(w) >> (runMask + a.slots))
}

// record adds a request at t admitted by the limiters in mask (slot bits),
// after dropping what left the window.
func (a *admitted) record(client int32, t algo.Instant, mask uint32) {
	r := a.rec(client)
	a.dropThrough(r, t-a.window)
	meta := r[recMeta]
	if n := meta & metaN; n > 0 {
		if t == algo.Instant(r[recTailAt]) && mask == uint32(meta>>metaMask) && n < metaN {
			r[recMeta] = meta + 1
			a.count(r, meta, mask)
			return
		}
		meta = a.keep(r, t, meta)
	}
	r[recTailAt], r[recMeta] = int64(t), meta&(metaInline|metaSpilled)|int64(mask)<<metaMask|1
	a.count(r, meta, mask)
}

// count counts a request for each limiter in mask, in the buffer's counts
// when spilled (inline, the runs are the counts).
func (a *admitted) count(r *[recWords]int64, meta int64, mask uint32) {
	if meta&metaSpilled == 0 {
		return
	}
	counts := a.encs[r[recRun1]].counts
	for m := mask; m != 0; m &= m - 1 {
		counts[bits.TrailingZeros32(m)]++
	}
}

// keep moves the newest run back, before a new one at t: inline while there
// is room (the inline runs' distances then count from t), otherwise into the
// buffer, the inline runs first. It returns the record's meta with its
// flags as they now are.
func (a *admitted) keep(r *[recWords]int64, t algo.Instant, meta int64) int64 {
	tailAt, n, mask := algo.Instant(r[recTailAt]), meta&metaN, uint32(meta>>metaMask)
	if meta&metaSpilled != 0 {
		a.encs[r[recRun1]].encode(tailAt, n, mask)
		return meta
	}
	held := int(meta&metaInline) >> 29
	if held < 2 && n <= a.inlineMax {
		d := int64(t - tailAt)
		if held == 1 {
			r[recRun0] += d // less than a window back from t: no carry out of the distance
		}
		r[recRun0+held] = d | int64(mask)<<runMask | n<<(runMask+a.slots)
		return meta + metaOne
	}
	buf := a.buffer()
	q := &a.encs[buf]
	if q.counts == nil {
		q.counts = make([]int64, a.slots)
	}
	clear(q.counts)
	q.data, q.head, q.lastAt = q.data[:0], 0, tailAt
	first := tailAt
	for i := range held {
		d, m, c := a.run(r[recRun0+i])
		at := tailAt - algo.Instant(d)
		if i == 0 {
			q.lastAt, first = at, at
		}
		q.encode(at, c, m)
		q.add(m, c)
	}
	q.encode(tailAt, n, mask)
	q.add(mask, n)
	r[recRun0], r[recRun1] = int64(first), int64(buf)
	return meta&^metaInline | metaSpilled
}

// buffer is the index of a buffer in encs no client holds: a free one, or
// a new one.
func (a *admitted) buffer() int {
	if k := len(a.free); k > 0 {
		buf := a.free[k-1]
		a.free = a.free[:k-1]
		return int(buf)
	}
	a.encs = append(a.encs, admittedRuns{})
	return len(a.encs) - 1
}

// add counts n requests for each limiter in mask.
func (q *admittedRuns) add(mask uint32, n int64) {
	for m := mask; m != 0; m &= m - 1 {
		q.counts[bits.TrailingZeros32(m)] += n
	}
}

// inWindow is how many requests limiter k admitted to the client in the
// window as of its last record.
func (a *admitted) inWindow(client int32, k int) int64 {
	r := (*[recWords]int64)(a.recs[int(client)*recWords:])
	meta := r[recMeta]
	if meta&metaSpilled != 0 {
		return a.encs[r[recRun1]].counts[k]
	}
	var n int64
	if meta>>(metaMask+k)&1 != 0 {
		n = meta & metaN
	}
	for i := range int(meta&metaInline) >> 29 {
		if _, m, c := a.run(r[recRun0+i]); m>>k&1 != 0 {
			n += c
		}
	}
	return n
}

// dropThrough drops the client's runs at or before edge. When the newest
// run goes everything does, without reading a run.
func (a *admitted) dropThrough(r *[recWords]int64, edge algo.Instant) {
	meta := r[recMeta]
	tailAt := algo.Instant(r[recTailAt])
	switch {
	case meta&metaN == 0:
		return
	case tailAt <= edge:
		if meta&metaSpilled != 0 {
			a.free = append(a.free, int32(r[recRun1]))
		}
		r[recMeta] = 0
		return
	case meta&metaSpilled != 0:
		if buf := r[recRun1]; algo.Instant(r[recRun0]) <= edge && a.encs[buf].dropThrough(r, edge) {
			a.free = append(a.free, int32(buf))
		}
		return
	}
	held := int(meta&metaInline) >> 29
	dropped := 0
	for dropped < held && tailAt-algo.Instant(r[recRun0+dropped]&runDistance) <= edge {
		dropped++
	}
	if dropped > 0 {
		if dropped < held {
			r[recRun0] = r[recRun1]
		}
		r[recMeta] = meta - int64(dropped)*metaOne
	}
}

// dropThrough drops the encoded runs at or before edge, the first of which
// is; the instant of the oldest is r[recRun0]. The newest run, after edge,
// stays; when no encoded run does, the record is no longer spilled, and
// unspilled says so (the buffer is free).
func (q *admittedRuns) dropThrough(r *[recWords]int64, edge algo.Instant) (unspilled bool) {
	head := algo.Instant(r[recRun0])
	for {
		_, mask, n, size := q.run(q.head)
		for m := mask; m != 0; m &= m - 1 {
			q.counts[bits.TrailingZeros32(m)] -= n
		}
		q.head += size
		if q.head == len(q.data) {
			r[recMeta] &^= metaSpilled
			return true
		}
		gap, _ := uvarint(q.data[q.head:])
		head += algo.Instant(gap)
		r[recRun0] = int64(head)
		if head > edge {
			return false
		}
	}
}

// encode appends the run (at, n, mask) to the buffer.
func (q *admittedRuns) encode(at algo.Instant, n int64, mask uint32) {
	if len(q.data)+3*binary.MaxVarintLen64 > cap(q.data) && q.head >= len(q.data)/2 {
		k := copy(q.data, q.data[q.head:])
		q.data, q.head = q.data[:k], 0
	}
	q.data = binary.AppendUvarint(q.data, uint64(at-q.lastAt))
	q.data = binary.AppendUvarint(q.data, uint64(mask))
	q.data = binary.AppendUvarint(q.data, uint64(n-1))
	q.lastAt = at
}

// run decodes the run at off: its gap from the run before, its mask, its
// count and how many bytes it takes.
func (q *admittedRuns) run(off int) (gap int64, mask uint32, n int64, size int) {
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

// oldest is the instant of the oldest request limiter k admitted to the
// client still in the window as of its last record; one must be held.
func (a *admitted) oldest(client int32, k int) algo.Instant {
	r := (*[recWords]int64)(a.recs[int(client)*recWords:])
	meta := r[recMeta]
	tailAt := algo.Instant(r[recTailAt])
	if meta&metaSpilled != 0 {
		q := &a.encs[r[recRun1]]
		at := algo.Instant(r[recRun0])
		for off := q.head; off < len(q.data); {
			gap, m, _, size := q.run(off)
			if off != q.head {
				at += algo.Instant(gap)
			}
			if m>>k&1 != 0 {
				return at
			}
			off += size
		}
		return tailAt
	}
	for i := range int(meta&metaInline) >> 29 {
		if d, m, _ := a.run(r[recRun0+i]); m>>k&1 != 0 {
			return tailAt - algo.Instant(d)
		}
	}
	return tailAt
}

func (a *admitted) clone() *admitted {
	c := *a
	c.recs = append([]int64(nil), a.recs...)
	c.encs, c.free = make([]admittedRuns, 0, len(a.encs)-len(a.free)), nil
	for i := recMeta; i < len(c.recs); i += recWords {
		if c.recs[i]&metaSpilled != 0 {
			buf := &c.recs[i-recMeta+recRun1]
			q := &a.encs[*buf]
			c.encs = append(c.encs, admittedRuns{data: append([]byte(nil), q.data[q.head:]...), lastAt: q.lastAt,
				counts: append([]int64(nil), q.counts...)})
			*buf = int64(len(c.encs) - 1)
		}
	}
	return &c
}

// admittedClientBytes is what the tracking holds for every client, busy or
// not, at most: its record, and (once counted for every client; now only a
// spilled one's) the header of its encoded runs.
const admittedClientBytes = recWords*8 + int64(unsafe.Sizeof(admittedRuns{}))

// bytes is what the tracking holds, headers included.
func (a *admitted) bytes() int64 {
	n := int64(cap(a.recs))*8 + int64(cap(a.encs))*int64(unsafe.Sizeof(admittedRuns{})) + int64(cap(a.free))*4
	for i := range a.encs {
		n += int64(cap(a.encs[i].data)) + int64(cap(a.encs[i].counts))*8
	}
	return n
}

// ownsAdmitted reports whether a limiter's own decisions tell how many it
// admitted to the client in the last window, so the engine need not keep a
// copy: a sliding log that stores only admitted requests holds exactly
// those, and its decision counts them (with the new one, Count + 1).
func ownsAdmitted(l algo.Limiter) bool {
	switch l.(type) {
	case *algo.Fleet, *algo.Racy, *algo.Synced, *algo.Lagged:
		return false // a server's log holds only the requests it saw; a racy one's, only the writes landed
	}
	if withoutStore(l) >= 0 {
		return false // a store's policy admits what its log never held
	}
	return l.Kind() == algo.KindSlidingLog && !l.Config().Rules.CountRejected
}
