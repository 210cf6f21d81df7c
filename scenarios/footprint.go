package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Load bounds what the scenario's traffic puts into an engine, from its
// entries alone, without generating them: how many clients, and how many
// distinct (client, instant) pairs in all and in any one window. Random
// traffic is counted at its mean plus six standard deviations; entries
// that overlap in time are added up. sim.EstimateBytes turns it into bytes.
func (s *Scenario) Load() sim.Load {
	if r := s.rec; r != nil {
		// Recorded runs are each a client at an instant: counted exactly.
		return sim.Load{Clients: int64(len(r.clients)), Runs: r.runs, RunsInWindow: r.runsInWindow(s.Config.Window),
			Span: int64(r.last - r.first), KeyBytes: r.keyBytes}
	}
	return loadOf(s.Traffic, s.Config.Window)
}

// loadOf is Load for the traffic entries given, with windows of w.
func loadOf(traffic []Traffic, window time.Duration) sim.Load {
	w := float64(window / time.Millisecond)
	var ld sim.Load
	named := map[string]bool{}
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range traffic {
		t := &traffic[i]
		n := t.expected()
		from, to := int64(t.From), int64(t.To)
		if t.Shape == Burst {
			from, to = int64(t.At), int64(t.At)+1
		}
		first, last = min(first, from), max(last, to-1)
		span := float64(to - from)
		runs, inWindow := n, n
		key := len(t.Client)
		switch t.Shape {
		case Burst:
			runs, inWindow = 1, 1
		case Spread:
			runs = math.Min(n, span)
			inWindow = math.Min(runs, math.Ceil(runs*w/span)+1)
		case Stream:
			inWindow = math.Min(runs, math.Ceil(runs*w/span)+1)
		case Random:
			runs = n + 6*math.Sqrt(n) + 16
			mean := runs * math.Min(1, w/span)
			inWindow = math.Min(runs, mean+6*math.Sqrt(mean)+16)
			ld.Clients += int64(t.Clients)
			key += 1 + len(strconv.Itoa(t.Clients))
		}
		if t.Shape != Random && !named[t.Client] {
			named[t.Client] = true
			ld.Clients++
		}
		ld.Runs += int64(math.Ceil(runs))
		ld.RunsInWindow += int64(math.Ceil(inWindow))
		ld.KeyBytes = max(ld.KeyBytes, key)
	}
	if len(traffic) > 0 {
		ld.Span = last - first
	}
	return ld
}

// TooBigError is a scenario whose replay would not fit windowlab's memory
// budget, refused before it starts. It is located, as an Error is, at the
// traffic entry that alone would need the most (a recorded file's runs
// have no such entry: then at the file).
type TooBigError struct {
	File         string
	Line, Column int    // of the entry; 0 for the file as a whole
	Field        string // the entry, such as traffic[0]
	Entries      int    // traffic entries in the file
	View         bool   // for the interactive view, which keeps every decision
	Estimate     int64  // bytes
	Load         sim.Load
	Window       time.Duration
}

func (e *TooBigError) Error() string {
	what := "replaying it"
	if e.View {
		what = "viewing it (the view keeps every decision for its timeline)"
	}
	if e.Line > 0 {
		what = strings.Replace(what, "it", "the file", 1)
	}
	where := &Error{File: e.File, Line: e.Line, Column: e.Column, Field: e.Field}
	most := ""
	if e.Entries > 1 {
		most = ", this entry needing the most"
	}
	where.Msg = fmt.Sprintf("%s would need about %s, more than the %s that windowlab's memory budget of %s leaves for its data: %s, with up to %s distinct request instants inside one %s window%s; use a shorter window, fewer clients or fewer requests",
		what, human.MiB(e.Estimate), human.MiB(algo.BudgetLive), human.MiB(algo.MemoryBudget),
		clientNoun.Of(e.Load.Clients), human.Int(e.Load.RunsInWindow), human.Duration(e.Window), most)
	return where.Error()
}

var clientNoun = human.Noun{One: "client", Many: "clients"}
