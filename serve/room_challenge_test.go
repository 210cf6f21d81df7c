package serve

import (
	"runtime"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/room"
)

func challengeIs(id int) func(tea.Msg) bool {
	return func(msg tea.Msg) bool {
		c, ok := msg.(room.ChallengeMsg)
		return ok && c.Challenge.ID == id
	}
}

// standingsAre accepts a tally of the results whose bests are best, in
// that order, with reached of them reached.
func standingsAre(reached int, best ...int64) func(tea.Msg) bool {
	return func(msg tea.Msg) bool {
		tm, ok := msg.(room.ChallengeTallyMsg)
		if !ok || tm.Tally.Reached != reached || len(tm.Tally.Results) != len(best) {
			return false
		}
		for i, r := range tm.Tally.Results {
			if !r.Tried || r.Attempt.Best != best[i] {
				return false
			}
		}
		return true
	}
}

// The room's challenge, without a network: it reaches every student (one
// who comes in late too) and no teacher, three students' bests reach the
// teacher as a tally, the best first, equal to what each reported at best
// (a lower one later does not take it back, nor does a report for another
// challenge count), nothing of it reaches a student, and a teacher who
// leaves closes it.
func TestTheRoomsChallenge(t *testing.T) {
	r := newRoom()
	var teacher, ann, bob, cy, dan inbox
	r.join("teacher", "teacher", teacher.send)
	r.teacherJoined()
	a := r.join("ann", "student", ann.send)
	b := r.join("bob", "student", bob.send)
	c := r.join("cy", "student", cy.send)
	r.StartChallenge(room.Challenge{ID: 1, Name: "counter-max"})
	for _, box := range []*inbox{&ann, &bob, &cy} {
		box.wait(t, "the challenge", challengeIs(1))
	}
	r.report(a, room.Attempt{ID: 1, Best: 100, Target: 200, Decided: 100})
	r.report(b, room.Attempt{ID: 1, Best: 200, Target: 200, Reached: true, Decided: 200})
	r.report(c, room.Attempt{ID: 1, Best: 150, Target: 200, Decided: 160})
	r.report(a, room.Attempt{ID: 1, Best: 163, Target: 200, Decided: 263})
	r.report(a, room.Attempt{ID: 1, Best: 99, Target: 200, Decided: 99})                // undone: the best stays
	r.report(c, room.Attempt{ID: 2, Best: 999, Target: 200, Reached: true, Decided: 1}) // another challenge's
	r.report(c, room.Attempt{ID: 1, Best: -5, Target: 200})                             // no view reports that
	// The tally after ann's last report (her view decided 99 by then): one
	// after her 163 may come first, its standings the same.
	three := standingsAre(1, 200, 163, 150)
	tm := teacher.wait(t, "three results, ann's last report counted", func(msg tea.Msg) bool {
		return three(msg) && msg.(room.ChallengeTallyMsg).Tally.Results[1].Attempt.Decided == 99
	}).(room.ChallengeTallyMsg)
	names := []string{tm.Tally.Results[0].Name, tm.Tally.Results[1].Name, tm.Tally.Results[2].Name}
	if names[0] != "bob" || names[1] != "ann" || names[2] != "cy" || tm.Tally.Students != 3 || tm.Tally.Name != "counter-max" {
		t.Fatalf("the tally is %+v", tm.Tally)
	}
	if got := tm.Tally.Results[1].Attempt; got.Decided != 99 || got.Reached {
		t.Errorf("ann's standing is %+v: the best 163, the requests her view decided last 99", got)
	}
	if tm.Tally.Results[0].Reached <= 0 {
		t.Errorf("bob reached it, but when is %v", tm.Tally.Results[0].Reached)
	}
	d := r.join("dan", "student", dan.send)
	dan.wait(t, "the challenge, coming in late", challengeIs(1))
	teacher.wait(t, "dan, with nothing yet, last", func(msg tea.Msg) bool {
		tm, ok := msg.(room.ChallengeTallyMsg)
		return ok && tm.Tally.Students == 4 && len(tm.Tally.Results) == 4 && tm.Tally.Results[3].Name == "dan" && !tm.Tally.Results[3].Tried
	})
	for _, box := range []*inbox{&ann, &bob, &cy, &dan} {
		box.mu.Lock()
		for _, m := range box.msgs {
			if _, ok := m.(room.ChallengeTallyMsg); ok {
				t.Error("a student was sent the room's results")
			}
		}
		box.mu.Unlock()
	}
	teacher.mu.Lock()
	for _, m := range teacher.msgs {
		if _, ok := m.(room.ChallengeMsg); ok {
			t.Error("the teacher was put to the challenge")
		}
	}
	teacher.mu.Unlock()
	r.leave(d)
	r.leave(c)
	teacher.wait(t, "cy gone", standingsAre(1, 200, 163))

	// A new challenge wipes the results; the teacher leaving closes it.
	r.StartChallenge(room.Challenge{ID: 2, Name: "log-holds"})
	if tl := r.ChallengeTally(); tl.ID != 2 || tl.Reached != 0 || len(tl.Results) != 2 || tl.Results[0].Tried {
		t.Fatalf("challenge 2 starts with %+v", tl)
	}
	r.teacherLeft()
	ann.wait(t, "the challenge closed", challengeIs(0))
	bob.wait(t, "the challenge closed", challengeIs(0))
	r.report(a, room.Attempt{ID: 2, Best: 5, Target: 101, Decided: 5})
	if tl := r.ChallengeTally(); tl.ID != 0 || tl.Results[0].Tried {
		t.Fatalf("a result counted with no challenge open: %+v", tl)
	}
}

// A student's place reporting a million results (a view gone wrong, or
// keys held down for an hour) holds one result in the room, grows the
// heap by nothing that counts, and the teacher's tally ends at the last
// best; a student's place starts no challenge.
func TestAMillionResults(t *testing.T) {
	r := newRoom()
	// The teacher's program keeps the latest tally only, as a view does:
	// the heap measured is the room's.
	var mu sync.Mutex
	var last room.ChallengeTally
	tallies := 0
	r.join("teacher", "teacher", func(msg tea.Msg) {
		if tm, ok := msg.(room.ChallengeTallyMsg); ok {
			mu.Lock()
			last, tallies = tm.Tally, tallies+1
			mu.Unlock()
		}
	})
	var ann inbox
	student := r.place(true)
	student.sit(r.join("mallory", "student", ann.send))
	student.StartChallenge(room.Challenge{ID: 9, Name: "counter-max"})
	if r.ChallengeTally().ID != 0 {
		t.Fatal("a student's place opened a challenge")
	}
	r.Teacher().StartChallenge(room.Challenge{ID: 1, Name: "log-holds"})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const n = 1_000_000
	for i := range int64(n) {
		student.ReportResult(room.Attempt{ID: 1, Best: i, Target: 101, Reached: i > 100, Decided: i})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(r.challenge.results) != 1 {
		t.Fatalf("the room holds %d results of one student", len(r.challenge.results))
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 1<<20 {
		t.Errorf("a million results grew the heap by %s", mb(grew))
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		mu.Lock()
		done := standingsAre(1, n-1)(room.ChallengeTallyMsg{Tally: last})
		got := tallies
		mu.Unlock()
		if done {
			t.Logf("a million results: %d tallies reached the teacher (the room sends the latest only)", got)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the teacher's last tally is %+v, want the best %d", last, n-1)
		}
	}
}
