package serve

import (
	"slices"
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
	name  string
	role  string
	since time.Time
	send  func(tea.Msg)
	box   chan ui.Position // the latest position not handed on yet
	done  chan struct{}
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
	m := &member{name: name, role: role, since: time.Now(), send: send, box: make(chan ui.Position, 1), done: make(chan struct{})}
	r.mu.Lock()
	r.members[m] = struct{}{}
	last, has := r.last, r.hasLast
	r.mu.Unlock()
	go func() {
		for {
			select {
			case p := <-m.box:
				m.send(ui.FollowMsg{Position: p})
			case <-m.done:
				return
			}
		}
	}()
	if has && role == "student" {
		m.offer(last)
	}
	return m
}

// leave removes a member and stops its goroutine.
func (r *Room) leave(m *member) {
	r.mu.Lock()
	_, ok := r.members[m]
	delete(r.members, m)
	r.mu.Unlock()
	if ok {
		close(m.done)
	}
}

func (r *Room) teacherJoined() { r.mu.Lock(); r.teachers++; r.mu.Unlock() }
func (r *Room) teacherLeft()   { r.mu.Lock(); r.teachers--; r.mu.Unlock() }

// Seat is one member of the room, for the roster.
type Seat struct {
	Name  string
	Role  string // "teacher" or "student"
	Since time.Time
}

// Roster is everyone in the room, in the order they came.
func (r *Room) Roster() []Seat {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Seat, 0, len(r.members))
	for m := range r.members {
		out = append(out, Seat{m.name, m.role, m.since})
	}
	slices.SortFunc(out, func(a, b Seat) int { return a.Since.Compare(b.Since) })
	return out
}

// Last is the teacher's last position, if any.
func (r *Room) Last() (ui.Position, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last, r.hasLast
}
