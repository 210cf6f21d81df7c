package accesslog

import (
	"sync"

	"windowlab/algo"
	"windowlab/sim"
)

// Tail follows a log while Read reads it (Options.Tail): its Source
// replays the requests put in order so far and waits for more, so a
// replay decides while the reading goes on, one core each, instead of
// after it. Read publishes what it has every few thousand lines and when
// it ends, however it ends.
type Tail struct {
	mu     sync.Mutex
	more   sync.Cond
	seen   tailView
	ended  bool
	stream *stream // set by Stream: the sources' cursors (stream.go)
}

// tailView is what a Tail has published: the store's chunks and the
// clients as they stood (slice headers; the bytes and names they cover
// are never written again), and how many requests they hold.
type tailView struct {
	chunks   [][]byte
	base     int // the chunks released before chunks[0] (stream.go)
	clients  []string
	requests int64
	first    algo.Instant
	last     algo.Instant
	marked   bool // Log.marked
}

// NewTail returns a tail for one reading.
func NewTail() *Tail {
	t := &Tail{}
	t.more.L = &t.mu
	return t
}

// publish makes the log's requests so far visible to the tail's sources.
func (t *Tail) publish(l *Log, ended bool) {
	v := l.view()
	if len(v.chunks) > 0 {
		// The last chunk is still being written past its length: keep
		// its length as it is now, which the header copy already does.
		v.chunks = append([][]byte(nil), v.chunks...)
	}
	t.mu.Lock()
	t.seen, t.ended = v, t.ended || ended
	t.mu.Unlock()
	t.more.Broadcast()
}

// end publishes the log as read and says the reading has ended; l is nil
// when it ended before reading anything.
func (t *Tail) end(l *Log) {
	if l == nil {
		l = &Log{}
	}
	t.publish(l, true)
}

// after waits until more than n requests are published, or the reading
// has ended, and returns what is published.
func (t *Tail) after(n int64) (tailView, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.seen.requests <= n && !t.ended {
		t.more.Wait()
	}
	return t.seen, t.ended
}

// First waits for the log's first request and returns its instant; false
// when the reading ended without one.
func (t *Tail) First() (algo.Instant, bool) {
	v, _ := t.after(0)
	return v.first, v.requests > 0
}

// final waits for the reading to end and returns all it published.
func (t *Tail) final() tailView {
	t.mu.Lock()
	defer t.mu.Unlock()
	for !t.ended {
		t.more.Wait()
	}
	return t.seen
}

// Source replays the log's requests from the first, waiting for the
// reading where it is ahead of it; it ends where the reading ended. Its
// Len and LastBound wait for the end of the reading.
func (t *Tail) Source() sim.Source {
	s := &source{tail: t}
	if t.stream != nil {
		s.cursor = t.stream.add()
	}
	return s
}

// Abandon ends the tail's sources where the reading stands, when the
// reading failed or never began (a file that could not be opened): a
// reading that ended already is left as it is.
func (t *Tail) Abandon() {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.more.Broadcast()
}
