package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/scenarios"
)

// settle sends m a message and then the messages its commands return,
// as the program would, leaving out clock ticks.
func settle(t *testing.T, m Model, msg tea.Msg) Model {
	t.Helper()
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0 && n < 100; n++ {
		next, cmd := m.Update(queue[0])
		m, queue = next.(Model), queue[1:]
		queue = append(queue, run(cmd)...)
	}
	return m
}

// run runs a command, and a batch's commands, returning their messages
// (ticks left out).
func run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(time.Second): // a timer (a cursor's blink): not a reply
		return nil
	}
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, run(c)...)
		}
		return out
	case tickMsg, nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

func randomTraffic(t *testing.T) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Builtin("random-traffic")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// ! focuses the worst client: the one a limiter admitted most over its
// limit in one window, named with why.
func TestWorstClient(t *testing.T) {
	m := update(t, newModel(t, randomTraffic(t), 100, 30), press("G")...)
	fixed := m.snap.Stats[0]
	if fixed.MaxInWindow <= m.snap.Config.Limit {
		t.Fatalf("the fixed window never overshot: %d", fixed.MaxInWindow)
	}
	m = settle(t, m, keyMsg("!"))
	s := screen(m)
	if m.snap.Client != fixed.MaxInWindowClient || !strings.Contains(s, "client "+fixed.MaxInWindowClient+" (chosen)") ||
		!strings.Contains(s, "focused "+fixed.MaxInWindowClient+": fixed admitted 20 to it in one window, twice the limit") {
		t.Fatalf("! should focus %s:\n%s", fixed.MaxInWindowClient, s)
	}
	// Without an overshoot, the client denied most.
	exact := parse("limit: 2\nwindow: 1m\nalgorithms: [sliding-log]\ntraffic:\n  - {at: \"12:00:00\", count: 2, client: ann}\n" +
		"  - {at: \"12:00:01\", count: 5, client: bob}\n  - {at: \"12:00:02\", count: 1, client: cy}\n")
	m = settle(t, update(t, newModel(t, exact, 100, 30), press("G")...), keyMsg("!"))
	if m.snap.Client != "bob" || !strings.Contains(screen(m), "focused bob: denied most: 5 requests · log ✗3") {
		t.Errorf("! without an overshoot:\n%s", screen(m))
	}
}

// C lists every client worst first; typing filters them by name and
// enter focuses one, with the lanes and the timeline following it.
func TestClientPicker(t *testing.T) {
	m := update(t, newModel(t, randomTraffic(t), 100, 30), press("G")...)
	m = settle(t, m, keyMsg("C"))
	s := screen(m)
	if modeOf(m) != modeClients || !strings.Contains(s, "Focus a client") || !strings.Contains(s, "501 items") {
		t.Fatalf("C should list 500 clients and the follow row:\n%s", s)
	}
	rows := countClients(m.eng.History(), m.eng.Clients(), m.snap.Algorithms)
	for i := 1; i < len(rows); i++ {
		if rows[i].mostDenied() > rows[i-1].mostDenied() {
			t.Fatalf("rows are not worst first: %v then %v", rows[i-1], rows[i])
		}
	}
	var total int64
	for _, r := range rows {
		total += r.requests
	}
	if total != m.snap.Processed {
		t.Errorf("the rows count %d requests, the replay decided %d", total, m.snap.Processed)
	}
	m = settle(t, m, keyMsg("/"))
	for _, r := range "client-42" {
		m = settle(t, m, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	m = settle(t, m, keyMsg("enter")) // leave the filter
	m = settle(t, m, keyMsg("enter")) // focus the first match
	if modeOf(m) != modeMain || m.snap.Client != "client-42" {
		t.Fatalf("focused %q in mode %v, want client-42:\n%s", m.snap.Client, modeOf(m), screen(m))
	}
	m = update(t, m, press("f")...)
	if m.snap.Timeline.Client != "client-42" {
		t.Errorf("the timeline shows %q, want the chosen client", m.snap.Timeline.Client)
	}
	// The follow row gives the focus back to the last request.
	m = settle(t, m, keyMsg("C"))
	m = settle(t, m, keyMsg("home"))
	m = settle(t, m, keyMsg("enter"))
	if m.chosen != "" || !strings.Contains(screen(m), "(the last request's)") {
		t.Errorf("the follow row:\n%s", screen(m))
	}
}
