package sim

import (
	"time"

	"windowlab/algo"
)

// admittedLog tracks, per client, the admitted requests of the last window,
// to find the most admitted in any one-window interval: the figure that shows
// the fixed window's boundary burst, whatever the limiter itself remembers.
type admittedLog struct {
	window  algo.Instant
	clients map[string]*instantQueue
}

type instantQueue struct {
	ts   []algo.Instant
	head int
}

func newAdmittedLog(window time.Duration) admittedLog {
	return admittedLog{window: algo.Instant(window / time.Millisecond), clients: make(map[string]*instantQueue)}
}

// admit records an admitted request at t and returns how many the client
// has had admitted in (t − window, t], and the first of them.
func (a *admittedLog) admit(client string, t algo.Instant) (n int64, first algo.Instant) {
	q := a.clients[client]
	if q == nil {
		q = &instantQueue{}
		a.clients[client] = q
	}
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
	c := admittedLog{window: a.window, clients: make(map[string]*instantQueue, len(a.clients))}
	for k, q := range a.clients {
		c.clients[k] = &instantQueue{ts: append([]algo.Instant(nil), q.ts[q.head:]...)}
	}
	return c
}
