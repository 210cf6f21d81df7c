package ui

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/sim"
)

// Traffic made at the clock: r sends one request now, b a burst (a prompt),
// s a steady stream that runs with the clock (< and > nudge its rate), u
// takes the last addition away. Each request is decided as it comes, one
// decision per limiter (sim.Engine.Inject), and becomes a traffic entry of
// the scenario (scenarios.WithTraffic), so the what-if form, the live knobs
// ( ) { } and w see it as any other traffic. windowlab play opens an empty
// clock for exactly this.

// trafficState is what the view keeps of the traffic made at the clock.
type trafficState struct {
	// base is the scenario the additions were made to (the one before
	// any what-if); another scenario on screen leaves them behind.
	base   *scenarios.Scenario
	added  []addition
	stream *stream // the stream running, or nil
	// shared is the traffic and rules last shared with the room or taken
	// from it (room_traffic.go), while they still stand.
	shared *room.Traffic
}

// addition is one entry added: a burst, or a stream (or a stretch of one
// at one rate).
type addition struct {
	entry scenarios.Traffic
	eng   *sim.Engine // the engine it was injected into; any other has it in its source
	runs  int         // runs injected into eng
}

// stream is the stream running: added[i], fed as the clock plays.
type stream struct {
	i     int
	rate  int64        // requests a second, as asked
	next  algo.Instant // its next request
	clock algo.Instant // where the clock stood when it was last fed: a clock moved by hand ends it
}

// maxInjectedRuns bounds the runs one engine holds in memory (about 50 B
// each): a stream's every request is one. A knob, e, or a file w writes
// puts them in the scenario's traffic entries, which cost nothing until
// replayed.
const maxInjectedRuns = 1_000_000

// Requests a second a stream may run at (its requests are whole
// milliseconds apart), and the steps < and > move through.
const maxStreamRate = 1000

var streamRates = []int64{1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600, 800, 1000}

// every is the gap between a stream's requests at rate a second.
func every(rate int64) time.Duration {
	return time.Duration((1000+rate/2)/rate) * time.Millisecond
}

// baseScenario is the scenario before any what-if: the one additions are
// made to.
func (m Model) baseScenario() *scenarios.Scenario {
	if m.original != nil {
		return m.original
	}
	return m.sc
}

// additions are the additions to the scenario on screen (none when another
// scenario was opened since).
func (m *Model) additions() []addition {
	if m.traffic.base != m.baseScenario() {
		m.traffic = trafficState{base: m.baseScenario()}
	}
	return m.traffic.added
}

// entries are the additions as traffic entries, leaving out a stream's
// stretch that has no request yet.
func (m *Model) entries() []scenarios.Traffic {
	var out []scenarios.Traffic
	for _, a := range m.additions() {
		if a.entry.Shape != scenarios.Stream || a.entry.To > a.entry.From {
			out = append(out, a.entry)
		}
	}
	return out
}

// rules is the scenario whose rules are on screen, without the additions:
// the base, or the base under the what-if's rules.
func (m Model) rules() (*scenarios.Scenario, error) {
	if m.original == nil {
		return m.sc, nil
	}
	return m.original.WhatIf(m.sc.Config, m.sc.Algorithms)
}

// withAdded is sc (a what-if of the base) with the additions: what the
// what-if form and the knobs replay.
func (m *Model) withAdded(sc *scenarios.Scenario) (*scenarios.Scenario, error) {
	entries := m.entries()
	if len(entries) == 0 {
		return sc, nil
	}
	return sc.WithTraffic(entries)
}

// played is the scenario with its additions, as w writes it.
func (m *Model) played() (*scenarios.Scenario, error) {
	sc, err := m.rules()
	if err != nil {
		return nil, err
	}
	return sc.WithTraffic(m.entries())
}

// focusClient is who r, b and s send as when no name is typed: the
// focused client, or the file format's default.
func (m Model) focusClient() string {
	if m.chosen != "" {
		return m.chosen
	}
	if m.snap.Client != "" {
		return m.snap.Client
	}
	return "client-1"
}

// errFollowing is why a following student's keys make no traffic.
var errFollowing = errors.New("you follow the teacher: move the clock yourself (→) to explore alone, then make your own traffic")

// add makes entry's requests at the clock and decides them: refused, with
// the reason, when the scenario could not hold it.
func (m Model) add(entry scenarios.Traffic, runs []sim.Added) (Model, tea.Cmd, error) {
	if m.inRoom && m.following {
		return m, nil, errFollowing
	}
	// A teacher's goes to the room with the next position (room_traffic.go).
	if err := m.roomRefuses(); err != nil {
		return m, nil, err
	}
	rules, err := m.rules()
	if err != nil {
		return m, nil, err
	}
	if _, err := rules.WithTraffic(append(m.entries(), entry)); err != nil {
		return m, nil, err
	}
	if err := m.eng.Inject(runs); err != nil {
		return m, nil, err
	}
	m.traffic.added = append(m.traffic.added, addition{entry: entry, eng: m.eng, runs: len(runs)})
	if n := len(runs); n > 0 {
		m.end = max(m.end, runs[n-1].At.Add(m.eng.Window()))
	}
	m.release()
	now := m.eng.Now()
	return m, m.move(func(e *sim.Engine) { e.Seek(now) }), nil
}

// burst adds count requests of client at the clock.
func (m Model) burst(count int64, client string) (Model, tea.Cmd, error) {
	now := m.eng.Now()
	e := scenarios.Traffic{Shape: scenarios.Burst, Client: client, At: now, Count: count}
	next, cmd, err := m.add(e, []sim.Added{{At: now, Client: client, Count: count}})
	if err == nil {
		next.status = fmt.Sprintf("%s at %s for %s · u undoes it", human.Noun{One: "request", Many: "requests"}.Of(count), now.Short(), client)
		if !next.writesNothing { // a classroom's session writes no file
			next.status += " · w saves a file"
		}
	}
	return next, cmd, err
}

// startStream starts a stream of rate a second for client: its first
// request now, the rest as the clock plays (which it starts).
func (m Model) startStream(rate int64, client string) (Model, tea.Cmd, error) {
	now := m.eng.Now()
	e := scenarios.Traffic{Shape: scenarios.Stream, Client: client, From: now, To: now + 1, Every: every(rate)}
	next, cmd, err := m.add(e, e.Runs(now, now+1))
	if err != nil {
		return m, nil, err
	}
	next.traffic.stream = &stream{i: len(next.traffic.added) - 1, rate: rate, next: now.Add(e.Every), clock: now}
	if !next.playing {
		cmd = tea.Batch(cmd, next.play())
	}
	return next, cmd, nil
}

// feedStream adds the running stream's requests up to target, before
// playing moves the clock there; a clock moved by hand since the last
// feed, or the scenario's budget, ends the stream.
func (m *Model) feedStream(target algo.Instant) {
	s := m.traffic.stream
	if s == nil {
		return
	}
	if m.traffic.base != m.baseScenario() || m.eng.Now() != s.clock {
		m.traffic.stream = nil
		return
	}
	a := &m.traffic.added[s.i]
	e := a.entry
	e.To = max(e.To, target+1)
	runs := e.Runs(s.next, target+1)
	if held, _ := m.eng.Injected(); held+len(runs) > maxInjectedRuns {
		m.traffic.stream = nil
		m.stop()
		m.status = fmt.Sprintf("the stream stops: the view holds %s requests made at the clock, its most; a knob or w puts them in the scenario's own form", human.Int(maxInjectedRuns))
		return
	}
	if len(runs) > 0 {
		if _, err := m.withAddedEntry(s.i, e); err != nil {
			m.traffic.stream = nil
			m.stop()
			m.status = "the stream stops: " + err.Error()
			return
		}
		if err := m.eng.Inject(runs); err != nil {
			m.traffic.stream = nil
			return
		}
		s.next = runs[len(runs)-1].At.Add(e.Every)
		if a.eng == m.eng {
			a.runs += len(runs)
		}
		m.injectedAfter(s.i)
		m.end = max(m.end, runs[len(runs)-1].At.Add(m.eng.Window()))
	}
	a.entry = e
	s.clock = target
}

// injectedAfter notes that addition i had runs injected after those of
// the additions made since: their runs are no longer the engine's last,
// so sim.Engine.Uninject cannot take them away, and undo replays instead
// (it took the stream's last request, not a burst made while it ran).
func (m *Model) injectedAfter(i int) {
	for j := i + 1; j < len(m.traffic.added); j++ {
		m.traffic.added[j].eng = nil
	}
}

// leaveTraffic leaves the traffic made at the clock behind, as another
// scenario on screen does: a lesson keeps each step's engine to come back
// to, which must not keep requests no addition accounts for (u could not
// take them away, w would not write them, a room would not carry them).
func (m *Model) leaveTraffic() {
	if runs, _ := m.eng.Injected(); runs > 0 {
		if err := m.eng.Uninject(runs); err != nil {
			m.status = err.Error()
		}
	}
	m.traffic = trafficState{}
}

// withAddedEntry checks the scenario with addition i changed to e against
// the file's budget.
func (m *Model) withAddedEntry(i int, e scenarios.Traffic) (*scenarios.Scenario, error) {
	rules, err := m.rules()
	if err != nil {
		return nil, err
	}
	entries := make([]scenarios.Traffic, 0, len(m.traffic.added))
	for j, a := range m.traffic.added {
		if j == i {
			a.entry = e
		}
		entries = append(entries, a.entry)
	}
	return rules.WithTraffic(entries)
}

// nextStreamRequest is the running stream's next request, for playing not
// to skip past it as idle.
func (m Model) nextStreamRequest() (algo.Instant, bool) {
	if s := m.traffic.stream; s != nil && m.traffic.base == m.baseScenario() {
		return s.next, true
	}
	return 0, false
}

// nudgeStream moves the running stream's rate a step up (dir > 0) or down
// the ladder: the stream goes on at the new rate as a new stretch.
func (m Model) nudgeStream(dir int) Model {
	s := m.traffic.stream
	if s == nil || m.traffic.base != m.baseScenario() || m.eng.Now() != s.clock {
		m.traffic.stream = nil
		m.status = "no stream is running: s starts one"
		return m
	}
	i, _ := slices.BinarySearch(streamRates, s.rate)
	switch {
	case dir > 0 && i < len(streamRates) && streamRates[i] == s.rate:
		i++
	case dir < 0:
		i--
	}
	i = min(max(i, 0), len(streamRates)-1)
	rate := streamRates[i]
	if err := m.roomRefuses(); err != nil && rate != s.rate {
		m.status = "✗ " + err.Error()
		return m
	}
	if rate == s.rate {
		m.status = fmt.Sprintf("the stream runs at %d/s already, as %s as it goes", rate, map[bool]string{true: "fast", false: "slow"}[dir > 0])
		return m
	}
	old := m.traffic.added[s.i].entry
	gap := every(rate)
	from := max(s.next.Add(gap-old.Every), s.clock+1)
	e := scenarios.Traffic{Shape: scenarios.Stream, Client: old.Client, From: from, To: from, Every: gap}
	m.traffic.added = append(m.traffic.added, addition{entry: e, eng: m.eng})
	m.traffic.stream = &stream{i: len(m.traffic.added) - 1, rate: rate, next: from, clock: s.clock}
	return m
}

// undo takes the last addition away: from the engine that decided it
// (sim.Engine.Uninject), or, when the rules changed since, by replaying the
// rest under them; the clock stays.
func (m Model) undo() (Model, tea.Cmd) {
	if m.inRoom && m.following {
		m.status = "✗ " + errFollowing.Error()
		return m, nil
	}
	m.traffic.stream = nil
	added := m.additions()
	for len(added) > 0 && added[len(added)-1].entry.Shape == scenarios.Stream && added[len(added)-1].entry.To <= added[len(added)-1].entry.From {
		added = added[:len(added)-1] // a stretch with no request yet
	}
	m.traffic.added = added
	if len(added) == 0 {
		m.status = "nothing to take away: r, b and s make traffic"
		return m, nil
	}
	last := added[len(added)-1]
	m.traffic.added = added[:len(added)-1]
	m.status = "took away " + describe(last.entry)
	if last.eng == m.eng {
		if err := m.eng.Uninject(last.runs); err != nil {
			m.status = "could not take it away: " + err.Error()
			return m, nil
		}
		m.release()
		m.refresh()
		return m, nil
	}
	return m.replayAdded()
}

// replayAdded replays the scenario under the rules on screen with the
// additions as they stand, the clock where it stood.
func (m Model) replayAdded() (Model, tea.Cmd) {
	sc, err := m.played()
	var eng *sim.Engine
	if err == nil {
		eng, err = buildEngine(sc, m.ctl)
	}
	if err != nil {
		m.status = err.Error()
		return m, nil
	}
	base, status, now := m.baseScenario(), m.status, m.eng.Now()
	chosen, tl, traffic := m.chosen, m.timeline, m.traffic
	m.setScenario(sc, eng)
	m.original, m.chosen, m.timeline, m.traffic, m.status = base, chosen, tl, traffic, status
	return m, m.move(func(e *sim.Engine) { e.Seek(now) })
}

// describe is an entry in words, for the status line.
func describe(t scenarios.Traffic) string {
	if t.Shape == scenarios.Stream {
		n := (int64(t.To-t.From) + int64(t.Every/time.Millisecond) - 1) / int64(t.Every/time.Millisecond)
		return fmt.Sprintf("a stream of %s for %s from %s", human.Noun{One: "request", Many: "requests"}.Of(n), t.Client, t.From.Short())
	}
	return fmt.Sprintf("%s for %s at %s", human.Noun{One: "request", Many: "requests"}.Of(t.Count), t.Client, t.At.Short())
}

// nudgeRules moves the limit (what 'l') or the window a step, through the
// what-if form's own nudge and replay: the same traffic, the additions
// with it, decided again under the new rules at once.
func (m Model) nudgeRules(row, dir int) (tea.Model, tea.Cmd) {
	f := newWhatIfForm(m.c.Styles, m.sc)
	f.row = row
	moved := f.nudge(dir)
	if moved.limit.Value() == f.limit.Value() && moved.window.Value() == f.window.Value() {
		what := map[int]string{0: "limit", 1: "window"}[row]
		m.status = fmt.Sprintf("the %s is at its %s already: e sets any other", what, map[bool]string{true: "most", false: "least"}[dir > 0])
		return m, nil
	}
	playing := m.playing
	next, cmd := m.applyWhatIf(moved)
	nm := next.(Model)
	if f, ok := nm.dialog.(whatIfForm); ok { // refused: say why, leave the rules
		nm.dialog = nil
		nm.status = "✗ " + f.err
		return nm, cmd
	}
	if playing {
		cmd = tea.Batch(cmd, nm.play())
	}
	return nm, cmd
}

// onTrafficKey handles the keys that make traffic and the knobs.
func (m Model) onTrafficKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Request):
		next, cmd, err := m.burst(1, m.focusClient())
		if err != nil {
			m.status = "✗ " + err.Error()
			return m, nil
		}
		return next, cmd
	case key.Matches(msg, k.Burst):
		return m.openTrafficPrompt(promptBurst), nil
	case key.Matches(msg, k.Stream):
		if m.traffic.stream != nil && m.traffic.base == m.baseScenario() {
			m.traffic.stream = nil
			m.status = "the stream stops; u takes it away, s starts another"
			return m, nil
		}
		return m.openTrafficPrompt(promptStream), nil
	case key.Matches(msg, k.StreamRate):
		return m.nudgeStream(map[bool]int{true: 1, false: -1}[msg.String() == ">"]), nil
	case key.Matches(msg, k.Undo):
		return m.undo()
	case key.Matches(msg, k.Limit):
		return m.nudgeRules(0, map[bool]int{true: 1, false: -1}[msg.String() == ")"])
	case key.Matches(msg, k.Window):
		return m.nudgeRules(1, map[bool]int{true: 1, false: -1}[msg.String() == "}"])
	}
	return m, nil
}

// streamLine is the stream running, its rate and the keys that change it.
func (m Model) streamLine() string {
	if s, ok := m.nextStreamRequest(); ok && m.eng.Now() == m.traffic.stream.clock {
		st := m.traffic.stream
		e := m.traffic.added[st.i].entry
		// As much as the width holds; the keys stay.
		who := fmt.Sprintf("▶ stream %d/s for %s", st.rate, human.Visible(e.Client))
		keys := " · < > rate · s stops"
		for _, line := range []string{
			who + ", one every " + human.Duration(e.Every) + ", next " + s.Short() + keys,
			who + ", next " + s.Short() + keys,
			who + keys,
		} {
			if m.c.Cells.StringWidth(line) <= m.c.Width {
				return line
			}
		}
		return who + keys
	}
	return ""
}

// playHint is, on an empty clock (windowlab play), which keys make traffic.
func (m Model) playHint() string {
	if b := m.baseScenario(); len(b.Traffic) == 0 && b.Len() == 0 && m.streamLine() == "" {
		if m.inRoom && m.following {
			return "the teacher makes the traffic here; exploring alone, r b s make your own"
		}
		return "make traffic: r request · b burst · s stream · u undo · ( ) limit · { } window"
	}
	return ""
}

// openEnd lets the clock of an empty scenario (windowlab play) play on
// past its last request, as far as the clock goes.
func (m *Model) openEnd() {
	if b := m.baseScenario(); len(b.Traffic) == 0 && b.Len() == 0 {
		m.end = max(m.end, maxInstant)
	}
}

// parseAmount reads "N [client]" at a prompt: a whole number (with commas,
// and for a stream "/s"), and the client's name when one follows.
func parseAmount(s string, stream bool, dflt int64, client string) (int64, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return dflt, client, nil
	}
	num, name, _ := strings.Cut(s, " ")
	if name = strings.TrimSpace(name); name != "" {
		if err := scenarios.CheckClient(name); err != nil {
			return 0, "", err
		}
		client = name
	}
	num = strings.ReplaceAll(num, ",", "")
	if stream {
		num = strings.TrimSuffix(num, "/s")
	}
	n, err := strconv.ParseInt(num, 10, 64)
	switch {
	case stream && (err != nil || n < 1 || n > maxStreamRate):
		return 0, "", fmt.Errorf("a rate of %s: give requests a second from 1 to %s, such as 5", human.Quote(num), human.Int(maxStreamRate))
	case err != nil || n < 1 || n > scenarios.MaxRequests:
		return 0, "", fmt.Errorf("a burst of %s: give a whole number of requests from 1 to %s, such as 100", human.Quote(num), human.Int(scenarios.MaxRequests))
	}
	return n, client, nil
}

// saveTrafficCmd writes the scenario with the traffic made at the clock to
// a new file, <name>-traffic.yaml (never over one), which windowlab run and
// tui replay to the same decisions.
func (m *Model) saveTrafficCmd() tea.Cmd {
	sc, err := m.played()
	if err != nil {
		m.status = "could not write it: " + err.Error()
		return nil
	}
	sc.Name = strings.TrimSuffix(m.baseScenario().Name, ".yaml") + "-traffic"
	if m.original != nil && (m.sc.Config != m.original.Config || !slices.Equal(m.sc.Algorithms, m.original.Algorithms)) {
		sc.Name = m.sc.Name + "-traffic"
	}
	dir, from := m.saveDir, m.baseScenario().File
	n := len(m.entries())
	return func() tea.Msg {
		comment := fmt.Sprintf("%s\nWritten by windowlab from %s; its last %s made at the clock.\n"+
			"The original's captions, questions and expectations are left out: they speak of its traffic, not this.",
			sc.Title, from, human.Noun{One: "traffic entry was", Many: "traffic entries were"}.Of(int64(n)))
		return writeNew(sc, dir, comment)
	}
}
