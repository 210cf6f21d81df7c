package sim

import (
	"time"

	"windowlab/algo"
)

// admittedLog tracks, per client, the admitted requests of the last window,
// to find the most admitted in any one-window interval: the figure that shows
// the fixed window's boundary burst, whatever the limiter itself remembers.
// Clients are the engine's dense ids, so a lookup is an index, not a hash.
type admittedLog struct {
	window algo.Instant
	queues []instantQueue
}

type instantQueue struct {
	ts   []algo.Instant
	head int
}

func newAdmittedLog(window time.Duration) admittedLog {
	return admittedLog{window: algo.Instant(window / time.Millisecond)}
}

// admit records an admitted request at t and returns how many the client
// has had admitted in (t − window, t], and the first of them.
func (a *admittedLog) admit(client int32, t algo.Instant) (n int64, first algo.Instant) {
	for int(client) >= len(a.queues) {
		a.queues = append(a.queues, instantQueue{})
	}
	q := &a.queues[client]
	for q.head < len(q.ts) && q.ts[q.head] <= t-a.window {
		q.head++
	}
	if q.head == len(q.ts) {
		q.ts, q.head = q.ts[:0], 0
	} else if len(q.ts) == cap(q.ts) && q.head > 0 {
		k := copy(q.ts, q.ts[q.head:])
		q.ts, q.head = q.ts[:k], 0
	}
	q.ts = append(q.ts, t)
	return int64(len(q.ts) - q.head), q.ts[q.head]
}

func (a admittedLog) clone() admittedLog {
	c := admittedLog{window: a.window, queues: make([]instantQueue, len(a.queues))}
	for i, q := range a.queues {
		if live := q.ts[q.head:]; len(live) > 0 {
			c.queues[i].ts = append([]algo.Instant(nil), live...)
		}
	}
	return c
}

// bytes is what the queues hold: 8 bytes a slot, plus each queue's header.
func (a admittedLog) bytes() int64 {
	n := int64(len(a.queues)) * 32
	for _, q := range a.queues {
		n += int64(cap(q.ts)) * 8
	}
	return n
}
