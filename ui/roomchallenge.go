package ui

import (
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/challenge"
	"windowlab/human"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/ui/render"
)

// A challenge for the room (windowlab serve). The teacher picks one in the
// list (x, enter) and it goes to every student; the teacher's screen then
// shows the students' bests as they arrive, the best first, as the quiz's
// answers arrive (enter ends it, esc goes back to the view with the
// results above the lanes). A student's view leaves the teacher's screen
// for an empty clock of its own at the lesson's numbers (windowlab
// challenge N's): the figure a student reaches is then theirs alone, made
// with r, b, s and u from nothing, not the lesson's traffic nor the
// teacher's, and every student starts from the same place. It reports
// the student's best as it changes, at most a few times a second. When the
// teacher ends it, the student goes back to the lesson and follows again.

// roomTry is a view's part in the room's challenge: a student's, the one
// the room put to it and the view it left; a teacher's, the one open and
// the room's results.
type roomTry struct {
	// A student's.
	id       int                 // the room's challenge tried here; 0: none
	name     string              // its name (challenge.Goal.Name)
	sc       *scenarios.Scenario // its empty clock: only a best made there is reported
	saved    savedView           // the view it left, to come back to
	sent     room.Attempt        // the last report
	hasSent  bool
	sentAt   time.Time // when it went: the next waits reportEvery
	flushing bool      // a report waits for its tick
	pending  *room.Challenge
	// A teacher's.
	open   room.Challenge // the challenge open in the room; ID 0: none
	lastID int
	mine   int // the last this view started
	tally  room.ChallengeTally
}

// reportEvery is how often a student's view may report its best: a stream
// changes it at every request, the teacher's screen needs a few a second.
const reportEvery = 250 * time.Millisecond

// roomReportMsg ends a report's wait.
type roomReportMsg struct{}

// roomAlgorithms are the limiters of a student's empty clock: windowlab
// play's (the lesson's three and the token bucket).
var roomAlgorithms = []algo.Algorithm{{Kind: algo.KindFixedWindow}, {Kind: algo.KindSlidingLog},
	{Kind: algo.KindSlidingCounter}, {Kind: algo.KindTokenBucket}}

// challengeRoom is the room's side of challenges, nil outside a classroom.
func (m Model) challengeRoom() room.ChallengeRoom {
	if m.room == nil {
		return nil
	}
	return m.room
}

// The teacher's side.

// startRoomChallenge puts g to the room and opens its results.
func (m *Model) startRoomChallenge(g challenge.Goal) tea.Cmd {
	rt := &m.trying.room
	rt.lastID++
	rt.open = room.Challenge{ID: rt.lastID, Name: g.Name}
	rt.mine = rt.lastID
	rt.tally = room.ChallengeTally{ID: rt.open.ID, Name: g.Name, Students: len(m.roster)}
	if r := m.challengeRoom(); r != nil {
		r.StartChallenge(rt.open)
	}
	m.dialog = newRoomResults()
	return nil
}

// endRoomChallenge closes the room's challenge: the students follow again.
func (m *Model) endRoomChallenge() {
	rt := &m.trying.room
	if rt.open.ID == 0 {
		return
	}
	rt.open = room.Challenge{}
	if r := m.challengeRoom(); r != nil {
		r.StartChallenge(room.Challenge{})
	}
	m.status = "the challenge is over: the room follows you again"
}

// onChallengeTally takes the room's results on the open challenge. A
// teacher's view takes up a challenge another teacher's view started (a
// teacher's terminal and the projector's session drive the room together),
// and lets it go when the room's closes; its own it ends itself, since a
// tally of the room before it started may come after.
func (m Model) onChallengeTally(t room.ChallengeTally) (tea.Model, tea.Cmd) {
	rt := &m.trying.room
	switch {
	case !m.teaching():
	case t.ID > rt.lastID:
		rt.open, rt.lastID = room.Challenge{ID: t.ID, Name: t.Name}, t.ID
		rt.tally = t
	case t.ID != 0 && t.ID == rt.open.ID:
		rt.tally = t
	case t.ID == 0 && rt.open.ID != 0 && rt.open.ID != rt.mine:
		rt.open = room.Challenge{}
	}
	return m, nil
}

// roomResults draws the room's results in h lines; keys is the compact
// panel's note.
func (m Model) roomResults(h int, keys string) []string {
	rt := m.trying.room
	t := rt.tally
	g, _ := challenge.Lookup(t.Name)
	p := render.RoomResults{C: m.c, Number: g.Number(), Title: g.Title, Statement: g.Statement(challenge.Lesson),
		Reached: t.Reached, Students: t.Students, Ended: rt.open.ID == 0, Keys: keys}
	results := slices.Clone(t.Results)
	slices.SortStableFunc(results, func(a, b room.Standing) int { // the room sorts them; a view holds to it too
		switch {
		case a.Tried != b.Tried && a.Tried:
			return -1
		case a.Tried != b.Tried:
			return 1
		case a.Attempt.Best != b.Attempt.Best && a.Attempt.Best > b.Attempt.Best:
			return -1
		case a.Attempt.Best != b.Attempt.Best:
			return 1
		}
		return 0
	})
	for _, s := range results {
		p.Rows = append(p.Rows, render.RoomResult{Name: s.Name, Best: s.Attempt.Best, Target: s.Attempt.Target,
			Reached: s.Attempt.Reached, After: s.Reached, Decided: s.Attempt.Decided, Tried: s.Tried})
	}
	return p.Render(h)
}

// challengeDialog is what x opens: the list, where a teacher's enter puts
// the challenge to the room; the room's results while one is open there.
func (m Model) challengeDialog() Dialog {
	l := newChallengeList(m.trying)
	if m.teaching() {
		if m.trying.room.open.ID != 0 {
			return newRoomResults()
		}
		l.room = true
		l.keys.Try.SetHelp("enter", "start it for the room")
	}
	return l
}

// roomPanel is the room's results above the teacher's lanes while the
// challenge is open.
func (m Model) roomPanel(h int) []string {
	if !m.teaching() || m.trying.room.open.ID == 0 {
		return nil
	}
	most := 5
	if m.c.Height >= 36 {
		most = 8
	}
	return m.roomResults(min(most, h/3), "x: all of them, and end it")
}

// roomResultsDialog is the teacher's screen of the room's results: while
// the challenge is open, and once ended, its last results.
type roomResultsDialog struct {
	keys  roomResultsKeys
	ended bool
}

type roomResultsKeys struct{ End, Back, Done key.Binding }

func newRoomResults() roomResultsDialog {
	return roomResultsDialog{keys: roomResultsKeys{
		End:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "end it: the room follows you")),
		Back: key.NewBinding(key.WithKeys("esc", "x"), key.WithHelp("esc", "your view: they keep trying")),
		Done: key.NewBinding(key.WithKeys("enter", "esc", "x", "q"), key.WithHelp("enter", "back to your view")),
	}}
}

func (d roomResultsDialog) update(m Model, msg tea.Msg) (Dialog, action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return d, nil, nil
	}
	d.ended = d.ended || m.trying.room.open.ID == 0
	switch {
	case d.ended && key.Matches(k, d.keys.Done):
		return nil, nil, nil
	case d.ended:
	case key.Matches(k, d.keys.End):
		d.ended = true
		return d, func(m *Model) tea.Cmd { m.endRoomChallenge(); return nil }, nil
	case key.Matches(k, d.keys.Back):
		return nil, nil, nil
	}
	return d, nil, nil
}

func (d roomResultsDialog) view(m Model) dialogView {
	return dialogView{keepCaption: true, body: func(h int) []string { return m.roomResults(h, "") }}
}

func (d roomResultsDialog) help() []key.Binding {
	if d.ended {
		return []key.Binding{d.keys.Done}
	}
	return []key.Binding{d.keys.End, d.keys.Back}
}

// The student's side.

// onRoomMsg takes the room's challenge messages, and keeps a student
// trying it on their own clock: the teacher's moves wait for its end.
func (m Model) onRoomMsg(msg tea.Msg) (tea.Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case room.ChallengeMsg:
		next, cmd := m.onRoomChallenge(msg.Challenge)
		return next, cmd, true
	case room.ChallengeTallyMsg:
		next, cmd := m.onChallengeTally(msg.Tally)
		return next, cmd, true
	case roomReportMsg:
		m.trying.room.flushing = false
		m.trying.room.sentAt = time.Time{} // the tick waited: the next check sends
		return m, m.reportAttempt(), true
	case room.FollowMsg:
		if m.inRoom && m.trying.room.id != 0 {
			m.teacher, m.hasTeacher = msg.Position, true // where to go when it ends
			return m, nil, true
		}
	case room.TeacherMsg:
		if m.inRoom && m.trying.room.id != 0 && msg.Present {
			m.status = "the teacher is back"
			return m, nil, true
		}
	case tea.KeyPressMsg:
		// The challenge's clock stays until the teacher ends it.
		if m.inRoom && m.trying.room.id != 0 && m.job == nil && m.dialog == nil &&
			key.Matches(msg, m.follow.Follow, m.keys.NextStep, m.keys.PrevStep, m.keys.Open) {
			m.status = "the teacher's challenge is open: you follow again when the teacher ends it"
			return m, nil, true
		}
	}
	return m, nil, false
}

// onRoomChallenge opens the room's challenge in a student's view, or
// closes it (ID 0).
func (m Model) onRoomChallenge(c room.Challenge) (tea.Model, tea.Cmd) {
	if !m.inRoom {
		return m, nil
	}
	rt := &m.trying.room
	if q, ok := m.openQuiz(); m.job != nil || m.naming() || (ok && q.live != 0) {
		rt.pending = &c // once the move is done, the student has a name, the room's question is over
		return m, nil
	}
	rt.pending = nil
	if c.ID == 0 {
		return m.leaveRoomChallenge()
	}
	if c.ID == rt.id && c.Name == rt.name {
		return m, nil
	}
	g, ok := challenge.Lookup(c.Name)
	if !ok {
		m.status = "the teacher started a challenge this view does not know (" + c.Name + ")"
		return m, nil
	}
	sc, err := scenarios.Empty("challenge", "The teacher's challenge: make the traffic yourself", challenge.Lesson, roomAlgorithms, algo.Clock(12, 0, 0, 0))
	var eng *sim.Engine
	if err == nil {
		eng, err = buildEngine(sc, m.ctl)
	}
	if err != nil {
		m.status = "could not open the challenge's clock: " + err.Error()
		return m, nil
	}
	m.stop()
	if rt.id == 0 { // from the lesson: come back there; from another challenge, to where that one came from
		rt.saved = savedView{sc: m.sc, eng: m.eng, processed: m.eng.Processed(), now: m.eng.Now()}
	}
	rt.id, rt.name, rt.sc, rt.hasSent, rt.flushing = c.ID, g.Name, sc, false, false
	m.dialog = nil
	m.original = nil
	m.setScenario(sc, eng)
	m.following = false
	cmd := m.trying.begin(g)
	m.refresh()
	m.status = "make the traffic yourself: t goes to a time, r b s send, u undoes"
	return m, cmd
}

// leaveRoomChallenge takes a student back to the lesson when the teacher
// ends the challenge, following again when the teacher is there.
func (m Model) leaveRoomChallenge() (tea.Model, tea.Cmd) {
	rt := m.trying.room
	if rt.id == 0 {
		return m, nil
	}
	m.stop()
	m.trying = challengeTry{gen: m.trying.gen + 1}
	m.dialog = nil
	s := rt.saved
	m.original = nil
	m.setScenario(s.sc, s.eng)
	m.status = "the challenge is over"
	if m.hasTeacher {
		m.following = true
		m.status += ": following the teacher again"
		return m, m.goToPosition(m.teacher)
	}
	return m, m.move(func(e *sim.Engine) {
		e.SeekIndex(s.processed)
		e.Seek(s.now)
	})
}

// attempt is where the student stands on the room's challenge, when the
// view is on its clock at the lesson's rules (not another scenario opened
// with o, nor rules changed with e or the knobs, nor another challenge
// chosen with x).
func (m Model) attempt() (room.Attempt, bool) {
	rt := m.trying.room
	r, ok := m.Challenge()
	if rt.id == 0 || !ok || r.Goal.Name != rt.name || m.baseScenario() != rt.sc || m.sc.Config != challenge.Lesson {
		return room.Attempt{}, false
	}
	return room.Attempt{ID: rt.id, Best: r.Best, Target: r.Target, Reached: r.Reached, Decided: r.Decided}, true
}

// reportAttempt tells the room the student's best when it changed, at
// most once every reportEvery: a change within it waits for a tick.
func (m *Model) reportAttempt() tea.Cmd {
	rt := &m.trying.room
	r := m.challengeRoom()
	if r == nil || rt.id == 0 || rt.flushing {
		return nil
	}
	a, ok := m.attempt()
	if !ok || (rt.hasSent && a == rt.sent) {
		return nil
	}
	if wait := reportEvery - time.Since(rt.sentAt); rt.hasSent && wait > 0 {
		rt.flushing = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return roomReportMsg{} })
	}
	rt.sent, rt.hasSent, rt.sentAt = a, true, time.Now()
	r.ReportResult(a)
	return nil
}

// roomChallengeLine is a student's banner while the room's challenge is
// open, in place of following or exploring.
func (m Model) roomChallengeLine() string {
	rt := m.trying.room
	if !m.inRoom || rt.id == 0 {
		return ""
	}
	st := m.c.Styles
	g, _ := challenge.Lookup(rt.name)
	what := "your own clock · your best goes to the teacher"
	if _, ok := m.attempt(); !ok {
		what = fmt.Sprintf("not counted now: x %d tries it again", g.Number())
		if m.sc.Config != challenge.Lesson {
			what = fmt.Sprintf("not counted now: back to %d per %s (e) counts again", challenge.Lesson.Limit, human.Duration(challenge.Lesson.Window))
		}
	}
	return st.Selected.Render(fmt.Sprintf("◆ the teacher's challenge %d", g.Number())) + st.Faint.Render(" · "+what)
}

// roomTeachLine is a teacher's banner while the room's challenge is open.
func (m Model) roomTeachLine() string {
	rt := m.trying.room
	if !m.teaching() || rt.open.ID == 0 {
		return ""
	}
	st := m.c.Styles
	g, _ := challenge.Lookup(rt.open.Name)
	return st.Selected.Render(fmt.Sprintf("● teaching · challenge %d for the room", g.Number())) +
		st.Faint.Render(fmt.Sprintf(": %d of %d reached · x: the results, end it", rt.tally.Reached, rt.tally.Students))
}
