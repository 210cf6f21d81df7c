package serve

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/human"
	"windowlab/quiz"
	"windowlab/room"
)

// Room is where the teacher's position goes to every student. Publishing
// never blocks the teacher: each member has a mailbox of one position, the
// latest, and its own goroutine hands it to the member's program.
type Room struct {
	mu       sync.Mutex
	members  map[*member]struct{}
	last     room.Position
	hasLast  bool
	teachers int
	// The question open (ID 0: none) and each student's answer to it.
	poll    room.Poll
	answers map[*member]string
	// The room's challenge and each student's best on it (room_challenge.go).
	challenge challengeState
}

type member struct {
	name      string
	role      string
	since     time.Time
	following bool // a student's, as their view last said
	send      func(tea.Msg)
	box       chan room.Position // the latest position not handed on yet
	roster    chan struct{}      // a teacher's: the roster changed
	teacher   chan bool          // a student's: the teacher left or is back (the latest)
	poll      chan room.Poll     // a student's: the room's question, the latest
	tally     chan struct{}      // a teacher's: the answers changed
	// A room's challenge (room_challenge.go).
	challenge chan room.Challenge // a student's: the room's challenge, the latest
	standings chan struct{}       // a teacher's: the students' bests changed
	done      chan struct{}
}

func newRoom() *Room { return &Room{members: map[*member]struct{}{}, answers: map[*member]string{}} }

// publish sends a teacher's position to everyone else in the room: every
// student, and every other teacher's view (a teacher's terminal and the
// projector's session drive the room together, each showing the other's
// moves). The latest replaces one not handed on yet.
//
// A position whose traffic is more than a room carries (room.Traffic.Check)
// goes to no one: a teacher's view never makes one, and the room keeps
// and hands on only what is bounded.
func (r *Room) publish(from *member, p room.Position) {
	if p.Traffic.Check() != nil {
		return
	}
	r.mu.Lock()
	r.last, r.hasLast = p, true
	members := make([]*member, 0, len(r.members))
	for m := range r.members {
		if m != from {
			members = append(members, m)
		}
	}
	r.mu.Unlock()
	for _, m := range members {
		latest(m.box, p)
	}
}

// latest puts v in a one-slot mailbox, replacing what is there and not
// handed on yet: the mailbox's reader only ever wants the newest.
func latest[T any](box chan T, v T) {
	for {
		select {
		case box <- v:
			return
		default:
		}
		select {
		case <-box:
		default:
		}
	}
}

// join adds a member whose program send reaches; a student is sent the
// teacher's last position at once.
func (r *Room) join(name, role string, send func(tea.Msg)) *member {
	m := &member{name: name, role: role, since: time.Now(), following: role == "student", send: send,
		box: make(chan room.Position, 1), roster: make(chan struct{}, 1), teacher: make(chan bool, 1),
		poll: make(chan room.Poll, 1), tally: make(chan struct{}, 1), done: make(chan struct{}),
		challenge: make(chan room.Challenge, 1), standings: make(chan struct{}, 1)}
	r.mu.Lock()
	r.members[m] = struct{}{}
	last, has, poll, ch := r.last, r.hasLast, r.poll, r.challenge.open
	r.mu.Unlock()
	go m.deliver(r)
	if has && role == "student" {
		latest(m.box, last)
	}
	if poll.ID != 0 && role == "student" {
		latest(m.poll, poll) // a student coming in during a question is asked it too
	}
	if ch.ID != 0 && role == "student" {
		latest(m.challenge, ch) // and put to the room's challenge
	}
	r.rosterChanged()
	r.tallyChanged() // one more student who may answer
	r.standingsChanged()
	return m
}

// Ask puts the teacher's question to every student: opened (a new ID
// wipes the answers), revealed (no more answers are taken), or closed
// (ID 0).
func (r *Room) Ask(p room.Poll) {
	r.mu.Lock()
	if p.ID != r.poll.ID {
		clear(r.answers)
	}
	r.poll = p
	students := r.studentsLocked()
	r.mu.Unlock()
	for _, m := range students {
		latest(m.poll, p)
	}
	r.tallyChanged()
}

// studentsLocked are the room's students; r.mu is held.
func (r *Room) studentsLocked() []*member {
	var students []*member
	for m := range r.members {
		if m.role == "student" {
			students = append(students, m)
		}
	}
	return students
}

// answer takes a student's answer to question id, while it is open: the
// one thing a student sends that reaches anyone else, and only as a count
// in the teacher's tally.
func (r *Room) answer(m *member, id int, text string) {
	text = human.Line(text, quiz.MaxAnswer)
	r.mu.Lock()
	_, in := r.members[m]
	ok := in && m.role == "student" && id != 0 && id == r.poll.ID && !r.poll.Revealed && text != ""
	if ok {
		r.answers[m] = text
	}
	r.mu.Unlock()
	if ok {
		r.tallyChanged()
	}
}

// maxThinking is how many of those still thinking a tally names.
const maxThinking = 20

// Tally is the answers to the open question, grouped.
func (r *Room) Tally() room.Tally {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := room.Tally{ID: r.poll.ID}
	var answered, thinking []*member
	for m := range r.members {
		if m.role != "student" {
			continue
		}
		t.Students++
		if _, ok := r.answers[m]; ok {
			answered = append(answered, m)
		} else {
			thinking = append(thinking, m)
		}
	}
	// In the order the students came, so that tied bars keep one order.
	bySince := func(a, b *member) int { return a.since.Compare(b.since) }
	slices.SortFunc(answered, bySince)
	slices.SortFunc(thinking, bySince)
	for _, m := range thinking[:min(len(thinking), maxThinking)] {
		t.Thinking = append(t.Thinking, m.name)
	}
	given := make([]string, len(answered))
	for i, m := range answered {
		given[i] = r.answers[m]
	}
	t.Answered = len(given)
	if r.poll.ID != 0 {
		t.Bars = r.poll.Item.Tally(given)
	}
	return t
}

// tallyChanged tells every teacher's view to draw the answers again.
func (r *Room) tallyChanged() { r.toTeachers(func(m *member) chan struct{} { return m.tally }) }

// deliver hands a member's mail to its program, one message at a time, in
// its own goroutine: a slow session never holds up the room.
func (m *member) deliver(r *Room) {
	for {
		select {
		case p := <-m.box:
			m.send(room.FollowMsg{Position: p})
		case <-m.roster:
			m.send(room.RosterMsg{Seats: r.seats()})
		case present := <-m.teacher:
			m.send(room.TeacherMsg{Present: present})
		case p := <-m.poll:
			m.send(room.PollMsg{Poll: p})
		case <-m.tally:
			m.send(room.TallyMsg{Tally: r.Tally()})
		case c := <-m.challenge:
			m.send(room.ChallengeMsg{Challenge: c})
		case <-m.standings:
			m.send(room.ChallengeTallyMsg{Tally: r.ChallengeTally()})
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
func (r *Room) rosterChanged() { r.toTeachers(func(m *member) chan struct{} { return m.roster }) }

// toTeachers raises the flag flag picks of every teacher's member.
func (r *Room) toTeachers(flag func(*member) chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for m := range r.members {
		if m.role == "teacher" {
			signal(flag(m))
		}
	}
}

// seats are the students, in the order they came, for a teacher's roster.
func (r *Room) seats() []room.Seat {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []room.Seat
	for m := range r.members {
		if m.role == "student" {
			out = append(out, room.Seat{Name: m.name, Following: m.following, Since: m.since})
		}
	}
	slices.SortFunc(out, func(a, b room.Seat) int { return a.Since.Compare(b.Since) })
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
	delete(r.answers, m)
	delete(r.challenge.results, m)
	r.mu.Unlock()
	if ok {
		close(m.done)
		r.rosterChanged()
		r.tallyChanged()
		r.standingsChanged()
	}
}

// tellStudents sends every student the teacher's presence, the latest.
func (r *Room) tellStudents(present bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for m := range r.members {
		if m.role == "student" {
			latest(m.teacher, present)
		}
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
	open := r.poll.ID != 0
	trying := r.challenge.open.ID != 0
	r.mu.Unlock()
	if none {
		if open {
			r.Ask(room.Poll{}) // no one is left to reveal it
		}
		if trying {
			r.StartChallenge(room.Challenge{}) // no one is left to see the results
		}
		r.tellStudents(false)
	}
}

// Last is the teacher's last position, if any.
func (r *Room) Last() (room.Position, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last, r.hasLast
}
