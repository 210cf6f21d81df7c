package sim

import (
	"time"
	"unsafe"

	"windowlab/algo"
)

// admittedLog tracks, per client, the admitted requests of the last window,
// to find the most admitted in any one-window interval: the figure that shows
// the fixed window's boundary burst, whatever the limiter itself remembers.
// Clients are the engine's dense ids, so a lookup is an index, not a hash;
// each queue stores equal instants as one run.
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
	return q.Len(), q.Oldest()
}

func (a admittedLog) clone() admittedLog {
	if a.queues == nil {
		return a
	}
	c := admittedLog{window: a.window, queues: make([]algo.InstantQueue, len(a.queues))}
	for i := range a.queues {
		c.queues[i] = a.queues[i].Clone()
	}
	return c
}

// bytes is what the queues hold, headers included.
func (a admittedLog) bytes() int64 {
	n := int64(cap(a.queues)) * int64(unsafe.Sizeof(algo.InstantQueue{}))
	for i := range a.queues {
		n += a.queues[i].Bytes()
	}
	return n
}

// ownsAdmitted reports whether a limiter's own decisions tell how many it
// admitted to the client in the last window, so the engine need not keep a
// copy: a sliding log that stores only admitted requests holds exactly
// those, and its decision counts them (with the new one, Count + 1).
func ownsAdmitted(l algo.Limiter) bool {
	return l.Kind() == algo.KindSlidingLog && !l.Config().Rules.CountRejected
}
