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
	queues []algo.InstantQueue
}

func newAdmittedLog(window time.Duration) admittedLog {
	return admittedLog{window: algo.Instant(window / time.Millisecond)}
}

// admit records an admitted request at t and returns how many the client
// has had admitted in (t − window, t], and the first of them.
func (a *admittedLog) admit(client int32, t algo.Instant) (n int64, first algo.Instant) {
	for int(client) >= len(a.queues) {
		a.queues = append(a.queues, algo.InstantQueue{})
	}
	q := &a.queues[client]
	q.DropThrough(t - a.window)
	q.Push(t)
	return int64(q.Len()), q.Oldest()
}

func (a admittedLog) clone() admittedLog {
	c := admittedLog{window: a.window, queues: make([]algo.InstantQueue, len(a.queues))}
	for i := range a.queues {
		c.queues[i] = a.queues[i].Compact()
	}
	return c
}

// bytes is what the queues hold: 8 bytes a slot, plus each queue's header.
func (a admittedLog) bytes() int64 {
	n := int64(len(a.queues)) * 32
	for i := range a.queues {
		n += int64(a.queues[i].Cap()) * 8
	}
	return n
}
