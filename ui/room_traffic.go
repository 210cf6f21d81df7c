package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/sim"
)

// The teacher's traffic in a classroom: what a teacher's view makes at the
// clock (r, b, s, u) and the rules it decides under (e, the knobs ( ) { })
// go with every position it publishes (room.Position.Traffic), and a
// following view takes them before it goes to the position: it decides
// only what is new when its additions are where the teacher's were (a
// burst made, a stream grown), and replays the scenario with the teacher's
// additions when they are not (an undo, a knob, a student back from
// exploring alone with traffic of their own). Either way its arrivals, and
// so its records, are the teacher's, request for request: a position is an
// index into them.

// maxFollowedRuns bounds the runs a following view holds as added at the
// clock, about 60 bytes each: a server holds one such view per student,
// and a stream the teacher runs at 1,000 a second would otherwise grow
// each by 60 MB in 17 minutes. Past it, the view replays the teacher's
// additions from their own form (a stream is one entry however long),
// which holds none, and goes on adding from there.
const maxFollowedRuns = 10_000

// toAddition is a traffic entry made at the clock as the room carries it.
func toAddition(t scenarios.Traffic) room.Addition {
	if t.Shape == scenarios.Stream {
		return room.Addition{Client: t.Client, From: t.From, To: t.To, Every: t.Every}
	}
	return room.Addition{Client: t.Client, At: t.At, Count: t.Count}
}

// fromAddition is an addition the room carried as a traffic entry.
func fromAddition(a room.Addition) scenarios.Traffic {
	if a.Count == 0 {
		return scenarios.Traffic{Shape: scenarios.Stream, Client: a.Client, From: a.From, To: a.To, Every: a.Every}
	}
	return scenarios.Traffic{Shape: scenarios.Burst, Client: a.Client, At: a.At, Count: a.Count}
}

// emptyStretch reports whether e is a stream's stretch with no request yet.
func emptyStretch(e scenarios.Traffic) bool { return e.Shape == scenarios.Stream && e.To <= e.From }

// sharesTraffic reports whether t is the view's traffic and rules as they
// stand, without copying them.
func (m *Model) sharesTraffic(t *room.Traffic) bool {
	if t == nil || t.Scenario != m.baseScenario().Name || t.Name != m.sc.Name || t.Config != m.sc.Config ||
		!slices.Equal(t.Algorithms, m.sc.Algorithms) {
		return false
	}
	i := 0
	for _, a := range m.additions() {
		if emptyStretch(a.entry) {
			continue
		}
		if i >= len(t.Added) || toAddition(a.entry) != t.Added[i] {
			return false
		}
		i++
	}
	return i == len(t.Added)
}

// roomTraffic is the teacher's traffic and rules as the room carries
// them: the one last shared while it still holds, so that a position
// whose traffic did not change compares equal and costs nothing.
func (m *Model) roomTraffic() *room.Traffic {
	if m.sharesTraffic(m.traffic.shared) {
		return m.traffic.shared
	}
	t := &room.Traffic{Scenario: m.baseScenario().Name, Name: m.sc.Name, Config: m.sc.Config,
		Algorithms: slices.Clone(m.sc.Algorithms)}
	for _, e := range m.entries() {
		t.Added = append(t.Added, toAddition(e))
	}
	m.traffic.shared = t
	return t
}

// roomRefuses is why a teacher's view may not add one more entry: the
// room carries at most room.MaxAdditions.
func (m *Model) roomRefuses() error {
	if m.teaching() && len(m.entries()) >= room.MaxAdditions {
		return fmt.Errorf("the room carries at most %s additions: u takes one away", human.Int(room.MaxAdditions))
	}
	return nil
}

// followTraffic makes the view's traffic and rules t, the teacher's; nil,
// or traffic of another scenario, leaves the view as it is.
func (m *Model) followTraffic(t *room.Traffic) {
	if t == nil || t.Scenario != m.baseScenario().Name {
		return
	}
	if m.sharesTraffic(t) {
		m.traffic.shared = t
		return
	}
	if err := t.Check(); err != nil {
		m.status = "the teacher's traffic cannot be followed: " + err.Error()
		return
	}
	want := make([]scenarios.Traffic, len(t.Added))
	for i, a := range t.Added {
		want[i] = fromAddition(a)
	}
	// What a file may hold: client names, shapes, the scenario's budget.
	if _, err := m.baseScenario().WithTraffic(want); err != nil {
		m.status = "the teacher's traffic cannot be followed: " + err.Error()
		return
	}
	have := slices.Clone(m.additions())
	theirs := m.sharesTraffic(m.traffic.shared) // the view's additions were the teacher's, not its own
	m.traffic.stream = nil
	if t.Name != m.sc.Name || t.Config != m.sc.Config || !slices.Equal(t.Algorithms, m.sc.Algorithms) || !m.catchUp(want) {
		if err := m.replayTeacher(t, want); err != nil {
			m.status = "the teacher's traffic cannot be followed: " + err.Error()
			return
		}
	}
	m.traffic.shared = t
	switch said := teacherMade(have, want); {
	case !m.inRoom:
	case !theirs && len(have) > 0:
		m.status = "the teacher's traffic replaces yours"
	case said != "":
		m.status = said
	}
}

// teacherMade says, on a student's screen, what the teacher's last change
// to the traffic was.
func teacherMade(have []addition, want []scenarios.Traffic) string {
	switch {
	case len(want) > len(have) && want[len(want)-1].Shape == scenarios.Stream:
		w := want[len(want)-1] // a stream started, or one going on at another rate
		return fmt.Sprintf("the teacher's stream for %s: one request every %s from %s", w.Client, human.Duration(w.Every), w.From.Short())
	case len(want) > len(have):
		return "the teacher made " + describe(want[len(want)-1])
	case len(want) < len(have):
		return "the teacher took away " + describe(have[len(want)].entry)
	}
	return ""
}

// catchUp brings the view's additions to want by deciding only what is
// new: want must be the additions with a stream grown or entries after
// them, each new request at or after the clock. It reports false, having
// changed nothing, when only a replay can (an undo, an entry changed,
// requests before the clock or more than the view holds made at it).
func (m *Model) catchUp(want []scenarios.Traffic) bool {
	have := m.additions()
	if len(want) < len(have) || slices.ContainsFunc(have, func(a addition) bool { return emptyStretch(a.entry) }) {
		return false
	}
	var runs []sim.Added
	counts := make([]int, len(want))
	held, _ := m.eng.Injected()
	for i, w := range want {
		from := algo.Instant(math.MinInt64)
		if i < len(have) {
			h := have[i].entry
			if h == w {
				continue
			}
			if !grown(h, w) || !m.nothingAtOrAfter(i, h.To) {
				return false
			}
			from = h.To
		}
		if held+len(runs)+runCount(w, from) > maxFollowedRuns {
			return false
		}
		rs := w.Runs(from, math.MaxInt64)
		counts[i] = len(rs)
		runs = append(runs, rs...)
	}
	// At one instant, in the order of the entries, as a file's are: the
	// sort is stable, and runs are in the entries' order.
	slices.SortStableFunc(runs, func(a, b sim.Added) int { return cmp.Compare(a.At, b.At) })
	if err := m.eng.Inject(runs); err != nil {
		return false // before the clock
	}
	for i, w := range want {
		if i < len(have) {
			if have[i].eng == m.eng {
				have[i].runs += counts[i]
			}
			have[i].entry = w
			if counts[i] > 0 {
				m.injectedAfter(i)
			}
			continue
		}
		m.traffic.added = append(m.traffic.added, addition{entry: w, eng: m.eng, runs: counts[i]})
	}
	if len(runs) > 0 {
		m.end = max(m.end, runs[len(runs)-1].At.Add(m.eng.Window()))
	}
	return true
}

// grown reports whether w is the stream h gone on for longer.
func grown(h, w scenarios.Traffic) bool {
	return h.Shape == scenarios.Stream && w.Shape == scenarios.Stream && h.Client == w.Client &&
		h.From == w.From && h.Every == w.Every && w.To > h.To
}

// nothingAtOrAfter reports whether every addition after the i-th has its
// requests before t: a stream's requests from t on then come after them
// in a file's order too.
func (m *Model) nothingAtOrAfter(i int, t algo.Instant) bool {
	for _, a := range m.traffic.added[i+1:] {
		if e := a.entry; (e.Shape == scenarios.Stream && e.To > t) || (e.Shape != scenarios.Stream && e.At >= t) {
			return false
		}
	}
	return true
}

// runCount is how many runs w.Runs(from, …) gives, counted, not made.
func runCount(w scenarios.Traffic, from algo.Instant) int {
	if w.Shape != scenarios.Stream {
		if w.At >= from {
			return 1
		}
		return 0
	}
	every := algo.Instant(w.Every / time.Millisecond)
	if every < 1 {
		return 0
	}
	at := w.From
	if from > at {
		at += (from - at + every - 1) / every * every
	}
	if at >= w.To {
		return 0
	}
	return int(min((w.To-at+every-1)/every, math.MaxInt32))
}

// replayTeacher replays the scenario under the teacher's rules with the
// teacher's additions, the clock where it stood (the position it follows
// moves it).
func (m *Model) replayTeacher(t *room.Traffic, want []scenarios.Traffic) error {
	base := m.baseScenario()
	sc := base
	var err error
	if t.Name != base.Name {
		if sc, err = base.WhatIf(t.Config, t.Algorithms); err != nil {
			return err
		}
	}
	if sc.Name != t.Name || sc.Config != t.Config || !slices.Equal(sc.Algorithms, t.Algorithms) {
		return fmt.Errorf("its rules are not a what-if of %s", base.Name)
	}
	if len(want) > 0 {
		if sc, err = sc.WithTraffic(want); err != nil {
			return err
		}
	}
	eng, err := buildEngine(sc, m.ctl)
	if err != nil {
		return err
	}
	chosen, tl := m.chosen, m.timeline
	m.setScenario(sc, eng)
	m.original = nil
	if sc != base {
		m.original = base
	}
	tl.Window = sc.Config.Window
	m.chosen, m.timeline = chosen, tl
	added := make([]addition, len(want))
	for i, w := range want {
		added[i] = addition{entry: w} // in the engine's source
	}
	m.traffic = trafficState{base: base, added: added}
	return nil
}
