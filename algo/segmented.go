package algo

import (
	"math"
	"strconv"
	"unsafe"

	"windowlab/human"
)

// SegmentedWindow splits the window into S segments of W/S each, aligned
// as the fixed window's edges are (multiples of W/S since the epoch, plus
// Config.Offset), and counts each client's admitted requests per segment;
// a request is allowed while the last S segments, the current one
// included, hold fewer than the limit. It is a segmented log: S = 1 is the
// fixed window, segments of 1ms are the sliding log over (t − W, t], and
// between them the edge moves: it admits at most the limit in any S
// consecutive segments, so in any span of S − 1 segments; twice the limit
// still passes, but only in two bursts S − 1 segments apart (the fixed
// window's are 1ms apart).
//
// It keeps a ring of S counters per client (ASP.NET Core's
// SlidingWindowRateLimiter keeps the same int[SegmentsPerWindow]), so its
// memory grows with S, not with the limit. Clients by name are records in
// a keyStore, as the other keyed limiters' are: the ring's head and total
// in the record, with the number of its ring in rings. Config.Rules may count rejected
// requests too and change the comparison, as for the fixed window.
type SegmentedWindow struct {
	cfg    Config
	s      int64           // segments per window
	seg, o int64           // a segment's length and the edges' offset, in ms
	keys   keyStore        // by name: records of segRecordBytes
	rings  segRings        // the rings of the clients by name
	ids    table[segState] // by id, when an engine numbers the clients (ByID)
	free   []*segState     // states of dropped clients by id, rings kept, for the next new ones
	clock  clock
	mem    Memory
}

// segState is one client's ring: counts[i mod S] is segment i's count for
// the S segments head−S+1 … head; older ones have left the window.
type segState struct {
	head   int64   // the newest segment the ring holds: the last request's
	total  int64   // the sum of counts
	counts []int64 // S counts
}

// MaxSegments is the most segments a window may be split into: a client's
// ring of counters is then 800 kB.
const MaxSegments = 100_000

// DefaultSegments is the segmented window's S when Config.Segments is 0.
const DefaultSegments = 4

// segmentBytes is what the segmented window's memory counts for one of a
// client's S counters.
const segmentBytes = int64(unsafe.Sizeof(int64(0)))

// NewSegmentedWindow returns a segmented-window limiter; c must be valid
// and its segments must divide the window (Config.CheckSegments).
func NewSegmentedWindow(c Config) *SegmentedWindow {
	s := c.SegmentCount()
	return &SegmentedWindow{cfg: c, s: s, seg: c.windowMs() / s, o: c.offsetMs(),
		keys: newKeyStore(segRecordBytes), rings: newSegRings(s), clock: newClock()}
}

// SegmentCount is the segmented window's S: Segments, or when it is 0
// DefaultSegments, or the largest number below it that divides the window
// into whole milliseconds.
func (c Config) SegmentCount() int64 {
	if c.Segments > 0 {
		return c.Segments
	}
	w := max(c.windowMs(), 1)
	s := int64(DefaultSegments)
	for w%s != 0 {
		s--
	}
	return s
}

// CheckSegments reports, as an *OptionError, segments that do not split
// the window into whole milliseconds: what the segmented window needs.
func (c Config) CheckSegments() error {
	s, w := c.SegmentCount(), c.windowMs()
	if w%s != 0 {
		return Problem("segments", "%d does not divide the window (%s) into whole milliseconds: give a divisor of %d, such as %s",
			s, shortDuration(c.Window), w, divisorNear(w, s))
	}
	return nil
}

// divisorNear is the divisor of w nearest s (the smaller on a tie), as text.
func divisorNear(w, s int64) string {
	for d := int64(0); ; d++ {
		if lo := s - d; lo >= 1 && w%lo == 0 {
			return strconv.FormatInt(lo, 10)
		}
		if hi := s + d; hi <= w && w%hi == 0 {
			return strconv.FormatInt(hi, 10)
		}
	}
}

func (l *SegmentedWindow) Kind() Kind     { return KindSegmentedWindow }
func (l *SegmentedWindow) Config() Config { return l.cfg }
func (l *SegmentedWindow) Memory() Memory { return l.mem }

// segment is the index of the segment holding t.
func (l *SegmentedWindow) segment(t Instant) int64 { return floorDiv(int64(t)-l.o, l.seg) }

// start is where segment k starts.
func (l *SegmentedWindow) start(k int64) Instant { return Instant(k*l.seg + l.o) }

// slide moves s's ring forward to segment k (≥ its head), emptying the
// segments that leave the window.
func (s *segState) slide(k, n int64) {
	if k <= s.head {
		return
	}
	if k-s.head >= n {
		clear(s.counts)
		s.total = 0
	} else {
		for i := s.head + 1; i <= k; i++ {
			j := ring(i, n)
			s.total -= s.counts[j]
			s.counts[j] = 0
		}
	}
	s.head = k
}

// held is what s holds at segment k ≥ its head without moving it: the
// total in the n segments k−n+1 … k, and the count of the oldest of them,
// the one to leave the window next.
func (s *segState) held(k, n int64) (total, oldest int64) {
	if s == nil || k-s.head >= n {
		return 0, 0
	}
	total = s.total
	for i := s.head - n + 1; i <= k-n; i++ { // in the ring, out of k's window
		total -= s.counts[ring(i, n)]
	}
	if o := k - n + 1; o <= s.head {
		oldest = s.counts[ring(o, n)]
	}
	return total, oldest
}

// ring is segment i's place in a ring of n: i mod n, also for i < 0.
func ring(i, n int64) int64 {
	j := i % n
	if j < 0 {
		j += n
	}
	return j
}

func (l *SegmentedWindow) Allow(t Instant, client string) Decision {
	if l.ids.names != nil {
		return l.AllowID(t, l.ids.names.ID(client))
	}
	t = l.advance(t)
	b, fresh := l.keys.take(client)
	if fresh {
		putRing(b, l.rings.take())
	}
	s := l.load(b)
	if fresh {
		l.added(&s, t, len(client))
	}
	d := l.take(t, &s)
	storeSeg(b, s)
	return d
}

// UseNames numbers the limiter's clients by names (ByID).
func (l *SegmentedWindow) UseNames(names *Names) bool {
	return l.keys.Len() == 0 && l.ids.share(names)
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (l *SegmentedWindow) AllowID(t Instant, id int32) Decision {
	l.ids.mustShare()
	t = l.advance(t)
	s := l.ids.getID(id)
	if s == nil {
		s = l.ids.addID(id)
		if n := len(l.free); n > 0 {
			s.counts, l.free = l.free[n-1].counts, l.free[:n-1]
		}
		l.added(s, t, l.ids.keyBytes(id))
	}
	return l.take(t, s)
}

// added gives a client that had no state its ring, at t's segment: s's
// own, emptied, when it has one (a dropped client's), or a new one.
func (l *SegmentedWindow) added(s *segState, t Instant, keyBytes int) {
	counts := s.counts
	if counts == nil {
		counts = make([]int64, l.s)
	}
	clear(counts)
	*s = segState{head: l.segment(t), counts: counts}
	l.mem.Clients++
	l.mem.Entries += l.s
	l.mem.Bytes += l.clientBytes(keyBytes)
}

// take decides a request at t on the client's ring s, and counts it if
// the rules say so.
func (l *SegmentedWindow) take(t Instant, s *segState) Decision {
	k := l.segment(t)
	s.slide(k, l.s)
	count, oldest := s.held(k, l.s)
	allowed := l.cfg.Rules.admitsCount(count, l.cfg.Limit)
	if allowed || l.cfg.Rules.CountRejected {
		j := ring(k, l.s)
		s.counts[j] = satAdd(s.counts[j], 1)
		s.total = satAdd(s.total, 1)
	}
	return l.decision(t, k, count, oldest, allowed)
}

// get is the client's ring, nil when it has none.
func (l *SegmentedWindow) get(client string) *segState {
	if l.ids.names != nil {
		return l.ids.get(client)
	}
	b := l.keys.find(client)
	if b == nil {
		return nil
	}
	s := l.load(b)
	return &s
}

// Admit decides as Allow does, recording the same, and says only whether
// the request is allowed.
func (l *SegmentedWindow) Admit(t Instant, client string) bool { return l.Allow(t, client).Allowed }

func (l *SegmentedWindow) Peek(t Instant, client string) Decision {
	t = l.clock.at(t)
	k := l.segment(t)
	count, oldest := l.get(client).held(k, l.s)
	return l.decision(t, k, count, oldest, l.cfg.Rules.admitsCount(count, l.cfg.Limit))
}

func (l *SegmentedWindow) decision(t Instant, k, count, oldest int64, allowed bool) Decision {
	return Decision{
		Kind: KindSegmentedWindow, At: t, Limit: l.cfg.Limit, Window: l.cfg.Window, Rules: l.cfg.Rules,
		WindowStart: l.start(k), Count: count, Previous: oldest, Segments: l.s, Allowed: allowed,
	}
}

// WindowCounts appends to dst the client's counts in the S segments of
// its window at t, oldest first; with more segments than cells, each of
// cells parts sums the segments i·S/cells to (i+1)·S/cells − 1. The strip
// the interactive view draws.
func (l *SegmentedWindow) WindowCounts(dst []int64, t Instant, client string, cells int) []int64 {
	t = l.clock.at(t)
	k := l.segment(t)
	s := l.get(client)
	at := func(i int64) int64 { // segment k − S + 1 + i
		seg := k - l.s + 1 + i
		if s == nil || seg > s.head || seg <= s.head-l.s {
			return 0
		}
		return s.counts[ring(seg, l.s)]
	}
	n := int64(max(cells, 1))
	if l.s <= n {
		for i := range l.s {
			dst = append(dst, at(i))
		}
		return dst
	}
	for c := range n {
		var sum int64
		for i := c * l.s / n; i < (c+1)*l.s/n; i++ {
			sum += at(i)
		}
		dst = append(dst, sum)
	}
	return dst
}

// clientBytes is a client's cost as the memory figures count it (the
// model of a map of names to rings, as .NET's is): its map slot, key and
// pointer, its state, and its S counters.
func (l *SegmentedWindow) clientBytes(keyBytes int) int64 {
	return segClientBytes(keyBytes) + l.s*segmentBytes
}

// segClientBytes is a client's cost before its counters.
func segClientBytes(keyBytes int) int64 {
	return clientBytes[*segState](keyBytes) + int64(unsafe.Sizeof(segState{}))
}

// live reports whether s still holds a count that a request at t or later
// would see: its newest segment is one of the S ending with t's.
func (l *SegmentedWindow) live(s *segState, t Instant) bool {
	total, _ := s.held(max(l.segment(t), s.head), l.s)
	return total > 0
}

// Expire drops every client whose counts have all left the window at t.
func (l *SegmentedWindow) Expire(t Instant) {
	l.clock.seen(t)
	if l.cfg.NoExpiry {
		return
	}
	dropped := func(keyBytes int) {
		l.mem.Clients--
		l.mem.Entries -= l.s
		l.mem.Bytes -= l.clientBytes(keyBytes)
	}
	if l.ids.names != nil {
		l.ids.each(func(keyBytes int, s *segState) bool {
			if l.live(s, t) {
				return true
			}
			l.free = append(l.free, &segState{counts: s.counts}) // the table zeroes s: its ring is kept apart
			dropped(keyBytes)
			return false
		})
		return
	}
	l.keys.sweep(func(keyBytes int, b []byte) bool {
		if s := l.load(b); l.live(&s, t) {
			return true
		}
		l.rings.give(getRing(b)) // the record is idle now, its state as good as none
		dropped(keyBytes)
		return false
	})
}

func (l *SegmentedWindow) MemoryAt(t Instant) Memory {
	if l.cfg.NoExpiry {
		return l.mem
	}
	var m Memory
	count := func(keyBytes int, s *segState) bool {
		if l.live(s, t) {
			m.Clients++
			m.Entries += l.s
			m.Bytes += l.clientBytes(keyBytes)
		}
		return true
	}
	l.ids.each(count) // nothing unless it shares names
	l.keys.each(func(keyBytes int, b []byte) {
		s := l.load(b)
		count(keyBytes, &s)
	})
	return m
}

func (l *SegmentedWindow) Clone() Limiter {
	c := *l
	c.keys = l.keys.clone()
	c.rings = l.rings.clone()
	c.ids = l.ids.clone(func(s segState) segState { return s.clone() })
	c.free = nil
	return &c
}

// clone is a copy of s with its own ring.
func (s segState) clone() segState {
	s.counts = append([]int64(nil), s.counts...)
	return s
}

// advance reads t on the clock and sweeps idle clients when a sweep is due.
func (l *SegmentedWindow) advance(t Instant) Instant {
	t, sweep := l.clock.advance(t)
	if sweep {
		l.clock.schedule(t, l.s*l.seg)
		l.Expire(t)
	}
	return t
}

// segmented writes the segmented window's decide: its ring slid to the
// segment holding at, the last S segments summed, the lesson's test.
func (c *coder) segmented() {
	d := c.d
	c.line("seg := at.Truncate(window / segments)", d.At.Short()+" → "+d.WindowStart.Short()+", "+shortDuration(d.Segment())+" each")
	c.line("r := rings[client]", "")
	c.line("r.slideTo(seg)", "keeps "+segmentNoun.Of(d.Segments)+", "+Range(d.SegmentsFrom(), d.SegmentEnd()))
	c.line("count := r.sum()", human.Int(d.Count))
	count := "r.counts[seg]++"
	c.counted(count)
	c.test("count", human.Int(d.Count), count)
	c.ret(false, "")
}

// segmentNoun counts a segmented window's segments.
var segmentNoun = human.Noun{One: "segment", Many: "segments"}

// A client by name is a record of segRecordBytes: its ring's head and
// total, and the number of its ring in the limiter's segRings (from 1; a
// fresh record's 0 is none yet).
const (
	segRecordBytes = 8 + 8 + 4
	segRingAt      = 16
)

// load is the state of the client whose record is b: its ring in place,
// so take counts into it.
func (l *SegmentedWindow) load(b []byte) segState {
	return segState{head: getInt(b), total: getInt(b[8:]), counts: l.rings.at(getRing(b))}
}

// storeSeg writes s's head and total back into its record b.
func storeSeg(b []byte, s segState) {
	putInt(b, s.head)
	putInt(b[8:], s.total)
}

func getRing(b []byte) uint32    { return le.Uint32(b[segRingAt:]) }
func putRing(b []byte, i uint32) { le.PutUint32(b[segRingAt:], i) }

// segRings holds the rings of S counters of a segmented window's clients
// by name, numbered from 1, in blocks that never move, so a ring taken
// stays where it is while its client holds it; a dropped client's ring
// goes back on a free list for the next new one.
type segRings struct {
	s      int64     // counters a ring
	shift  uint      // a block holds 1<<shift rings
	blocks [][]int64 // the rings, 1<<shift a block
	n      uint32    // rings made
	free   []uint32
}

// segBlockCounters is about how many counters a block of rings holds: a
// power of two of rings, one ring when a ring is bigger.
const segBlockCounters = 8192

func newSegRings(s int64) segRings {
	r := segRings{s: s}
	for int64(2)<<r.shift*s <= segBlockCounters {
		r.shift++
	}
	return r
}

// at is ring i's counters; nil for 0.
func (r *segRings) at(i uint32) []int64 {
	if i == 0 {
		return nil
	}
	j := int64((i - 1) & (1<<r.shift - 1))
	return r.blocks[(i-1)>>r.shift][j*r.s : (j+1)*r.s : (j+1)*r.s]
}

// take is a ring for a new client, numbered: a free one, or a new one.
func (r *segRings) take() uint32 {
	if n := len(r.free); n > 0 {
		i := r.free[n-1]
		r.free = r.free[:n-1]
		return i
	}
	if r.n == math.MaxUint32 {
		panic("algo: too many clients for a segmented window")
	}
	if r.n&(1<<r.shift-1) == 0 {
		r.blocks = append(r.blocks, make([]int64, int64(1)<<r.shift*r.s))
	}
	r.n++
	return r.n
}

// give puts ring i back for the next new client.
func (r *segRings) give(i uint32) { r.free = append(r.free, i) }

func (r segRings) clone() segRings {
	c := r
	c.blocks = make([][]int64, len(r.blocks))
	for i, b := range r.blocks {
		c.blocks[i] = append([]int64(nil), b...)
	}
	c.free = append([]uint32(nil), r.free...)
	return c
}
