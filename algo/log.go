package algo

// SlidingLog stores a timestamp for every accepted request and counts the
// ones in the last window: at t, timestamps ≤ t − W have left it. Exact, with
// no boundary effect; memory grows with the limit.
//
// With Config.Rules.CountRejected it stores a timestamp for every request, so
// a client is allowed again only after a whole window without requests beyond
// the limit; its memory then grows with the request rate, not the limit.
type SlidingLog struct {
	cfg     Config
	w       int64
	clients table[logState] // by id, when an engine numbers the clients (ByID)
	// keys holds the clients by name otherwise: a client whose timestamps
	// are all one instant (one request, or a burst) in its record, as the
	// instant and the count; any other in queues, at the index its record
	// holds.
	keys       keyStore // records of logRecordBytes
	queues     []logState
	freeQueues []uint32
	spare      logState // a queue's room, ready for the next client that needs one
	clock      clock
	mem        Memory
	_          [64]byte // a cache line from whatever is allocated next (sim.Engine's padding): clock and mem are written at every request
}

// logState is a client's accepted timestamps, oldest first.
type logState struct{ q InstantQueue }

// timestampBytes is what the log's memory counts for one timestamp: what a
// log storing each one as a 64-bit instant holds, and the most this one
// holds for instants far apart. Equal instants share one run of its queue,
// so a burst costs it far less; the figure teaches the algorithm's cost, not
// that saving.
const timestampBytes = 8

// NewSlidingLog returns a sliding-log limiter; c must be valid.
func NewSlidingLog(c Config) *SlidingLog {
	return &SlidingLog{cfg: c, w: c.windowMs(), keys: newKeyStore(logRecordBytes), clock: newClock()}
}

func (l *SlidingLog) Kind() Kind     { return KindSlidingLog }
func (l *SlidingLog) Config() Config { return l.cfg }
func (l *SlidingLog) Memory() Memory { return l.mem }

// Held is where the limiter keeps Memory's figures (Writer).
func (l *SlidingLog) Held() *Memory { return &l.mem }

func (l *SlidingLog) Allow(t Instant, client string) Decision {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client))
	}
	t = l.advance(t)
	count, oldest, allowed := l.allowKeyed(t, client)
	return l.decision(t, count, oldest, allowed)
}

// Admit decides as Allow does, recording the same, and says only whether
// the request is allowed.
//
// Its usual request, from a client the store holds by a short name while
// no sweep is due, finds the client's record in one lookup; every other
// goes through allowKeyed.
func (l *SlidingLog) Admit(t Instant, client string) bool {
	if l.clients.names == nil && l.clock.quiet(t) {
		if p, fresh := l.keys.hot(client); p != nil {
			b := (*[logRecordBytes]byte)(p)[:]
			if i := le.Uint32(b[logQueueAt:]); i != 0 {
				// A client with a queue of its own, not fresh: allowRecord's
				// request without its calls, and settle only when the queue
				// now holds one instant, which belongs in the record.
				s := &l.queues[i-1]
				_, _, allowed := l.counted(t, s)
				if _, _, one := s.q.single(); one {
					l.settle(b, s)
				}
				return allowed
			}
			_, _, allowed := l.allowRecord(t, b, fresh, len(client))
			return allowed
		}
	}
	return l.admit(t, client)
}

// admit is Admit's every other request.
func (l *SlidingLog) admit(t Instant, client string) bool {
	if l.clients.names != nil {
		return l.AllowID(t, l.clients.names.ID(client)).Allowed
	}
	_, _, allowed := l.allowKeyed(l.advance(t), client)
	return allowed
}

// allowKeyed decides for a client by name, in the limiter's keyStore.
func (l *SlidingLog) allowKeyed(t Instant, client string) (count int64, oldest Instant, allowed bool) {
	b, fresh := l.keys.take(client)
	return l.allowRecord(t, b, fresh, len(client))
}

// allowRecord decides for the client whose record is b, fresh (and zero)
// when it had none, its name keyBytes long.
func (l *SlidingLog) allowRecord(t Instant, b []byte, fresh bool, keyBytes int) (count int64, oldest Instant, allowed bool) {
	if fresh {
		l.mem.Clients++
		l.mem.Bytes += clientBytes[logState](keyBytes)
	}
	s, _ := l.recordQueue(b)
	count, oldest, allowed = l.counted(t, s)
	l.settle(b, s)
	return count, oldest, allowed
}

// settle puts a keyed client's queue where it now belongs: in its record
// when it holds one instant, else in queues. The record's queue, if it had
// one, is s; else s is the spare.
func (l *SlidingLog) settle(b []byte, s *logState) {
	i := le.Uint32(b[logQueueAt:])
	if at, n, ok := s.q.single(); ok && n <= packedCountMax {
		putInt(b, int64(at))
		putCount(b[8:], n)
		if i != 0 {
			le.PutUint32(b[logQueueAt:], 0)
			s.q.Reset()
			l.freeQueues = append(l.freeQueues, i)
		}
		return
	}
	if i != 0 {
		return
	}
	// The spare becomes the client's queue, and a free queue's room the spare.
	if n := len(l.freeQueues); n > 0 {
		i = l.freeQueues[n-1]
		l.freeQueues = l.freeQueues[:n-1]
		l.queues[i-1], l.spare = l.spare, l.queues[i-1]
	} else {
		l.queues = append(l.queues, l.spare)
		l.spare = logState{}
		i = uint32(len(l.queues))
	}
	le.PutUint32(b[logQueueAt:], i)
}

// recordQueue is the queue of the client whose record is b, to decide on:
// its own, numbered i, or the spare holding the record's one instant (i 0).
func (l *SlidingLog) recordQueue(b []byte) (s *logState, i uint32) {
	if i = le.Uint32(b[logQueueAt:]); i != 0 {
		return &l.queues[i-1], i
	}
	l.spare.q.setSingle(Instant(getInt(b)), getCount(b[8:]))
	return &l.spare, 0
}

// keyedQueue is the queue of the client whose record is b, to read: a
// copy, so reading changes nothing, not even the spare.
func (l *SlidingLog) keyedQueue(b []byte) InstantQueue {
	if i := le.Uint32(b[logQueueAt:]); i != 0 {
		return l.queues[i-1].q
	}
	var q InstantQueue
	q.setSingle(Instant(getInt(b)), getCount(b[8:]))
	return q
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *SlidingLog) UseNames(names *Names) bool {
	return l.keys.Len() == 0 && l.clients.share(names)
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *SlidingLog) AllowID(t Instant, id int32) Decision {
	var d Decision
	l.AllowIDInto(t, id, &d)
	return d
}

// AllowIDInto is AllowID, written in d (Writer).
func (l *SlidingLog) AllowIDInto(t Instant, id int32, d *Decision) {
	l.clients.mustShare()
	t = l.advance(t)
	s := l.clients.getID(id)
	if s == nil {
		s = l.clients.addID(id)
		l.mem.Clients++
		l.mem.Bytes += clientBytes[logState](l.clients.keyBytes(id))
	}
	count, oldest, allowed := l.counted(t, s)
	l.write(d, t, count, oldest, allowed)
}

// counted decides one request at t from the client whose queue s is (the
// zero value for a client with no requests): it drops the timestamps that
// have left the window (unless expiry is off), counts those in (t − W, t],
// records t if the rules say so, and keeps the log's count of what it
// holds. oldest is the first timestamp in the window, when count > 0.
func (l *SlidingLog) counted(t Instant, s *logState) (count int64, oldest Instant, allowed bool) {
	q := &s.q
	edge := t - Instant(l.w)
	var added int64
	if l.cfg.NoExpiry {
		count, oldest = q.CountAfter(edge)
	} else if count = q.Len(); count > 0 {
		// Most requests drop nothing: the oldest read once, no call then.
		if oldest = q.Oldest(); oldest <= edge {
			added, oldest = -q.DropThrough(edge), 0
			if count = q.Len(); count > 0 {
				oldest = q.Oldest()
			}
		}
	}
	allowed, record := l.cfg.Rules.logDecides(count, l.cfg.Limit)
	if record {
		q.Push(t)
		added++
	}
	l.mem.Entries += added
	l.mem.Bytes += added * timestampBytes
	return count, oldest, allowed
}

// logDecides is the sliding log's decision on a request whose window holds
// count timestamps: whether it is allowed, and whether its timestamp is
// recorded (when allowed, or always when the rules count rejected
// requests). The keyed log's queues (SlidingLog.counted) and the dense log's
// rings (DenseSlidingLog.AllowEach) both decide here.
func (r Rules) logDecides(count, limit int64) (allowed, record bool) {
	allowed = r.admitsCount(count, limit)
	return allowed, allowed || r.CountRejected
}

func (l *SlidingLog) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	if s := l.get(client); s != nil {
		return l.decide(t, s)
	}
	return l.decide(t, &logState{})
}

func (l *SlidingLog) decide(t Instant, s *logState) Decision {
	count, oldest := s.q.CountAfter(t - Instant(l.w))
	return l.decision(t, count, oldest, l.cfg.Rules.admitsCount(count, l.cfg.Limit))
}

func (l *SlidingLog) decision(t Instant, count int64, oldest Instant, allowed bool) Decision {
	var d Decision
	l.write(&d, t, count, oldest, allowed)
	return d
}

// write writes decision's Decision in d, field by field (FixedWindow.write).
func (l *SlidingLog) write(d *Decision, t Instant, count int64, oldest Instant, allowed bool) {
	*d = Decision{}
	d.Kind, d.At, d.Allowed, d.Rules = KindSlidingLog, t, allowed, l.cfg.Rules
	d.Limit, d.Window, d.Count, d.Oldest = l.cfg.Limit, l.cfg.Window, count, oldest
}

// drop removes timestamps that have left the window (unless expiry is off).
func (l *SlidingLog) drop(s *logState, t Instant) {
	if l.cfg.NoExpiry {
		return
	}
	n := s.q.DropThrough(t - Instant(l.w))
	l.mem.Entries -= n
	l.mem.Bytes -= n * timestampBytes
}

// Expire drops timestamps that have left the window at t, and clients left
// with none.
func (l *SlidingLog) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	gone := func(keyBytes int, s *logState) bool {
		l.drop(s, t)
		if s.q.Len() > 0 {
			return false
		}
		l.mem.Clients--
		l.mem.Bytes -= clientBytes[logState](keyBytes)
		return true
	}
	if l.clients.names != nil {
		l.clients.each(func(keyBytes int, s *logState) bool { return !gone(keyBytes, s) })
		return
	}
	l.keys.sweep(func(keyBytes int, b []byte) bool {
		s, i := l.recordQueue(b)
		if gone(keyBytes, s) {
			if i != 0 {
				l.freeQueues = append(l.freeQueues, i)
			}
			return false
		}
		l.settle(b, s)
		return true
	})
}

// get is the client's queue, or nil: by id, or by name (a copy).
func (l *SlidingLog) get(client string) *logState {
	if l.clients.names != nil {
		return l.clients.get(client)
	}
	b := l.keys.find(client)
	if b == nil {
		return nil
	}
	return &logState{q: l.keyedQueue(b)}
}

// WindowCounts appends to dst how many of the client's timestamps fall in
// each of cells equal parts of its window at t: part i is
// (t − W + i·W/cells, t − W + (i+1)·W/cells]. It is the strip the
// interactive view draws, read without copying the timestamps.
func (l *SlidingLog) WindowCounts(dst []int64, t Instant, client string, cells int) []int64 {
	s := l.get(client)
	from := t - Instant(l.w)
	prev := int64(0)
	if s != nil {
		prev, _ = s.q.CountAfter(from)
	}
	for i := range cells {
		var n int64
		if s != nil {
			n, _ = s.q.CountAfter(from + Instant(int64(i+1)*l.w/int64(cells)))
		}
		dst = append(dst, prev-n)
		prev = n
	}
	return dst
}

func (l *SlidingLog) Clone() Limiter {
	c := *l
	c.clients = l.clients.clone(func(s logState) logState {
		return logState{q: s.q.Clone()}
	})
	c.keys = l.keys.clone()
	c.queues = make([]logState, len(l.queues))
	for i := range l.queues {
		c.queues[i] = logState{q: l.queues[i].q.Clone()}
	}
	c.freeQueues = append([]uint32(nil), l.freeQueues...)
	c.spare = logState{}
	return &c
}

func (l *SlidingLog) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	held := func(keyBytes int, q *InstantQueue) {
		if n, _ := q.CountAfter(t - Instant(l.w)); n > 0 {
			m.Clients++
			m.Entries += n
			m.Bytes += clientBytes[logState](keyBytes) + n*timestampBytes
		}
	}
	if l.clients.names != nil {
		l.clients.each(func(keyBytes int, s *logState) bool { held(keyBytes, &s.q); return true })
		return m
	}
	l.keys.each(func(keyBytes int, b []byte) {
		q := l.keyedQueue(b)
		held(keyBytes, &q)
	})
	return m
}

// A keyed client's record: its one instant (8 bytes), how many requests it
// holds at it (4), and at logQueueAt the number of its queue when it holds
// more than one instant (0 when none).
const (
	logRecordBytes = 8 + 4 + 4
	logQueueAt     = 12
)

// advance reads t on the clock and sweeps idle clients when a sweep is due.
func (l *SlidingLog) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.sweepAt(t)
	}
	return t
}

// sweepAt makes the sweep due at t.
func (l *SlidingLog) sweepAt(t Instant) {
	l.clock.schedule(t, l.w)
	l.Expire(t)
}

// Touch loads the state of the client numbered id (Toucher).
func (l *SlidingLog) Touch(id int32) byte { return l.clients.touch(id) }
