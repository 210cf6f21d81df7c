package ui

import (
	"sort"

	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"
)

// snapshot is what the view shows at the clock, taken from the engine after
// every move, so View only formats and stays fast however big the scenario.
type snapshot struct {
	now       algo.Instant
	processed int64
	total     int64
	last      sim.Record // Decisions copied
	hasLast   bool
	next      sim.Arrival
	hasNext   bool
	stats     []sim.Stats
	peek      []algo.Decision // what a request from the focused client would get now
	window    [][]int64       // sliding logs: the focused client's timestamps in each cell of the lane's strip
	client    string          // the focused client ("" before any request)
	following bool            // focus follows the last request's client
	caption   string

	config     algo.Config      // the scenario's: limit, window, expiry
	algorithms []algo.Algorithm // the limiters, in engine order
	timeline   timelineCells    // what was decided under each of the timeline's cells
	recent     []recentRow      // the last requests decided, newest last
}

// windowCounter is a limiter that can count the timestamps in each part of
// its window (algo.SlidingLog).
type windowCounter interface {
	WindowCounts(dst []int64, t algo.Instant, client string, cells int) []int64
}

// takeSnapshot reads the engine at its clock for client.
func takeSnapshot(e *sim.Engine, client string, following bool, captions []scenarios.Caption) snapshot {
	s := snapshot{
		now:       e.Now(),
		processed: e.Processed(),
		total:     e.Len(),
		stats:     e.Stats(),
		client:    client,
		following: following,
		config:    e.Config(),
	}
	if r, ok := e.Last(); ok {
		s.last = r
		s.last.Decisions = append([]algo.Decision(nil), r.Decisions...)
		s.hasLast = true
	}
	s.next, s.hasNext = e.Next()
	ls := e.Limiters()
	s.peek = make([]algo.Decision, len(ls))
	s.window = make([][]int64, len(ls))
	for i, l := range ls {
		s.algorithms = append(s.algorithms, algo.Of(l))
		s.peek[i] = l.Peek(s.now, client)
	}
	s.caption = captionAt(captions, s.now)
	return s
}

// countWindows fills the sliding logs' strips, cells cells wide for the
// decision a lane shows: counts, not the timestamps, so a window holding
// fifty million costs the snapshot what a strip of eighty does.
func (s *snapshot) countWindows(e *sim.Engine, cells func(algo.Decision) int) {
	for i, l := range e.Limiters() {
		if wc, ok := l.(windowCounter); ok && s.client != "" {
			s.window[i] = wc.WindowCounts(nil, s.now, s.client, cells(s.peek[i]))
		}
	}
}

// captionAt is the text of the last caption at or before t.
func captionAt(cs []scenarios.Caption, t algo.Instant) string {
	i := sort.Search(len(cs), func(i int) bool { return cs[i].At > t })
	if i == 0 {
		return ""
	}
	return cs[i-1].Text
}

// markBlock is how many marks one summary in markIndex covers.
const markBlock = 64

// markIndex summarises the engine's history in blocks of markBlock marks, so
// the timeline counts the decisions in any span in O(span's blocks + 2·markBlock)
// rather than visiting every mark. It holds one number per limiter per block.
type markIndex struct {
	limiters int
	blocks   int
	cum      []int64 // cum[b*limiters+k]: marks in blocks before b that limiter k allowed
}

func newMarkIndex(limiters int) *markIndex {
	return &markIndex{limiters: limiters, cum: make([]int64, limiters)}
}

// sync brings the index up to date with h. History is a pure function of
// how many arrivals were decided, so complete blocks stay valid after the
// engine steps back and forth; only blocks past len(h) are dropped.
func (x *markIndex) sync(h []sim.Mark) {
	if full := len(h) / markBlock; full < x.blocks {
		x.blocks = full
		x.cum = x.cum[:(full+1)*x.limiters]
	}
	for (x.blocks+1)*markBlock <= len(h) {
		base := x.blocks * x.limiters
		for k := range x.limiters {
			x.cum = append(x.cum, x.cum[base+k])
		}
		next := x.cum[base+x.limiters:]
		for _, m := range h[x.blocks*markBlock : (x.blocks+1)*markBlock] {
			for k := range x.limiters {
				if m.Allowed&(1<<k) != 0 {
					next[k]++
				}
			}
		}
		x.blocks++
	}
}

// allowed adds to out[k] how many of h[i:j] limiter k allowed.
func (x *markIndex) allowed(h []sim.Mark, i, j int, out []int64) {
	visit := func(ms []sim.Mark) {
		for _, m := range ms {
			for k := range out {
				if m.Allowed&(1<<k) != 0 {
					out[k]++
				}
			}
		}
	}
	bi, bj := (i+markBlock-1)/markBlock, j/markBlock
	if bj > x.blocks {
		bj = x.blocks
	}
	if bi >= bj {
		visit(h[i:j])
		return
	}
	visit(h[i : bi*markBlock])
	for k := range out {
		out[k] += x.cum[bj*x.limiters+k] - x.cum[bi*x.limiters+k]
	}
	visit(h[bj*markBlock : j])
}

// firstAtOrAfter is the index of the first mark at or after t.
func firstAtOrAfter(h []sim.Mark, t algo.Instant) int {
	return sort.Search(len(h), func(i int) bool { return h[i].At >= t })
}
