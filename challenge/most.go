package challenge

import "windowlab/algo"

// Part is the share of a Span that lies in one aligned window.
type Part struct {
	Window      algo.Instant // where the aligned window starts
	Count       int64
	First, Last algo.Instant // its first and last request
}

// Span is the most requests in any half-open interval one window long
// [x, x+W), and where they were: one part per aligned window the interval
// meets (one or two). The zero Span holds nothing.
type Span struct {
	Count  int64
	Client string // "" for every client together
	Parts  []Part
}

// First is the span's first request.
func (s Span) First() algo.Instant {
	if len(s.Parts) == 0 {
		return 0
	}
	return s.Parts[0].First
}

// Last is the span's last request.
func (s Span) Last() algo.Instant {
	if len(s.Parts) == 0 {
		return 0
	}
	return s.Parts[len(s.Parts)-1].Last
}

// run is n requests at one instant.
type run struct {
	at algo.Instant
	n  int64
}

// window follows a stream of requests in instant order and keeps, by two
// pointers, those in (t − W, t] for the newest instant t, and the most it
// ever held. Every interval [x, x+W) holding requests can slide right until
// its last request is its last instant, losing none: so the most in any
// interval one window long is the most in (t − W, t] over the requests' t.
type window struct {
	cfg    algo.Config
	w      algo.Instant
	runs   []run // runs[head:] lie in (t − W, t]
	head   int
	count  int64 // the requests in runs[head:]
	split  int   // the first run in t's aligned window (never popped: it lies after t − W)
	after  int64 // the requests of runs[split:]
	client string
	best   Span
}

func newWindow(cfg algo.Config, client string) *window {
	return &window{cfg: cfg, w: algo.Instant(cfg.Window.Milliseconds()), client: client}
}

// drop forgets the requests at or before t − W; t is at least every
// instant added so far.
func (q *window) drop(t algo.Instant) {
	for q.head < len(q.runs) && q.runs[q.head].at <= t-q.w {
		q.count -= q.runs[q.head].n
		q.head++
	}
	q.split = max(q.split, q.head)
	if q.head > 64 && q.head > len(q.runs)/2 {
		n := copy(q.runs, q.runs[q.head:])
		q.runs, q.split, q.head = q.runs[:n], q.split-q.head, 0
	}
}

// inLast is how many requests lie in (t − W, t), before any at t is added,
// and the oldest of them.
func (q *window) inLast(t algo.Instant) (int64, algo.Instant) {
	q.drop(t)
	if q.head == len(q.runs) {
		return 0, 0
	}
	return q.count, q.runs[q.head].at
}

// add records n requests at t, no earlier than any before; it reports
// whether (t − W, t] now holds more than ever before.
func (q *window) add(t algo.Instant, n int64) bool {
	if n <= 0 {
		return false
	}
	q.drop(t)
	switch last := len(q.runs) - 1; {
	case last >= q.head && q.runs[last].at == t:
		q.runs[last].n += n
	default:
		if last < q.head || q.cfg.WindowStart(q.runs[last].at) != q.cfg.WindowStart(t) {
			q.split, q.after = len(q.runs), 0
		}
		q.runs = append(q.runs, run{t, n})
	}
	q.count += n
	q.after += n
	if q.count <= q.best.Count {
		return false
	}
	q.best = Span{Count: q.count, Client: q.client, Parts: q.parts()}
	return true
}

// parts splits what the window holds now at its aligned window's edge.
func (q *window) parts() []Part {
	after := q.after
	end := q.runs[len(q.runs)-1].at
	ps := make([]Part, 0, 2)
	if q.split > q.head {
		ps = append(ps, Part{Window: q.cfg.WindowStart(q.runs[q.head].at), Count: q.count - after,
			First: q.runs[q.head].at, Last: q.runs[q.split-1].at})
	}
	return append(ps, Part{Window: q.cfg.WindowStart(end), Count: after, First: q.runs[q.split].at, Last: end})
}
