package ui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"windowlab/algo"
	"windowlab/scenarios"
)

// watch records the model as the program's Update sees it, so a test can
// wait for a state rather than sleep or read the raw output stream.
type watch struct {
	mu   sync.Mutex
	last Model
	cond *sync.Cond
}

func newWatch() *watch {
	w := &watch{}
	w.cond = sync.NewCond(&w.mu)
	return w
}

func (w *watch) filter(m tea.Model, msg tea.Msg) tea.Msg {
	if mm, ok := m.(Model); ok {
		w.mu.Lock()
		w.last = mm
		w.cond.Broadcast()
		w.mu.Unlock()
	}
	return msg
}

// nudge is a message that changes nothing: the filter sees the model as it
// stands before each message, so the test sends these to look at it.
type nudge struct{}

// waitFor blocks until ok holds for the model the program last updated.
func (w *watch) waitFor(t *testing.T, tm *teatest.TestModel, what string, ok func(Model) bool) {
	t.Helper()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				tm.Send(nudge{})
			}
		}
	}()
	done := make(chan struct{})
	go func() {
		w.mu.Lock()
		for w.last.eng == nil || !ok(w.last) {
			w.cond.Wait()
		}
		w.mu.Unlock()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("gave up waiting for %s", what)
	}
}

func startProgram(t *testing.T, sc *scenarios.Scenario, w *watch) *teatest.TestModel {
	t.Helper()
	return startProgramWithBudget(t, sc, w, inFrame)
}

// startProgramWithBudget is startProgram with moves that outlast budget
// going on in the background, as in the program (frameBudget).
func startProgramWithBudget(t *testing.T, sc *scenarios.Scenario, w *watch, budget time.Duration) *teatest.TestModel {
	t.Helper()
	m, err := New(Options{Scenario: sc})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = budget
	return teatest.NewTestModel(t, m,
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(
			tea.WithColorProfile(colorprofile.Ascii),
			tea.WithEnvironment([]string{"TERM=xterm-256color", "NO_COLOR=1"}),
			tea.WithFilter(w.filter),
		))
}

func finalModel(t *testing.T, tm *teatest.TestModel) Model {
	t.Helper()
	return tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(Model)
}

func TestProgramStartsPausedAndQuits(t *testing.T) {
	w := newWatch()
	tm := startProgram(t, boundaryBurst(), w)
	w.waitFor(t, tm, "the first frame's size", func(m Model) bool { return m.c.Width == 100 })
	tm.Send(keyMsg("q"))
	m := finalModel(t, tm)
	if now, n := m.Position(); m.Playing() || n != 0 || now != algo.Clock(12, 0, 58, 0) {
		t.Fatalf("quit at %v with %d decided, playing %v; want paused at 12:00:58, nothing decided", now, n, m.Playing())
	}
}

func TestProgramPlaysToTheEnd(t *testing.T) {
	w := newWatch()
	tm := startProgram(t, boundaryBurst(), w)
	w.waitFor(t, tm, "the first frame's size", func(m Model) bool { return m.c.Width == 100 })
	for range 6 { // 64×: the scenario's 62 s of virtual time in about a second
		tm.Send(keyMsg("+"))
	}
	tm.Send(keyMsg("space"))
	w.waitFor(t, tm, "playing", func(m Model) bool { return m.Playing() })
	w.waitFor(t, tm, "the end of the scenario", func(m Model) bool {
		_, n := m.Position()
		return n == 200 && !m.Playing()
	})
	tm.Send(keyMsg("q"))
	m := finalModel(t, tm)
	if now, n := m.Position(); n != 200 || now != algo.Clock(12, 2, 0, 0) {
		t.Fatalf("stopped at %v with %d decided; want 12:02:00.000, 200", now, n)
	}
}

func TestProgramGoesToATypedTime(t *testing.T) {
	w := newWatch()
	tm := startProgram(t, workedExample(), w)
	w.waitFor(t, tm, "the first frame's size", func(m Model) bool { return m.c.Width == 100 })
	tm.Send(keyMsg("t"))
	tm.Type("12:01:15")
	tm.Send(keyMsg("enter"))
	w.waitFor(t, tm, "the seek", func(m Model) bool { _, n := m.Position(); return n == 115 })
	tm.Send(keyMsg("ctrl+c"))
	m := finalModel(t, tm)
	if now, n := m.Position(); n != 115 || now != algo.Clock(12, 1, 15, 0) {
		t.Fatalf("at %v with %d decided; want 12:01:15.000, 115", now, n)
	}
	if len(m.snap.Peek) != 3 || m.snap.Last.Decisions[2].Explain() != "30 + 84 × 0.75 = 93 → allow (93 < 100)" {
		t.Fatalf("last sliding-counter decision: %v", m.snap.Last.Decisions)
	}
}

// The view never waits on its engine: G on a scenario of millions shows the
// replay's progress, a key stops it where it stands, and q quits while it
// runs.
func TestProgramAnswersWhileALongSeekRuns(t *testing.T) {
	// seeking: G on eight million requests, every long move in the
	// background, and the replay under way.
	seeking := func(t *testing.T) (*watch, *teatest.TestModel) {
		w := newWatch()
		sc := parse("title: Millions at once\nlimit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 8000000}\n")
		tm := startProgramWithBudget(t, sc, w, time.Nanosecond)
		w.waitFor(t, tm, "the first frame's size", func(m Model) bool { return m.c.Width == 100 })
		tm.Send(keyMsg("G"))
		w.waitFor(t, tm, "the replay going on in the background", func(m Model) bool { return m.job != nil })
		return w, tm
	}
	t.Run("q quits", func(t *testing.T) {
		_, tm := seeking(t)
		tm.Send(keyMsg("q"))
		m := finalModel(t, tm)
		if _, n := m.Position(); !m.quitting || n >= 8_000_000 {
			t.Fatalf("quit with %d of 8,000,000 decided (quitting %v): the quit did not arrive while the seek ran", n, m.quitting)
		}
	})
	t.Run("a key stops the replay", func(t *testing.T) {
		w, tm := seeking(t)
		tm.Send(keyMsg("x"))
		w.waitFor(t, tm, "the replay stopped", func(m Model) bool { return m.job == nil })
		tm.Send(nudge{})
		w.waitFor(t, tm, "what it says", func(m Model) bool { return strings.Contains(m.status, "stopped replaying") })
		tm.Send(keyMsg("q"))
		m := finalModel(t, tm)
		if _, n := m.Position(); n == 0 || n >= 8_000_000 {
			t.Fatalf("stopped with %d decided; want part of the way", n)
		}
	})
}

// While a job runs, the bottom line says how far it has got.
func TestJobProgressLine(t *testing.T) {
	m := newModel(t, parse("limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 3000000}\n"), 80, 24)
	m.budget = time.Nanosecond // the seek goes to the background after its first few thousand
	next, cmd := m.Update(keyMsg("G"))
	m = next.(Model)
	if cmd == nil || m.job == nil {
		t.Fatal("G did not go on in the background")
	}
	m.ctl.stop.Store(true) // the job would run in the background; stop it first
	s := screen(m)
	if !strings.Contains(s, "replaying… ") || !strings.Contains(s, "of 3,000,000 requests) · any key stops, q quits") {
		t.Fatalf("progress line:\n%s", s[strings.LastIndex(s, "\n")+1:])
	}
}
