package ui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/challenge"
	"windowlab/sim"
	"windowlab/ui/render"
)

// The challenges (x): a list of goals to reach by making traffic (a
// Dialog), and the panel of the one being tried above the lanes, checked
// again over the records after every move of the engine. The checker reads
// the history as it grows; when the records change behind it (a step back,
// an undone addition, another scenario) it reads them again from the start.

// challengeTry is the challenge being tried: the Model's one field for it.
type challengeTry struct {
	on      bool
	goal    challenge.Goal
	checker *challenge.Checker // nil when the scenario cannot check the goal
	problem string             // why it cannot
	eng     *sim.Engine        // the engine it read
	read    int64              // the arrivals it read
	last    sim.Mark           // the mark of the last of them, to tell records changed behind it
	result  challenge.Result
	changes int   // moves of the records while paused since the challenge began: the hint's count
	seen    int64 // the arrivals at the last check
	waited  bool  // the view's wait for the hint ran out
	gen     int   // which challenge a hint's wait belongs to

	// The room's challenge (roomchallenge.go): it outlives trying one or another.
	room roomTry
}

// tryFromStart tries the challenge named (Options.Challenge), if any; its
// hint's wait starts in Init.
func (m *Model) tryFromStart(name string) error {
	if name == "" {
		return nil
	}
	g, ok := challenge.Lookup(name)
	if !ok {
		return fmt.Errorf("there is no challenge %q: windowlab challenge lists them", name)
	}
	m.trying.begin(g)
	m.refresh()
	return nil
}

// Challenge reports the challenge being tried and where the student stands
// on it, from the model's own state (safe on a copy): what a classroom
// would carry of each student to the teacher's screen (Best, Target,
// Reached), as Position carries the clock. False when none is tried.
func (m Model) Challenge() (challenge.Result, bool) {
	if !m.trying.on || m.trying.checker == nil {
		return challenge.Result{}, false
	}
	return m.trying.result, true
}

// challengeHintMsg ends the view's wait for a challenge's hint.
type challengeHintMsg struct{ gen int }

// begin starts trying g; the hint's wait is the command returned.
func (t *challengeTry) begin(g challenge.Goal) tea.Cmd {
	*t = challengeTry{on: true, goal: g, gen: t.gen + 1, room: t.room}
	return t.wait()
}

// wait is the view's wait for the hint: the only wall clock the
// challenges know, and the view's.
func (t challengeTry) wait() tea.Cmd {
	if !t.on || t.goal.HintWait <= 0 {
		return nil
	}
	gen := t.gen
	return tea.Tick(t.goal.HintWait, func(time.Time) tea.Msg { return challengeHintMsg{gen} })
}

func (t *challengeTry) hintDue(msg challengeHintMsg) {
	if msg.gen == t.gen {
		t.waited = true
	}
}

// recheck reads what the engine decided since the last check, from the
// start when the records changed behind the checker.
func (t *challengeTry) recheck(eng *sim.Engine, cfg algo.Config, algorithms []algo.Algorithm, playing bool) {
	if !t.on {
		return
	}
	h := eng.History()
	n := h.Len()
	if eng != t.eng || n < t.read || !t.sameAt(h) {
		t.eng, t.read, t.problem = eng, 0, ""
		c, err := challenge.NewChecker(t.goal, cfg, algorithms)
		if err != nil {
			t.checker, t.problem = nil, err.Error()
			return
		}
		t.checker = c
	}
	if t.checker == nil {
		return
	}
	clients := eng.Clients()
	for r := range h.Runs(t.read, n) {
		t.checker.AddRun(r, clients)
		t.last = r.Mark
	}
	t.read = n
	if n != t.seen && !playing {
		t.changes++
	}
	t.seen = n
	t.result = t.checker.Result()
}

// sameAt reports whether the history still holds, as the checker's last
// arrival, the mark the checker read there.
func (t challengeTry) sameAt(h *sim.History) bool {
	if t.read == 0 {
		return true
	}
	for r := range h.Runs(t.read-1, t.read) {
		return r.Mark == t.last
	}
	return false
}

// panel draws the challenge's panel in at most h lines; none when no
// challenge is tried.
func (m Model) challengePanel(h int) []string {
	if p := m.roomPanel(h); p != nil {
		return p // a teacher's: the room's results
	}
	t := m.trying
	if !t.on {
		return nil
	}
	cfg := m.snap.Config
	p := render.ChallengePanel{C: m.c, Number: t.goal.Number(), Title: t.goal.Title,
		Statement: t.goal.Statement(cfg), Progress: t.result.Progress, Reached: t.result.Reached,
		Proof: t.result.Proof, Problem: t.problem}
	if t.waited || t.changes >= t.goal.HintAfter {
		p.Hint = t.goal.Hint(cfg)
	}
	most := 6
	if m.c.Height >= 36 {
		most = 9
	}
	return p.Render(min(most, h/3))
}

// challengeList is the list of challenges (x): enter tries the one under
// the cursor, its panel then above the lanes.
type challengeList struct {
	cursor int
	keys   challengeKeys
	room   bool // a teacher's: enter puts it to the room (roomchallenge.go)
}

type challengeKeys struct {
	Up, Down, Try, Stop, Close key.Binding
}

func newChallengeList(t challengeTry) challengeList {
	l := challengeList{keys: challengeKeys{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "choose")),
		Down:  key.NewBinding(key.WithKeys("down", "j")),
		Try:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "try it")),
		Stop:  key.NewBinding(key.WithKeys("backspace", "delete"), key.WithHelp("⌫", "no challenge"), key.WithDisabled()),
		Close: key.NewBinding(key.WithKeys("esc", "x", "q"), key.WithHelp("esc", "back")),
	}}
	if t.on {
		l.cursor = t.goal.Number() - 1
		l.keys.Stop.SetEnabled(true)
	}
	return l
}

func (l challengeList) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return l, nil, nil
	}
	switch {
	case key.Matches(k, l.keys.Up):
		l.cursor = (l.cursor + len(challenge.Goals) - 1) % len(challenge.Goals)
	case key.Matches(k, l.keys.Down):
		l.cursor = (l.cursor + 1) % len(challenge.Goals)
	case len(k.Text) == 1 && k.Text[0] >= '1' && int(k.Text[0]-'0') <= len(challenge.Goals):
		l.cursor = int(k.Text[0] - '1')
	case key.Matches(k, l.keys.Try):
		g := challenge.Goals[l.cursor]
		if l.room {
			return nil, func(m *Model) tea.Cmd { return m.startRoomChallenge(g) }, nil
		}
		return nil, func(m *Model) tea.Cmd {
			cmd := m.trying.begin(g)
			m.refresh()
			return cmd
		}, nil
	case key.Matches(k, l.keys.Stop):
		return nil, func(m *Model) tea.Cmd {
			m.trying = challengeTry{gen: m.trying.gen + 1, room: m.trying.room}
			return nil
		}, nil
	case key.Matches(k, l.keys.Close):
		return nil, nil, nil
	}
	return l, nil, nil
}

func (l challengeList) view(m Model) dialogView {
	return dialogView{keepCaption: true, body: func(h int) []string {
		cfg := m.snap.Config
		if l.room {
			cfg = challenge.Lesson // each student's clock's, whatever the teacher's scenario
		}
		items := make([]render.ChallengeItem, len(challenge.Goals))
		for i, g := range challenge.Goals {
			items[i] = render.ChallengeItem{Number: i + 1, Title: g.Title, Statement: g.Statement(cfg),
				Trying: m.trying.on && m.trying.goal.Name == g.Name}
		}
		note := "The panel of the one you try stays above the lanes, checked after every request; windowlab challenge --check N FILE checks a scenario file."
		if l.room {
			note = "enter puts it to every student: each makes traffic on an empty clock of their own, and their bests come to your screen."
		}
		return render.ChallengeList{C: m.c, Items: items, Cursor: l.cursor, Note: note}.Render(h)
	}}
}

func (l challengeList) help() []key.Binding {
	return []key.Binding{l.keys.Up, l.keys.Try, l.keys.Stop, l.keys.Close}
}
