package replay

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Budget is the most a replay may hold for its data (the log, and the
// state of the settings decided at once): what windowlab's memory budget
// leaves for data. A test lowers it.
var Budget int64 = algo.BudgetLive

// Memory is what a replay of a log holds, counted as the log is
// read (accesslog.Options.Check, with Windows): the log's keys, requests and lines
// waiting for --reorder as they stand, and an estimate of the engines'
// state for the traffic read so far (sim.EstimateBytes, which errs high)
// for the settings decided side by side.
type Memory struct {
	key       accesslog.Key
	reorder   time.Duration
	settings  []Setting
	limiters  [][]algo.Limiter // each setting's, fresh: what the estimate reads
	windows   []time.Duration  // the settings' windows, each once: Usage counts runs in them
	atOnce    int              // settings decided side by side (0: none, --save)
	denials   bool             // each client's denials counted, for a sweep's table or --tui's focus
	view      bool             // --tui: the traffic copied into a scenario, and the view's timeline
	peaks     bool             // --recommend: each request's instant grouped by client, and each client's peaks (FindPeaks)
	perClient int64            // --denied's table, bytes a client (denied.go)
	shares    []bool           // by setting: its pass decides it together, its slot a client held by the pass's first
	deniedAll bool             // --denied's tables of every setting held at once
}

// Recommending counts what --recommend's peaks hold besides (FindPeaks).
func (m *Memory) Recommending() { m.peaks = true }

// NewMemory counts a replay at settings; atOnce of them are decided
// side by side.
func NewMemory(key accesslog.Key, reorder time.Duration, settings []Setting, atOnce int, denials, view bool) (*Memory, error) {
	m := &Memory{key: key, reorder: reorder, settings: settings, atOnce: atOnce, denials: denials, view: view}
	for _, s := range settings {
		ls, err := sim.Setup{Algorithms: s.Algorithms, Config: s.Config}.Limiters()
		if err != nil {
			return nil, err
		}
		m.limiters = append(m.limiters, ls)
		if !slices.Contains(m.windows, s.Config.Window) {
			m.windows = append(m.windows, s.Config.Window)
		}
	}
	m.shares = make([]bool, len(settings))
	for _, p := range passes(settings, Workers(len(settings))) {
		if together(settings, p) {
			for _, i := range p[1:] {
				m.shares[i] = true
			}
		}
	}
	return m, nil
}

// Windows are the settings' windows, each once: accesslog.Options.Windows,
// in which Usage counts runs for Check.
func (m *Memory) Windows() []time.Duration { return m.windows }

// Workers is how many of n settings a sweep decides side by side.
func Workers(n int) int { return min(runtime.GOMAXPROCS(0), n) }

// part is one thing a replay holds, and what to change when it is the most.
type part struct {
	bytes  int64
	what   string
	change string
}

// parts are what the replay holds with u read, largest first.
func (m *Memory) parts(u accesslog.Usage) []part {
	key := "use a log of fewer clients"
	if k := m.key.String(); k != "ip" {
		key = fmt.Sprintf("use a shorter --key (ip rather than %s) or a log of fewer clients", k)
	}
	ps := []part{
		{u.Keys, fmt.Sprintf("the keys of %s by --key %s (the longest %s bytes)", clientsNoun.Of(u.Clients), m.key, human.Int(int64(u.KeyBytes))), key},
		{u.Store, requestsNoun.Of(u.Requests), "cut the log to the hours you want"},
		{u.Waiting, fmt.Sprintf("lines waiting to be put in order (--reorder %s)", human.Duration(m.reorder)), "use a smaller --reorder"},
	}
	if m.atOnce > 0 {
		engines := m.engines(u)
		what := "the limiters' state"
		change := "use a log of fewer clients or a shorter --window"
		if m.atOnce > 1 {
			what = fmt.Sprintf("the limiters' state of %d settings decided side by side", m.atOnce)
			change = "replay fewer settings at a time, use a log of fewer clients or shorter windows"
		}
		ps = append(ps, part{engines, what, change})
	}
	if m.peaks {
		ps = append(ps, part{u.Requests*instantsBytes + u.Clients*peakBytes, "each request's instant, grouped by client, for --recommend's peaks", "cut the log to the hours you want"})
	}
	if m.perClient > 0 {
		what := "--denied's table of every client at one setting"
		if m.deniedAll {
			what = "--denied's tables of every client at every setting"
		}
		ps = append(ps, part{u.Clients * m.perClient, what, "use a log of fewer clients"})
	}
	if m.view {
		// A copy of the keys and runs in the scenario the view opens.
		ps = append(ps, part{u.Keys + u.Store + u.Sequences, "the scenario --tui opens (its own copy of the keys and requests)", "replay it without --tui or cut the log to the hours you want"})
	}
	slices.SortStableFunc(ps, func(a, b part) int { return int(b.bytes>>10 - a.bytes>>10) })
	return ps
}

// Total is all the replay holds with u read.
func (m *Memory) Total(u accesslog.Usage) int64 {
	var n int64
	for _, p := range m.parts(u) {
		n += p.bytes
	}
	return n
}

var (
	clientsNoun  = human.Noun{One: "client", Many: "clients"}
	requestsNoun = human.Noun{One: "request", Many: "requests"}
)

// engines is the most the settings' engines hold for the traffic in u,
// atOnce of them side by side (the largest). The settings of a pass that
// decides them together (passes) hold each client's slot once.
func (m *Memory) engines(u accesslog.Usage) int64 {
	each := make([]int64, len(m.settings))
	for i, s := range m.settings {
		// The keys are the log's, which the engines share: counted there.
		ld := sim.Load{Clients: u.Clients, Runs: u.Runs, Span: u.Span,
			RunsInWindow: u.RunsInWindow[slices.Index(m.windows, s.Config.Window)]}
		opts := sim.Options{ForwardOnly: true}
		if m.view {
			opts, ld.Runs = sim.Options{History: true}, u.Sequences // the view's engine, the largest of --tui's
		}
		each[i] = sim.EstimateBytes(m.limiters[i], ld, opts)
		if m.shares[i] && !m.view {
			each[i] -= sim.SlotBytes(m.limiters[i], u.Clients)
		}
		if m.denials {
			// replaySetting's denials a client for each limiter, and its name.
			each[i] += u.Clients*int64(4*len(s.Algorithms)+16) + int64(len(s.Algorithms))*histogramMax*8
		}
	}
	slices.SortFunc(each, func(a, b int64) int { return int(b>>10 - a>>10) })
	var n int64
	for _, b := range each[:min(m.atOnce, len(each))] {
		n += b
	}
	return n
}

// Check refuses a replay over the budget: how much, of what, and what to
// change (accesslog.Options.Check, which adds the file and line).
func (m *Memory) Check(u accesslog.Usage) error {
	total := m.Total(u)
	if total <= Budget {
		return nil
	}
	ps := m.parts(u)
	var held []string
	for _, p := range ps {
		if p.bytes >= 1<<20 {
			held = append(held, human.Int((p.bytes+1<<19)>>20)+" MiB for "+p.what) // to the nearest: the total errs high already
		}
	}
	return fmt.Errorf("by this line replaying the log needs about %s, more than the %s that windowlab's memory budget of %s leaves for its data: %s; %s",
		human.MiB(total), human.MiB(Budget), human.MiB(algo.MemoryBudget), strings.Join(held, ", "), ps[0].change)
}
