package ui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"windowlab/human"
	"windowlab/quiz"
	"windowlab/room"
	"windowlab/sim"
	"windowlab/ui/render"
)

// A classroom (windowlab serve): the teacher's view publishes where it
// stands after every message; a student's view follows, going to each
// position it is sent, until the student moves the clock themselves and
// explores alone. Positions are whole: the step, the request, the instant
// and the caption held, so a follower lands exactly where the teacher is.

// teaching reports whether the view is a classroom's teacher's.
func (m Model) teaching() bool { return m.room != nil && !m.room.Follows() }

// roomState is a view's part in a classroom: a teacher's or a student's.
type roomState struct {
	room       room.Room // nil outside a classroom
	published  room.Position
	inRoom     bool // a student's view
	following  bool
	teacher    room.Position // the teacher's last position
	hasTeacher bool
	follow     followKeys
	reported   bool
	roster     []room.Seat // a teacher's: the students in the room
	roomKeys   roomKeys
	roomPaused bool          // a teacher's: positions stay unpublished
	pausedAt   room.Position // where the room was paused
	quietMove  bool          // a teacher's: the view moved to another teacher's position, not to be published
	joinHint   string
	missed     bool // a student's: the teacher moved while the view was busy, to go there when done
	// The live quiz (poll.go).
	poll          pollDialog // the teacher's questions and scores while "ask the room" is closed
	pollQuestions []quiz.Item
	pending       *room.Poll // a question that came during a move or the name prompt
}

// position is where the model stands now, with the traffic made at the
// clock and the rules it is decided under.
func (m Model) position() room.Position {
	p := room.Position{Step: m.step, Scenario: m.sc.Name, Processed: m.snap.Processed, Now: m.snap.Now,
		Caption: -1, Playing: m.playing, Speed: m.speed}
	if m.held.on {
		p.Caption = m.held.caption
	}
	if m.room != nil {
		p.Traffic = m.roomTraffic() // the one last shared, while it stands
	}
	return p
}

// publishPosition tells the room where the teacher's view stands, when
// that changed; publish must not block (the room keeps the latest only).
func (m *Model) publishPosition() {
	if !m.teaching() || m.job != nil {
		return
	}
	m.roomTraffic() // kept, so that position (a copy) finds it
	p := m.position()
	if m.roomPaused {
		p = m.pausedAt
	}
	if m.quietMove {
		// Where another teacher's move took the view: the room is there already.
		m.published, m.quietMove = p, false
		return
	}
	if p != m.published {
		m.published = p
		m.room.Publish(p)
	}
}

// pauseRoom holds the room where the teacher stands (on) or lets it
// follow the teacher again: while paused, the teacher's moves stay on the
// teacher's screen, to look ahead or prepare the next step.
func (m *Model) pauseRoom(on bool) {
	m.roomPaused = on
	if on {
		m.stop()
		m.roomTraffic()
		m.pausedAt = m.position()
		m.pausedAt.Paused = true
		m.status = "the room is paused at " + m.pausedAt.Now.Short() + ": your moves stay on your screen until P"
	} else {
		m.status = "the room follows you again"
	}
	m.publishPosition()
}

// teachLine is the banner of a teacher's view: the room's keys, and
// whether it is paused.
func (m Model) teachLine() string {
	if !m.teaching() {
		return ""
	}
	if line := m.roomTeachLine(); line != "" {
		return line
	}
	st := m.c.Styles
	if m.roomPaused {
		return st.Warn.Render("■ the room is paused at "+m.pausedAt.Now.Short()) + st.Faint.Render(" · P lets it follow you · A asks it a question")
	}
	join := " · the room follows your moves"
	if m.joinHint != "" {
		join = " · students join with " + m.joinHint
	}
	return st.Selected.Render("● teaching") + st.Faint.Render(join+" · A asks the room · P pauses it")
}

// onFollow takes the teacher's position, and goes there when following.
func (m Model) onFollow(p room.Position) (tea.Model, tea.Cmd) {
	m.teacher, m.hasTeacher = p, true
	if m.teaching() {
		// Another teacher's move (a teacher's terminal and the projector's
		// session drive together): go there too, and do not send it back.
		if m.job != nil || m.dialog != nil || m.roomPaused {
			return m, nil
		}
		cmd := m.goToPosition(p)
		m.quietMove = true
		m.publishPosition()
		return m, cmd
	}
	if m.following && m.job != nil {
		m.missed = true // goes there when the move under way is done
	}
	if !m.following || m.job != nil || m.dialog != nil {
		return m, nil
	}
	return m, m.goToPosition(p)
}

// goToPosition moves the view to p: its step, then its caption's moment
// or its request and instant.
func (m *Model) goToPosition(p room.Position) tea.Cmd {
	if len(m.lesson) > 0 && p.Step != m.step && p.Step >= 0 && p.Step < len(m.lesson) {
		m.goToStep(p.Step)
	}
	m.followTraffic(p.Traffic) // what the teacher made at the clock, under the teacher's rules
	if p.Scenario != m.sc.Name {
		m.status = "the teacher is on another scenario (" + p.Scenario + ")"
		return nil
	}
	m.speed = p.Speed
	if p.Caption >= 0 && p.Caption < len(m.sc.Captions) && p.Processed > 0 {
		if !m.held.on || m.held.caption != p.Caption || m.eng.Processed() != p.Processed {
			return m.landCaption(p.Caption)
		}
		return nil
	}
	m.release()
	n, now := p.Processed, p.Now
	return m.move(func(e *sim.Engine) {
		// The same request; then the same instant, unless more requests
		// are decided by then (the teacher stands inside an instant).
		e.SeekIndex(n)
		if next, ok := e.Next(); !ok || next.At > now {
			e.Seek(now)
		}
	})
}

// followKeys are a student's: explore alone, follow again.
type followKeys struct {
	Follow key.Binding
}

func newFollowKeys() followKeys {
	return followKeys{Follow: key.NewBinding(key.WithKeys("F", "shift+f"), key.WithHelp("F", "follow the teacher"))}
}

// followLine is the banner of a student's view: following, or exploring.
func (m Model) followLine() string {
	st := m.c.Styles
	if !m.inRoom {
		return ""
	}
	if line := m.roomChallengeLine(); line != "" {
		return line
	}
	if m.following && m.teacher.Paused {
		return st.Warn.Render("■ the teacher has paused the room") + st.Faint.Render(" · any key that moves the clock explores alone")
	}
	if m.following {
		state := "paused"
		if m.teacher.Playing {
			state = "playing " + render.SpeedText(m.teacher.Speed)
		}
		return st.Selected.Render("● following the teacher") + st.Faint.Render(" ("+state+") · any key that moves the clock explores alone")
	}
	where := ""
	if m.hasTeacher {
		where = " (the teacher is at " + m.teacher.Now.Short() + ", request " + human.Int(m.teacher.Processed) + ")"
	}
	return st.Warn.Render("○ exploring alone") + st.Faint.Render(where+" · F follows the teacher again")
}

// detachOnMove lets a student's key that moves the clock take them off the
// teacher's screen; it reports whether msg is such a key.
func (m *Model) detachOnMove(msg tea.KeyPressMsg) {
	if !m.inRoom || !m.following || m.dialog != nil {
		return
	}
	k := m.keys
	if key.Matches(msg, k.Play, k.Next, k.Prev, k.NextEdge, k.PrevEdge, k.Start, k.End, k.GoTo, k.NextCaption,
		k.PrevCaption, k.NextStep, k.PrevStep, k.WhatIf, k.Open, k.Quiz, k.Limit, k.Window) {
		m.following = false
	}
}

func (m Model) onTeacher(msg room.TeacherMsg) (tea.Model, tea.Cmd) {
	if !m.inRoom {
		return m, nil
	}
	if !msg.Present {
		m.following, m.hasTeacher = false, false
		m.status = "the teacher has left: you are exploring alone until they are back"
		return m, nil
	}
	m.following = true
	m.status = "the teacher is back: following"
	return m, nil
}

// rosterLines are the roster for the teacher, in at most h lines: who is
// in the room, following or exploring, and for how long.
func (m Model) rosterLines(h int, now time.Time) []string {
	if m.roster == nil || h < 2 {
		return nil
	}
	st := m.c.Styles
	following := 0
	for _, s := range m.roster {
		if s.Following {
			following++
		}
	}
	head := st.Title.Render("room") + st.Faint.Render(fmt.Sprintf(" · %s, %d following, %d exploring",
		human.Noun{One: "student", Many: "students"}.Of(int64(len(m.roster))), following, len(m.roster)-following))
	out := []string{head}
	var line strings.Builder
	for i, s := range m.roster {
		mark := st.Selected.Render("●")
		if !s.Following {
			mark = st.Warn.Render("○")
		}
		cell := mark + " " + human.Visible(s.Name) + st.Faint.Render(" "+human.Duration(now.Sub(s.Since).Truncate(time.Second)))
		if line.Len() > 0 && m.c.Cells.StringWidth(line.String())+3+m.c.Cells.StringWidth(cell) > m.c.Width {
			out = append(out, line.String())
			line.Reset()
			if len(out) == h {
				out[h-1] = st.Faint.Render(fmt.Sprintf("… and %d more", len(m.roster)-i))
				return out
			}
		}
		if line.Len() > 0 {
			line.WriteString("   ")
		}
		line.WriteString(cell)
	}
	if line.Len() > 0 && len(out) < h {
		out = append(out, line.String())
	}
	return out
}
