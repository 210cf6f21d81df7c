package room

import "time"

// A challenge for the room: the teacher starts one of the challenges
// (package challenge) for every student; each student's view opens an
// empty clock of its own at the lesson's numbers, makes its own traffic
// and reports its best (Attempt) as it changes; the teacher's view shows
// the room's bests as they arrive (ChallengeTally), as the quiz's answers
// (Poll, Tally) arrive. Closing it sends the students back to following.

// ChallengeRoom is a view's side of a room's challenge: a teacher's view
// starts and closes one, a student's reports its best. No method may
// block: the room keeps each student's latest.
type ChallengeRoom interface {
	// StartChallenge opens a challenge for the room, or closes the one
	// open (Challenge.ID 0).
	StartChallenge(c Challenge)
	// ReportResult sends a student's best on the room's challenge a.ID.
	ReportResult(a Attempt)
}

// Challenge is a challenge put to the room.
type Challenge struct {
	ID   int    // 1, 2, … in the order the teacher started them; 0: none open
	Name string // the challenge's stable name (challenge.Goal.Name): "counter-max"
}

// ChallengeMsg brings a student's view the room's challenge as it opens,
// and as it closes (ID 0).
type ChallengeMsg struct{ Challenge Challenge }

// Attempt is where a student stands on the room's challenge: the figures
// of challenge.Result that reach the teacher, and nothing the student
// typed.
type Attempt struct {
	ID      int   // the room's challenge it is for
	Best    int64 // the figure the challenge counts, at its best so far
	Target  int64 // the least that reaches it
	Reached bool
	Decided int64 // the requests the student's limiters decided
}

// Standing is one student's line in the teacher's tally.
type Standing struct {
	Name    string // as the roster shows it
	Attempt Attempt
	Tried   bool // some traffic reported; false: nothing yet
	// Reached is how long after the challenge opened the room first heard
	// the student reached it (0 when not reached).
	Reached time.Duration
}

// ChallengeTally is the room's results on the open challenge.
type ChallengeTally struct {
	ID      int
	Name    string
	Results []Standing // best first (then who reached it first, then who came first); at most a room's worth
	Reached int        // students who reached the goal
	// Students is how many are in the room; those not reached are still
	// trying.
	Students int
}

// ChallengeTallyMsg brings the teacher's view the room's results as they
// change.
type ChallengeTallyMsg struct{ Tally ChallengeTally }
