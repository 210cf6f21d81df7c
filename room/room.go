// Package room is what a classroom's views and its server (windowlab
// serve) say to each other: where the teacher's view stands (Position),
// who is in the room (Seat), the teacher's question (Poll) and the room's
// answers (Tally), and the messages that bring each to a view. A view
// talks to the room through Room; the server sends it the messages with
// its program's Send. Both ui and serve import this package; it imports
// neither, so serve needs ui only to run the view.
package room

import (
	"time"

	"windowlab/algo"
	"windowlab/quiz"
)

// Room is a view's side of a classroom: what the view tells the room. A
// teacher's view publishes where it stands and asks questions; a
// student's follows the teacher, reports when it starts or stops, and
// answers. No method may block: the room keeps the latest of each.
type Room interface {
	// A room's challenge (challenge.go): a teacher's view starts and
	// closes it, a student's reports its best.
	ChallengeRoom
	// Follows reports whether the view is a student's, following the
	// teacher; false for the teacher's own view.
	Follows() bool
	// Publish tells the room where the teacher's view stands.
	Publish(p Position)
	// Report tells the room a student started or stopped following.
	Report(following bool)
	// Ask puts a question to the room, reveals it, or closes it (Poll.ID 0).
	Ask(p Poll)
	// Answer sends a student's answer to question id.
	Answer(id int, text string)
}

// Position is where a view stands.
type Position struct {
	Step      int          // the lesson's step, 0 outside a lesson
	Scenario  string       // the scenario's name, so a follower knows it has the same one
	Processed int64        // arrivals decided
	Now       algo.Instant // the clock
	Caption   int          // the caption held, or -1
	Playing   bool
	Speed     float64
	Paused    bool // the teacher paused the room: followers stay here
	// Traffic is what the teacher made at the clock and the rules it is
	// decided under (shared, never changed: a change is a new one); nil
	// says nothing of it (a follower keeps what it has).
	Traffic *Traffic
}

// FollowMsg sends a following view the teacher's position.
type FollowMsg struct{ Position Position }

// TeacherMsg says the room's teacher left (students explore alone) or is
// back (they follow again, from the teacher's next position).
type TeacherMsg struct{ Present bool }

// Seat is one student in the teacher's roster.
type Seat struct {
	Name      string
	Following bool
	Since     time.Time
}

// RosterMsg brings the teacher's view the room's students, as they come,
// go, or start or stop following.
type RosterMsg struct{ Seats []Seat }

// Poll is a question put to the room.
type Poll struct {
	ID int // 1, 2, … in the order the teacher asked; 0: no question open
	// Number is the question's number as the room reads it everywhere
	// (the teacher's screen, the students', the room's score): 1, 2, …
	// counting the questions revealed before it. A question withdrawn
	// before its answer takes no number: the next one asked has it.
	Number   int
	Item     quiz.Item
	Revealed bool
}

// PollMsg brings a student's view the room's question as it opens, as it
// is revealed, and as it closes (ID 0).
type PollMsg struct{ Poll Poll }

// Tally is the room's answers to the open question.
type Tally struct {
	ID       int
	Bars     []quiz.Bar
	Answered int      // students who answered
	Students int      // students in the room
	Thinking []string // the names of those who have not answered yet, the first to come first
}

// TallyMsg brings the teacher's view the room's answers as they arrive.
type TallyMsg struct{ Tally Tally }
