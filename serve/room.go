package serve

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/ui"
)

// Room is where the teacher's position goes to every student. Publishing
// never blocks the teacher: each member has a mailbox of one position, the
// latest, and its own goroutine hands it to the member's program.
type Room struct {
	mu       sync.Mutex
	members  map[*member]struct{}
	last     ui.Position
	hasLast  bool
	teachers int
}

type member struct {
	name      string
	role      string
	since     time.Time
	following bool // a student's, as their view last said
	send      func(tea.Msg)
	box       chan ui.Position // the latest position not handed on yet
	roster    chan struct{}    // a teacher's: the roster changed
	teacher   chan bool        // a student's: the teacher left or is back (the latest)
	done      chan struct{}
}

func newRoom() *Room { return &Room{members: map[*member]struct{}{}} }

// Publish sends the teacher's position to every student: the latest
// replaces one not handed on yet.
func (r *Room) Publish(p ui.Position) {
	r.mu.Lock()
	r.last, r.hasLast = p, true
	members := make([]*member, 0, len(r.members))
	for m := range r.members {
		if m.role == "student" {
			members = append(members, m)
		}
	}
	r.mu.Unlock()
	for _, m := range members {
		m.offer(p)
	}
}

// offer puts p in the member's mailbox, replacing what is there.
func (m *member) offer(p ui.Position) {
	for {
		select {
		case m.box <- p:
			return
		default:
		}
		select {
		case <-m.box:
		default:
		}
	}
}

// join adds a member whose program send reaches; a student is sent the
// teacher's last position at once.
func (r *Room) join(name, role string, send func(tea.Msg)) *member {
	m := &member{name: name, role: role, since: time.Now(), following: role == "student", send: send,
		box: make(chan ui.Position, 1), roster: make(chan struct{}, 1), teacher: make(chan bool, 1), done: make(chan struct{})}
	r.mu.Lock()
	r.members[m] = struct{}{}
	last, has := r.last, r.hasLast
	r.mu.Unlock()
	go m.deliver(r)
	if has && role == "student" {
		m.offer(last)
	}
	r.rosterChanged()
	return m
}

// deliver hands a member's mail to its program, one message at a time, in
// its own goroutine: a slow session never holds up the room.
func (m *member) deliver(r *Room) {
	for {
		select {
		case p := <-m.box:
			m.send(ui.FollowMsg{Position: p})
		case <-m.roster:
			m.send(ui.RosterMsg{Seats: r.seats()})
		case present := <-m.teacher:
			m.send(ui.TeacherMsg{Present: present})
		case <-m.done:
			return
		}
	}
}

// signal sets a one-slot flag without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// rosterChanged tells every teacher's view to draw the roster again.
func (r *Room) rosterChanged() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for m := range r.members {
		if m.role == "teacher" {
			signal(m.roster)
		}
	}
}

// seats are the students, in the order they came, for a teacher's roster.
func (r *Room) seats() []ui.Seat {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ui.Seat
	for m := range r.members {
		if m.role == "student" {
			out = append(out, ui.Seat{Name: m.name, Following: m.following, Since: m.since})
		}
	}
	slices.SortFunc(out, func(a, b ui.Seat) int { return a.Since.Compare(b.Since) })
	return out
}

// setFollowing records whether a student follows, as their view reports.
func (r *Room) setFollowing(m *member, following bool) {
	r.mu.Lock()
	changed := m.following != following
	m.following = following
	r.mu.Unlock()
	if changed {
		r.rosterChanged()
	}
}

// rename gives a member the name they chose, unless another has it.
func (r *Room) rename(m *member, name string) error {
	r.mu.Lock()
	for o := range r.members {
		if o != m && strings.EqualFold(o.name, name) {
			r.mu.Unlock()
			return fmt.Errorf("%s is taken in this room; try another", name)
		}
	}
	m.name = name
	r.mu.Unlock()
	r.rosterChanged()
	return nil
}

// leave removes a member and stops its goroutine.
func (r *Room) leave(m *member) {
	r.mu.Lock()
	_, ok := r.members[m]
	delete(r.members, m)
	r.mu.Unlock()
	if ok {
		close(m.done)
		r.rosterChanged()
	}
}

// tellStudents sends every student the teacher's presence, the latest.
func (r *Room) tellStudents(present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for m := range r.members {
		if m.role != "student" {
			continue
		}
		select {
		case <-m.teacher:
		default:
		}
		m.teacher <- present
	}
}

// teacherJoined counts a teacher in; the first one back takes the room.
func (r *Room) teacherJoined() {
	r.mu.Lock()
	r.teachers++
	first := r.teachers == 1
	r.mu.Unlock()
	if first {
		r.tellStudents(true)
	}
}

// teacherLeft counts a teacher out; with none left, students explore.
func (r *Room) teacherLeft() {
	r.mu.Lock()
	r.teachers--
	none := r.teachers == 0
	r.mu.Unlock()
	if none {
		r.tellStudents(false)
	}
}

// Last is the teacher's last position, if any.
func (r *Room) Last() (ui.Position, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last, r.hasLast
}

// TeacherHere counts in a teacher whose view is not a session (the one
// in the terminal windowlab serve runs in), its roster sent through send,
// until the returned func is called.
func (r *Room) TeacherHere(name string, send func(tea.Msg)) (gone func()) {
	m := r.join(name, "teacher", send)
	r.teacherJoined()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.leave(m)
			r.teacherLeft()
		})
	}
}
