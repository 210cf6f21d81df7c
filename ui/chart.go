package ui

import (
	"time"

	"windowlab/algo"
	"windowlab/sim"
	"windowlab/ui/render"
)

// chartBudget bounds the arrivals one refresh may decide again to read the
// chart's states (sim.Engine.StatesAt): past it the chart says to zoom in
// rather than hold up the frame.
const chartBudget = 200_000

// chartView is the chart of each limiter's state under the timeline (v):
// whether it is on, the states it draws, and the states already read.
type chartView struct {
	chartOn     bool
	chartTotal  bool // every client's state summed, not the focused client's
	chartStates *sim.States
	chartCache  *chartCache
}

// chartCache keeps the states read at instants before the clock: each is a
// pure function of the scenario (every arrival at or before it decided),
// so moving the clock, forward or back, reads only the columns not read
// before, and playing replays little more than the newest column.
type chartCache struct {
	eng    *sim.Engine
	total  int64 // the scenario's arrivals: traffic added or taken away reads afresh
	client string
	cell   time.Duration
	at     map[algo.Instant]chartColumn
	cursor sim.StatesCursor // where the last replay stopped, before the clock
}

// chartColumn is one column's states: at its instant, and its range.
type chartColumn struct{ d, lo, hi []algo.Decision }

// toggleChart shows or hides the chart (v), or with whose, switches it
// between the focused client and every client (V), showing it.
func (m *Model) toggleChart(whose bool) {
	if whose {
		m.chartTotal = !m.chartOn || !m.chartTotal
		m.chartOn = true
	} else {
		m.chartOn = !m.chartOn
	}
	m.chartStates = nil
	m.readChart()
	if m.chartOn {
		m.status = ""
	}
}

// readChart reads each limiter's state at the timeline's columns for the
// focused client, from the cache where it can.
func (m *Model) readChart() {
	if !m.chartOn || (m.snap.Client == "" && !m.chartTotal) {
		m.chartStates = nil
		return
	}
	t := m.snap.Timeline
	at := render.ChartInstants(t, m.snap.Now)
	if m.chartTotal { // from the history's counts: a few searches a column
		s := m.eng.TotalsAt(at)
		m.chartStates = &s
		return
	}
	c := m.chartCache
	if c == nil || c.eng != m.eng || c.total != m.snap.Total || c.client != m.snap.Client || c.cell != t.Cell || len(c.at) > 8*len(at) {
		c = &chartCache{eng: m.eng, total: m.snap.Total, client: m.snap.Client, cell: t.Cell, at: map[algo.Instant]chartColumn{}}
		m.chartCache = c
	}
	s := sim.States{At: at, Decisions: make([][]algo.Decision, len(at)),
		Lo: make([][]algo.Decision, len(at)), Hi: make([][]algo.Decision, len(at))}
	for s.Known < len(at) && at[s.Known] <= m.snap.Now {
		s.Known++
	}
	first := s.Known // the first column not read before
	for i, a := range at[:s.Known] {
		col, ok := c.at[a]
		if !ok {
			first = min(first, i)
			continue
		}
		s.Decisions[i], s.Lo[i], s.Hi[i] = col.d, col.lo, col.hi
	}
	if first < s.Known {
		// From the column before: each column's range starts at the one before's state.
		from := max(first-1, 0)
		r := m.eng.StatesAt(m.snap.Client, at[from:s.Known], chartBudget, &c.cursor)
		if r.TooMany {
			m.chartStates = &sim.States{At: at, TooMany: true}
			return
		}
		s.Replayed = r.Replayed
		for j := range r.Known {
			i := from + j
			if i < first {
				continue
			}
			s.Decisions[i], s.Lo[i], s.Hi[i] = r.Decisions[j], r.Lo[j], r.Hi[j]
			if at[i] < m.snap.Now { // final: every arrival at or before it is decided
				c.at[at[i]] = chartColumn{r.Decisions[j], r.Lo[j], r.Hi[j]}
			}
		}
	}
	m.chartStates = &s
}

// chartLines is the chart with the timeline in at most h lines.
func (m Model) chartLines(h int) []string {
	return render.Chart{C: m.c, Snap: &m.snap, States: m.chartStates, Total: m.chartTotal}.Fit(h)
}
