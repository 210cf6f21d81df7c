package accesslog

import (
	"encoding/binary"

	"windowlab/algo"
)

// waiting are the requests read but not yet kept: those within --reorder
// of the latest time read, which a later line may still go before. Lines
// read in time order, nearly all of them, wait in a queue as the store
// keeps requests (varints of the gap since the one before and the client,
// a few bytes each, in chunks freed as they empty); only a line earlier
// than one read before it waits in the heap (24 bytes). Among equal
// instants the queue's come first: a line joins the heap only when a later
// instant was read before it, and a queued line of its instant was read
// before that one.
type waiting struct {
	queue  [][]byte     // chunks; the first is read from off
	off    int          //
	queued int64        // requests in the queue
	headAt algo.Instant // the instant the queue's first gap counts from
	tailAt algo.Instant // the last queued request's instant
	late   pendingHeap
	spare  []byte // a chunk the queue emptied, written again: a fresh one costs its page faults
	marked bool   // each request carries its line and the server's decision (--compare)
}

// queueChunk is the size of one chunk of the queue: small, so a queue that
// empties gives its memory back.
const queueChunk = 64 << 10

// pending is a request waiting in the heap.
type pending struct {
	at      algo.Instant
	seq     int64 // its line: ties keep the file's order
	client  int32
	verdict Verdict // in client's padding
}

// pendingHeap is a binary heap of requests by (at, seq), in chunks of
// lateChunk: it grows and shrinks a chunk at a time, never copied (a heap
// of 12,500,000 lines grown by append held its old and new arrays at once,
// 675 MB).
type pendingHeap struct {
	chunks [][]pending
	n      int
}

const lateChunk = 4096

func (h *pendingHeap) at(i int) *pending { return &h.chunks[i/lateChunk][i%lateChunk] }

func (h *pendingHeap) less(i, j int) bool {
	a, b := h.at(i), h.at(j)
	return a.at < b.at || a.at == b.at && a.seq < b.seq
}

func (h *pendingHeap) swap(i, j int) { a, b := h.at(i), h.at(j); *a, *b = *b, *a }

// top is the earliest request; the heap must not be empty.
func (h *pendingHeap) top() pending { return h.chunks[0][0] }

func (h *pendingHeap) push(p pending) {
	if h.n == len(h.chunks)*lateChunk {
		h.chunks = append(h.chunks, make([]pending, lateChunk))
	}
	*h.at(h.n) = p
	for i := h.n; i > 0 && h.less(i, (i-1)/2); i = (i - 1) / 2 {
		h.swap(i, (i-1)/2)
	}
	h.n++
}

func (h *pendingHeap) pop() pending {
	p := h.top()
	h.n--
	h.swap(0, h.n)
	for i := 0; ; {
		least, left, right := i, 2*i+1, 2*i+2
		if left < h.n && h.less(left, least) {
			least = left
		}
		if right < h.n && h.less(right, least) {
			least = right
		}
		if least == i {
			break
		}
		h.swap(i, least)
		i = least
	}
	if len(h.chunks) > 1 && h.n <= (len(h.chunks)-2)*lateChunk {
		h.chunks[len(h.chunks)-1] = nil // keep one chunk spare, give back the rest
		h.chunks = h.chunks[:len(h.chunks)-1]
	}
	return p
}

// len is how many requests wait.
func (w *waiting) len() int64 { return w.queued + int64(w.late.n) }

// add puts a request read at line seq in its place: in the queue when no
// later instant was read before it (newest: the latest read so far, when
// started).
func (w *waiting) add(at algo.Instant, seq int64, client int32, v Verdict, newest algo.Instant, started bool) {
	if started && at < newest {
		w.late.push(pending{at: at, seq: seq, client: client, verdict: v})
		return
	}
	if w.queued == 0 {
		w.headAt, w.tailAt = at, at
	}
	// A request takes at most 3 × 10 bytes: start a chunk when that may not fit.
	if len(w.queue) == 0 || len(w.queue[len(w.queue)-1])+3*binary.MaxVarintLen64 > queueChunk {
		c := w.spare
		if c == nil {
			c = make([]byte, 0, queueChunk)
		}
		w.queue, w.spare = append(w.queue, c), nil
	}
	c := &w.queue[len(w.queue)-1]
	*c = binary.AppendUvarint(*c, uint64(at-w.tailAt))
	if w.marked {
		*c = binary.AppendUvarint(*c, uint64(client)<<2|uint64(v))
		*c = binary.AppendUvarint(*c, uint64(seq))
	} else {
		*c = binary.AppendUvarint(*c, uint64(client))
	}
	w.tailAt = at
	w.queued++
}

// peek is the queue's first request, without taking it.
func (w *waiting) peek() (at algo.Instant, q queued, size int) {
	data := w.queue[0][w.off:]
	gap, n := binary.Uvarint(data)
	c, m := binary.Uvarint(data[n:])
	if !w.marked {
		return w.headAt + algo.Instant(gap), queued{client: int32(c)}, n + m
	}
	seq, k := binary.Uvarint(data[n+m:])
	return w.headAt + algo.Instant(gap), queued{client: int32(c >> 2), verdict: Verdict(c & 3), seq: int64(seq)}, n + m + k
}

// queued is a waiting request's client, and with --compare its line and
// the server's decision.
type queued struct {
	client  int32
	verdict Verdict
	seq     int64
}

// next takes the earliest waiting request at or before until; false when
// there is none.
func (w *waiting) next(until algo.Instant) (algo.Instant, queued, bool) {
	if w.queued > 0 {
		at, q, size := w.peek()
		if at <= until && (w.late.n == 0 || at <= w.late.top().at) {
			w.off += size
			w.headAt = at
			w.queued--
			if w.off == len(w.queue[0]) && (len(w.queue) > 1 || w.queued == 0) {
				if len(w.queue) == 1 {
					w.queue[0] = w.queue[0][:0] // the last chunk: kept for the next
				} else {
					w.spare = w.queue[0][:0]
					w.queue[0] = nil
					w.queue = w.queue[1:]
				}
				w.off = 0
			}
			return at, q, true
		}
	}
	if w.late.n > 0 && w.late.top().at <= until {
		p := w.late.pop()
		return p.at, queued{client: p.client, verdict: p.verdict, seq: p.seq}, true
	}
	return 0, queued{}, false
}

// bytes is what the waiting requests hold.
func (w *waiting) bytes() int64 {
	n := int64(len(w.late.chunks)) * lateChunk * pendingBytes
	for _, c := range w.queue {
		n += int64(cap(c))
	}
	return n
}

// pendingBytes is one request in the heap.
const pendingBytes = 24
