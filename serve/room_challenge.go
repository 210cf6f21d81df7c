package serve

import (
	"cmp"
	"slices"
	"time"

	"windowlab/room"
)

// A challenge for the room: the teacher's view opens one (or closes it),
// every student is told, each student's view reports its best as it
// changes, and the teachers' views are told the room's results. The room
// keeps one result a student, the best they reported: a view reporting a
// million times holds the same few bytes.

// challengeState is the room's challenge and each student's best on it.
type challengeState struct {
	open    room.Challenge // ID 0: none
	opened  time.Time
	results map[*member]challengeResult
}

// challengeResult is one student's best on the open challenge.
type challengeResult struct {
	best    room.Attempt
	reached time.Duration // how long after the challenge opened it was first reached
}

// maxStandings is how many students' results a tally carries, the best
// first: more than a screen shows.
const maxStandings = 100

// StartChallenge opens the teacher's challenge for every student (a new ID
// wipes the results) or closes it (ID 0).
func (r *Room) StartChallenge(c room.Challenge) {
	r.mu.Lock()
	if c.ID != r.challenge.open.ID {
		clear(r.challenge.results)
		r.challenge.opened = time.Now()
	}
	r.challenge.open = c
	students := r.studentsLocked()
	r.mu.Unlock()
	for _, m := range students {
		latest(m.challenge, c)
	}
	r.standingsChanged()
}

// report takes a student's standing on the open challenge: their best
// stays (an undone burst does not take back what they reached), the
// count of requests decided is the latest. A report for another challenge,
// or with figures no view reports, is dropped.
func (r *Room) report(m *member, a room.Attempt) {
	if a.Best < 0 || a.Target < 0 || a.Decided < 0 {
		return
	}
	r.mu.Lock()
	_, in := r.members[m]
	ok := in && m.role == "student" && a.ID != 0 && a.ID == r.challenge.open.ID
	if ok {
		if r.challenge.results == nil {
			r.challenge.results = map[*member]challengeResult{}
		}
		was, tried := r.challenge.results[m]
		now := was
		now.best.ID, now.best.Target, now.best.Decided = a.ID, a.Target, a.Decided
		now.best.Best = max(was.best.Best, a.Best)
		if a.Reached && !was.best.Reached {
			now.best.Reached = true
			now.reached = max(time.Since(r.challenge.opened), time.Millisecond)
		}
		ok = !tried || now != was
		r.challenge.results[m] = now
	}
	r.mu.Unlock()
	if ok {
		r.standingsChanged()
	}
}

// ChallengeTally is the students' results on the open challenge, the best
// first.
func (r *Room) ChallengeTally() room.ChallengeTally {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := room.ChallengeTally{ID: r.challenge.open.ID, Name: r.challenge.open.Name}
	type seat struct {
		room.Standing
		since time.Time
	}
	var all []seat
	for m := range r.members {
		if m.role != "student" {
			continue
		}
		t.Students++
		s := seat{Standing: room.Standing{Name: m.name}, since: m.since}
		if res, ok := r.challenge.results[m]; ok && t.ID != 0 {
			s.Attempt, s.Tried, s.Reached = res.best, true, res.reached
			if res.best.Reached {
				t.Reached++
			}
		}
		all = append(all, s)
	}
	// The best first; at the same best, who reached it first, then who
	// came first; those with nothing yet last.
	slices.SortFunc(all, func(a, b seat) int {
		if a.Tried != b.Tried {
			if a.Tried {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Attempt.Best, a.Attempt.Best); c != 0 {
			return c
		}
		if a.Attempt.Reached != b.Attempt.Reached {
			if a.Attempt.Reached {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.Reached, b.Reached); c != 0 {
			return c
		}
		return a.since.Compare(b.since)
	})
	for _, s := range all[:min(len(all), maxStandings)] {
		t.Results = append(t.Results, s.Standing)
	}
	return t
}

// standingsChanged tells every teacher's view to draw the results again.
func (r *Room) standingsChanged() { r.toTeachers(func(m *member) chan struct{} { return m.standings }) }

// StartChallenge opens a teacher's challenge for the room, or closes it; a
// student's place starts nothing.
func (p *Place) StartChallenge(c room.Challenge) {
	if !p.follows {
		p.room.StartChallenge(c)
	}
}

// ReportResult sends a student's best on the room's challenge: a lock and
// a signal, never blocking the view.
func (p *Place) ReportResult(a room.Attempt) {
	if m := p.seated(); m != nil {
		p.room.report(m, a)
	}
}
