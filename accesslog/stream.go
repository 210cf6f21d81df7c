package accesslog

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// A streaming Tail (Stream) keeps only the requests some source has still
// to read: Read drops a chunk of the store once every source has read past
// it, and waits when it holds more than aheadChunks chunks beyond the
// slowest source, so that a replay holds the clients and the limiters'
// state, never the log. Its sources are all made before the reading
// starts (a source made later would find the first requests gone), and
// each says when it is done with Close.

// aheadChunks is how many chunks of the store the reading may hold from
// the slowest source's on: half a megabyte, some 160,000 requests,
// whatever the log's length.
const aheadChunks = 4

// stream is a streaming Tail's sources' cursors and what was released.
type stream struct {
	mu      sync.Mutex
	cursors []*cursor
	moved   chan struct{} // a source moved to a later chunk, or closed
	peak    atomic.Int64  // the most chunks held at once (Peak)
}

// cursor is the chunk one source reads, of the whole log's; closedCursor
// when it reads no more.
type cursor struct {
	chunk atomic.Int64
	s     *stream
}

const closedCursor = math.MaxInt64

// Stream makes the tail's reading drop the requests every source has
// read (see stream above): call it, and make every source, before Read.
// Read then keeps no request for after it: the Log it returns has no
// Source, and no limit on its requests.
func (t *Tail) Stream() {
	t.stream = &stream{moved: make(chan struct{}, 1)}
}

// streaming says whether the reading drops what was read (a nil Tail:
// no).
func (t *Tail) streaming() bool { return t != nil && t.stream != nil }

// PeakChunks is the most chunks of the store a streaming tail's reading
// held at once, and the bytes they came to.
func (t *Tail) PeakChunks() (chunks int, bytes int64) {
	n := t.stream.peak.Load()
	return int(n), n * int64(ChunkSize)
}

func (st *stream) add() *cursor {
	c := &cursor{s: st}
	st.mu.Lock()
	st.cursors = append(st.cursors, c)
	st.mu.Unlock()
	return c
}

// nudge wakes a reading waiting for the sources.
func (st *stream) nudge() {
	select {
	case st.moved <- struct{}{}:
	default:
	}
}

// lowest is the chunk of the slowest source still reading.
func (st *stream) lowest() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	low := int64(closedCursor)
	for _, c := range st.cursors {
		low = min(low, c.chunk.Load())
	}
	return low
}

// moved records that the source reads a later chunk.
func (s *source) moved() {
	s.cursor.chunk.Store(int64(s.chunk))
	s.cursor.s.nudge()
}

// Close says the source reads no more: the reading no longer keeps the
// requests for it. A source of a tail that does not stream ignores it.
func (s *source) Close() {
	if s.cursor != nil {
		s.cursor.chunk.Store(closedCursor)
		s.cursor.s.nudge()
		s.cursor = nil
	}
}

// hold, on a streaming tail, drops the chunks every source has read past,
// then waits while the log holds more than aheadChunks chunks from the
// slowest source's on (its deciding is behind the reading), until it
// catches up or interrupt says stop. Read's goroutine calls it just after
// publish; the chunks it drops are no longer in the views it publishes.
func (t *Tail) hold(l *Log, interrupt func() bool) {
	st := t.stream
	if st == nil {
		return
	}
	var wait *time.Timer
	for {
		st.release(l)
		if len(l.chunks) <= aheadChunks+1 {
			break
		}
		if interrupt != nil && interrupt() {
			break
		}
		if wait == nil {
			wait = time.NewTimer(50 * time.Millisecond)
		} else {
			wait.Reset(50 * time.Millisecond) // to ask interrupt again
		}
		select {
		case <-st.moved:
		case <-wait.C:
		}
	}
	if wait != nil {
		wait.Stop()
	}
	st.peak.Store(max(st.peak.Load(), int64(len(l.chunks))))
}

// newChunk is an empty chunk for the store: one a streaming reading
// released, written over (no source reads a chunk before the slowest's
// again: nor a Clone, which the engine keeps and never reads), or a new
// one.
func (l *Log) newChunk() []byte {
	if n := len(l.spare); n > 0 {
		c := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return c
	}
	return make([]byte, 0, ChunkSize)
}

// release drops the chunks before the slowest source's (the one being
// written stays).
func (st *stream) release(l *Log) {
	low := st.lowest()
	n := int(min(low-int64(l.chunkBase), int64(len(l.chunks)-1)))
	if n <= 0 {
		return
	}
	for i, c := range l.chunks[:n] {
		if len(l.spare) < aheadChunks+2 {
			l.spare = append(l.spare, c[:0])
		}
		l.chunks[i] = nil
	}
	l.chunks = l.chunks[n:]
	l.chunkBase += n
}
