package algo

import "sort"

// InstantQueue holds instants in the order they were pushed, never
// decreasing, and lets the oldest go once they leave a window: the sliding
// log's timestamps, and the engine's and the lab's record of what was
// admitted in the last window. Dropping from the front only moves an index,
// and the room it frees is reused before the slice grows, so a queue that
// stays about one window long costs O(1) amortised per instant and no
// allocation once it has reached its size.
//
// The zero value is an empty queue.
type InstantQueue struct {
	ts   []Instant
	head int // ts[head:] is the queue
}

// Len is how many instants the queue holds.
func (q *InstantQueue) Len() int { return len(q.ts) - q.head }

// Cap is how many instants the queue has room for without growing: what it
// costs in memory.
func (q *InstantQueue) Cap() int { return cap(q.ts) }

// Oldest is the first instant in the queue; the queue must not be empty.
func (q *InstantQueue) Oldest() Instant { return q.ts[q.head] }

// Push adds t, which must not be before the newest instant held.
func (q *InstantQueue) Push(t Instant) {
	if len(q.ts) == cap(q.ts) && q.head > 0 {
		// Reuse the room left by dropped instants before growing.
		n := copy(q.ts, q.ts[q.head:])
		q.ts, q.head = q.ts[:n], 0
	}
	q.ts = append(q.ts, t)
}

// DropThrough drops every instant at or before edge, and returns how many
// it dropped. Each instant is dropped once, so the scan from the front
// costs O(1) amortised.
func (q *InstantQueue) DropThrough(edge Instant) int {
	first := q.head
	for first < len(q.ts) && q.ts[first] <= edge {
		first++
	}
	dropped := first - q.head
	q.head = first
	if q.head == len(q.ts) {
		q.Reset()
	}
	return dropped
}

// After returns the instants held that are after edge, oldest first,
// without dropping the others: the slice is the queue's own, valid until
// the next Push.
func (q *InstantQueue) After(edge Instant) []Instant {
	live := q.ts[q.head:]
	return live[sort.Search(len(live), func(i int) bool { return live[i] > edge }):]
}

// Reset empties the queue, keeping its room for later pushes.
func (q *InstantQueue) Reset() { q.ts, q.head = q.ts[:0], 0 }

// Clone is an independent copy with the same length, capacity and front, so
// it reports the same memory and grows the same way.
func (q *InstantQueue) Clone() InstantQueue {
	ts := make([]Instant, len(q.ts), cap(q.ts))
	copy(ts, q.ts)
	return InstantQueue{ts: ts, head: q.head}
}

// Compact is an independent copy of just the instants held, in as little
// room as they need (none when empty).
func (q *InstantQueue) Compact() InstantQueue {
	if q.Len() == 0 {
		return InstantQueue{}
	}
	return InstantQueue{ts: append([]Instant(nil), q.ts[q.head:]...)}
}
