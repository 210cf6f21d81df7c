package ui

import (
	"windowlab/algo"
	"windowlab/scenarios"
	"windowlab/sim"
)

// snapshot is what the view shows at the clock, taken from the engine after
// every move, so View only formats and stays fast however big the scenario.
type snapshot struct {
	now        algo.Instant
	processed  int64
	total      int64
	last       sim.Record // Decisions copied
	hasLast    bool
	next       sim.Arrival
	hasNext    bool
	stats      []sim.Stats
	peek       []algo.Decision   // what a request from the focused client would get now
	window     [][]int64         // sliding logs: the focused client's timestamps in each cell of the lane's strip
	servers    [][]algo.Decision // a fleet's lane: what each server would decide now
	nextServer []int             // a fleet's lane: the server the next request reaches
	client     string            // the focused client ("" before any request)
	why        focusWhy          // why it is the one
	held       bool              // last is the held caption's request, not the last decided
	caption    string

	config     algo.Config      // the scenario's: limit, window, expiry
	algorithms []algo.Algorithm // the limiters, in engine order
	timeline   timelineCells    // what was decided under each of the timeline's cells
	recent     []recentRow      // the last requests decided, newest last
	shown      []float64        // while playing, each lane's gauge as its spring has moved it; nil: exact
	store      []storeLane      // with a store: what each lane's keys hold there
}

// windowCounter is a limiter that can count the timestamps in each part of
// its window (algo.SlidingLog).
type windowCounter interface {
	WindowCounts(dst []int64, t algo.Instant, client string, cells int) []int64
}

// takeSnapshot reads the engine at its clock for the focus, with the
// focused request held's when it is on, and caption i on screen (−1: none).
func takeSnapshot(e *sim.Engine, f focus, held heldCaption, captions []scenarios.Caption, i int) snapshot {
	s := snapshot{
		now:       e.Now(),
		processed: e.Processed(),
		total:     e.Len(),
		stats:     e.Stats(),
		client:    f.client,
		why:       f.why,
		config:    e.Config(),
	}
	if r, ok := e.Last(); ok {
		s.last = r
		s.last.Decisions = append([]algo.Decision(nil), r.Decisions...)
		s.hasLast = true
	}
	if held.on {
		s.last, s.hasLast, s.held = held.rec, true, true
	}
	s.next, s.hasNext = e.Next()
	ls := e.Limiters()
	s.peek = make([]algo.Decision, len(ls))
	s.window = make([][]int64, len(ls))
	s.servers, s.nextServer = make([][]algo.Decision, len(ls)), make([]int, len(ls))
	for i, l := range ls {
		s.algorithms = append(s.algorithms, algo.Of(l))
		s.peek[i] = l.Peek(s.now, f.client)
		if fl, ok := l.(*algo.Fleet); ok {
			for _, srv := range fl.Servers() {
				s.servers[i] = append(s.servers[i], srv.Peek(s.now, f.client))
			}
			s.nextServer[i] = fl.Server(f.client)
		}
	}
	if i >= 0 && i < len(captions) {
		s.caption = captions[i].Text
	}
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
