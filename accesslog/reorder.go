package accesslog

import (
	"container/heap"
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
}

// queueChunk is the size of one chunk of the queue: small, so a queue that
// empties gives its memory back.
const queueChunk = 64 << 10

// pending is a request waiting in the heap.
type pending struct {
	at     algo.Instant
	seq    int64 // its line: ties keep the file's order
	client int32
}

type pendingHeap []pending

func (h pendingHeap) Len() int { return len(h) }
func (h pendingHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h pendingHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *pendingHeap) Push(x any)   { *h = append(*h, x.(pending)) }
func (h *pendingHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// len is how many requests wait.
func (w *waiting) len() int64 { return w.queued + int64(len(w.late)) }

// add puts a request read at line seq in its place: in the queue when no
// later instant was read before it (newest: the latest read so far, when
// started).
func (w *waiting) add(at algo.Instant, seq int64, client int32, newest algo.Instant, started bool) {
	if started && at < newest {
		heap.Push(&w.late, pending{at: at, seq: seq, client: client})
		return
	}
	if w.queued == 0 {
		w.headAt, w.tailAt = at, at
	}
	// A request takes at most 2 × 10 bytes: start a chunk when that may not fit.
	if len(w.queue) == 0 || len(w.queue[len(w.queue)-1])+2*binary.MaxVarintLen64 > queueChunk {
		w.queue = append(w.queue, make([]byte, 0, queueChunk))
	}
	c := &w.queue[len(w.queue)-1]
	*c = binary.AppendUvarint(*c, uint64(at-w.tailAt))
	*c = binary.AppendUvarint(*c, uint64(client))
	w.tailAt = at
	w.queued++
}

// peek is the queue's first request, without taking it.
func (w *waiting) peek() (at algo.Instant, client int32, size int) {
	data := w.queue[0][w.off:]
	gap, n := binary.Uvarint(data)
	c, m := binary.Uvarint(data[n:])
	return w.headAt + algo.Instant(gap), int32(c), n + m
}

// next takes the earliest waiting request at or before until; false when
// there is none.
func (w *waiting) next(until algo.Instant) (algo.Instant, int32, bool) {
	if w.queued > 0 {
		at, client, size := w.peek()
		if at <= until && (len(w.late) == 0 || at <= w.late[0].at) {
			w.off += size
			w.headAt = at
			w.queued--
			if w.off == len(w.queue[0]) && (len(w.queue) > 1 || w.queued == 0) {
				if len(w.queue) == 1 {
					w.queue[0] = w.queue[0][:0] // the last chunk: kept for the next
				} else {
					w.queue[0] = nil
					w.queue = w.queue[1:]
				}
				w.off = 0
			}
			return at, client, true
		}
	}
	if len(w.late) > 0 && w.late[0].at <= until {
		p := heap.Pop(&w.late).(pending)
		return p.at, p.client, true
	}
	return 0, 0, false
}

// bytes is what the waiting requests hold.
func (w *waiting) bytes() int64 {
	n := int64(cap(w.late)) * int64(pendingBytes)
	for _, c := range w.queue {
		n += int64(cap(c))
	}
	return n
}

// pendingBytes is one request in the heap.
const pendingBytes = 24
