package render

import (
	"windowlab/algo"
	"windowlab/sim"
)

// snapshot is what the view shows at the clock, taken from the engine after
// every move, so View only formats and stays fast however big the scenario.
type Snapshot struct {
	Now        algo.Instant
	Processed  int64
	Total      int64
	Last       sim.Record // Decisions copied
	HasLast    bool
	Next       sim.Arrival
	HasNext    bool
	Stats      []sim.Stats
	Peek       []algo.Decision   // what a request from the focused client would get now
	Window     [][]int64         // sliding logs: the focused client's timestamps in each cell of the lane's strip
	Servers    [][]algo.Decision // a fleet's lane: what each server would decide now
	NextServer []int             // a fleet's lane: the server the next request reaches
	Shared     []SharedTally     // a synced or lagged lane: its shared tally (sharing.go)
	Client     string            // the focused client ("" before any request)
	Why        FocusWhy          // why it is the one
	Held       bool              // last is the held caption's request, not the last decided
	Caption    string
	Storeless  StorelessNote // the caption's decisions made without the store (caption_storeless.go)

	Config     algo.Config      // the scenario's: limit, window, expiry
	Algorithms []algo.Algorithm // the limiters, in engine order
	Timeline   TimelineCells    // what was decided under each of the timeline's cells
	Recent     []RecentRow      // the last requests decided, newest last
	Shown      []float64        // while playing, each lane's gauge as its spring has moved it; nil: exact
	Store      []StoreLane      // with a store: what each lane's keys hold there
}

// windowCounter is a limiter that can count the timestamps in each part of
// its window (algo.SlidingLog).
type windowCounter interface {
	WindowCounts(dst []int64, t algo.Instant, client string, cells int) []int64
}

// takeSnapshot reads the engine at its clock for the focus, with the
// focused request held when it is not nil (a caption's), and caption the
// text on screen.
func Take(e *sim.Engine, f Focus, held *sim.Record, caption string) Snapshot {
	s := Snapshot{
		Now:       e.Now(),
		Processed: e.Processed(),
		Total:     e.Len(),
		Stats:     e.Stats(),
		Client:    f.Client,
		Why:       f.Why,
		Config:    e.Config(),
	}
	if r, ok := e.Last(); ok {
		s.Last = r
		s.Last.Decisions = append([]algo.Decision(nil), r.Decisions...)
		s.HasLast = true
	}
	if held != nil {
		s.Last, s.HasLast, s.Held = *held, true, true
	}
	s.Next, s.HasNext = e.Next()
	ls := e.Limiters()
	s.Peek = make([]algo.Decision, len(ls))
	s.Window = make([][]int64, len(ls))
	s.Servers, s.NextServer = make([][]algo.Decision, len(ls)), make([]int, len(ls))
	s.Shared = make([]SharedTally, len(ls))
	for i, l := range ls {
		s.Algorithms = append(s.Algorithms, algo.Of(l))
		s.Peek[i] = l.Peek(s.Now, f.Client)
		if fl, ok := l.(algo.ServerFleet); ok {
			for _, srv := range fl.Servers() {
				s.Servers[i] = append(s.Servers[i], srv.Peek(s.Now, f.Client))
			}
			s.NextServer[i] = fl.Server(f.Client)
		}
		s.Shared[i] = sharedTally(l, s.Now, f.Client)
	}
	s.Caption = caption
	return s
}

// countWindows fills the sliding logs' strips, cells cells wide for the
// decision a lane shows: counts, not the timestamps, so a window holding
// fifty million costs the snapshot what a strip of eighty does.
func (s *Snapshot) CountWindows(e *sim.Engine, cells func(algo.Decision) int) {
	for i, l := range e.Limiters() {
		if wc, ok := l.(windowCounter); ok && s.Client != "" {
			s.Window[i] = wc.WindowCounts(nil, s.Now, s.Client, cells(s.Peek[i]))
		}
	}
}

// focus names the focused client and request, and why they are the ones.
type Focus struct {
	Client string
	Why    FocusWhy
}

type FocusWhy int

const (
	FocusLast    FocusWhy = iota // the last request's client
	FocusCaption                 // the caption's
	FocusChosen                  // chosen by the user
)

// StoreUsage is what one lane's keys hold on the store, as it counts them.
type StoreUsage struct {
	Keys  int64
	Bytes int64 // MEMORY USAGE, summed
}

// storeLane is a lane's measured usage in the snapshot.
type StoreLane struct {
	Usage StoreUsage
	OK    bool
	Shard string // on a cluster, where the focused client's keys are: "NODE, slot N"
}
