package serve

import (
	"sync"

	tea "charm.land/bubbletea/v2"

	"windowlab/room"
)

// Place is one view's place in the room: the room.Room the view talks to
// (ui.Options.Room). A view is made before its program joins the room (the
// program's Send is how the room reaches it), so what it says before it is
// seated goes nowhere, as a member not yet in the room has no one to say
// it to.
type Place struct {
	room    *Room
	follows bool // a student's place; false: a teacher's
	mu      sync.Mutex
	member  *member // nil until seated
}

func (r *Room) place(follows bool) *Place { return &Place{room: r, follows: follows} }

// Teacher is the place of a teacher whose view is not a session (the one
// in the terminal windowlab serve runs in): give it to the view, then
// call Here once the view's program can take the room's messages.
func (r *Room) Teacher() *Place { return r.place(false) }

// Here counts the place's teacher in as name: the room's messages (the
// roster, the answers, another teacher's moves) go to send, until gone is
// called.
func (p *Place) Here(name string, send func(tea.Msg)) (gone func()) {
	m := p.room.join(name, "teacher", send)
	p.room.teacherJoined()
	p.sit(m)
	var once sync.Once
	return func() {
		once.Do(func() {
			p.room.leave(m)
			p.room.teacherLeft()
		})
	}
}

// sit seats the place's member, once it has joined the room.
func (p *Place) sit(m *member) {
	p.mu.Lock()
	p.member = m
	p.mu.Unlock()
}

// seated is the place's member, nil before it joined.
func (p *Place) seated() *member {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.member
}

// Follows reports whether the place is a student's.
func (p *Place) Follows() bool { return p.follows }

// Publish sends a teacher's position to the room.
func (p *Place) Publish(pos room.Position) {
	if m := p.seated(); m != nil {
		p.room.publish(m, pos)
	}
}

// Report tells the room a student started or stopped following: a lock
// and a flag, never blocking the view.
func (p *Place) Report(following bool) {
	if m := p.seated(); m != nil {
		p.room.setFollowing(m, following)
	}
}

// Ask puts a teacher's question to the room, reveals it or closes it.
func (p *Place) Ask(q room.Poll) { p.room.Ask(q) }

// Answer sends a student's answer to the room's question: a lock and a
// signal, never blocking the view.
func (p *Place) Answer(id int, text string) {
	if m := p.seated(); m != nil {
		p.room.answer(m, id, text)
	}
}
