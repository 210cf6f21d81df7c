package accesslog

import (
	"math"
	"time"

	"windowlab/algo"
)

// Usage is what a log holds in memory as it is read, in bytes, and the
// traffic it has put in order so far, which a replay's engines will hold
// state for: what a memory budget counts (Options.Check).
type Usage struct {
	Lines int64 // lines read
	// Keys are the clients' keys and their index; Store the requests kept;
	// Waiting the requests waiting to be put in order (Options.Reorder).
	// (Like the reader's buffers, a parallel reading's few blocks of lines
	// read ahead, some 0.5 MB a worker, are not counted: they are the same
	// whatever the log.)
	Keys, Store, Waiting int64
	Clients              int64
	Requests             int64   // kept so far
	Runs                 int64   // distinct (client, instant) pairs kept
	Sequences            int64   // runs of one client's requests at one instant, one after another (what --save writes a line each)
	RunsInWindow         []int64 // for each of Options.Windows, at most in any one window
	Span                 int64   // ms from the first request kept to the last
	KeyBytes             int     // the longest key
}

// Bytes is all the log holds.
func (u Usage) Bytes() int64 { return u.Keys + u.Store + u.Waiting }

// indexEntryBytes is a client's entry in the index from key to number: a
// Go map's slot of a string and an int32 (24 bytes and a control byte)
// at the lowest load its tables keep, 7/16.
const indexEntryBytes = 58

// allocBytes is what the allocator gives a string of n bytes: its size
// class (keys are cut at 1 KiB; past that, a rounding that errs high).
func allocBytes(n int) int64 {
	if n == 0 {
		return 0
	}
	for _, c := range sizeClasses {
		if n <= c {
			return int64(c)
		}
	}
	return int64(n + n/8 + 8)
}

// sizeClasses are Go's allocation sizes up to 1 KiB (runtime/sizeclasses.go).
var sizeClasses = []int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024}

// runCount counts distinct (client, instant) pairs in windows of one
// length: any window of that length lies within two neighbouring aligned
// ones, so the most in two neighbours bounds the most in any one.
type runCount struct {
	width      algo.Instant
	at         algo.Instant // the aligned window counted now
	now, prior int64        // its runs, and the window just before's
	most       int64
}

func (r *runCount) add(t algo.Instant) {
	start := t - t%r.width // instants are dated: positive
	switch {
	case start == r.at:
		r.now++
	case start == r.at+r.width:
		r.prior, r.now = r.now, 1
	default:
		r.prior, r.now = 0, 1
	}
	r.at = start
	r.most = max(r.most, r.prior+r.now)
}

// counting sets up the counts of runs in each window of opts.
func (l *Log) counting(windows []time.Duration) {
	for _, w := range windows {
		l.windows = append(l.windows, runCount{width: max(algo.Instant(w/time.Millisecond), 1), at: math.MinInt64})
	}
}

// kept counts a request kept, of client at t, in the runs. Requests are
// kept in time order (a line further back than --reorder is left out), so
// a client's request starts a new run unless the client already has one
// at t, among the clients kept at t so far: a bit a client, cleared when
// the instant moves on. A client's own latest instant, read at each
// request instead, was a cache miss a line with many clients.
func (l *Log) kept(client int32, t algo.Instant) {
	if l.Requests == 1 || client != l.lastClient || t != l.last {
		l.sequences++
	}
	l.lastClient = client
	if l.Requests == 1 || t != l.last {
		for _, c := range l.atLast {
			l.seenAtLast[c>>6] = 0
		}
		l.atLast = l.atLast[:0]
	}
	w, bit := client>>6, uint64(1)<<(client&63)
	if l.seenAtLast[w]&bit != 0 {
		return
	}
	if l.seenAtLast[w] == 0 {
		l.atLast = append(l.atLast, client)
	}
	l.seenAtLast[w] |= bit
	l.runs++
	for i := range l.windows {
		l.windows[i].add(t)
	}
}

// named counts a new client's key.
func (l *Log) named(name string) {
	l.keyBytes += allocBytes(len(name))
	l.longestKey = max(l.longestKey, len(name))
	if n := len(l.clients); n > len(l.seenAtLast)*64 {
		l.seenAtLast = append(l.seenAtLast, 0)
	}
}

// Usage is what the log holds, read whole: nothing waits.
func (l *Log) Usage() Usage {
	u := Usage{Lines: l.Lines, Clients: int64(len(l.clients)), Requests: l.Requests, Runs: l.runs, Sequences: l.sequences, KeyBytes: l.longestKey,
		Keys:  l.keyBytes + int64(cap(l.clients))*16 + l.index.bytes() + int64(cap(l.seenAtLast))*8 + int64(cap(l.atLast))*4,
		Store: l.Bytes() + int64(cap(l.chunks))*24}
	if l.Requests > 0 {
		u.Span = int64(l.last - l.first)
	}
	for _, w := range l.windows {
		u.RunsInWindow = append(u.RunsInWindow, w.most)
	}
	return u
}
