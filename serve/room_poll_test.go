package serve

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/quiz"
	"windowlab/room"
)

// inbox is a member's program, as the room sees it: the messages sent to it.
type inbox struct {
	mu   sync.Mutex
	msgs []tea.Msg
}

func (b *inbox) send(msg tea.Msg) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msgs = append(b.msgs, msg)
}

// wait waits up to 5 s for a message that ok accepts, the latest first.
func (b *inbox) wait(t *testing.T, what string, ok func(tea.Msg) bool) tea.Msg {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		b.mu.Lock()
		for i := len(b.msgs) - 1; i >= 0; i-- {
			if ok(b.msgs[i]) {
				msg := b.msgs[i]
				b.mu.Unlock()
				return msg
			}
		}
		b.mu.Unlock()
	}
	t.Fatalf("never got %s", what)
	return nil
}

func pollIs(id int, revealed bool) func(tea.Msg) bool {
	return func(msg tea.Msg) bool {
		p, ok := msg.(room.PollMsg)
		return ok && p.Poll.ID == id && p.Poll.Revealed == revealed
	}
}

func tallyIs(answered, students int) func(tea.Msg) bool {
	return func(msg tea.Msg) bool {
		tm, ok := msg.(room.TallyMsg)
		return ok && tm.Tally.Answered == answered && tm.Tally.Students == students
	}
}

// The room's live quiz, without a network: the question reaches every
// student (one who comes in late too), their answers reach the teacher as
// a tally and nowhere else, a reveal ends the answering, and a teacher
// who leaves closes the question.
func TestTheRoomsPoll(t *testing.T) {
	r := newRoom()
	var teacher, ann, bob, cy inbox
	r.join("teacher", "teacher", teacher.send)
	r.teacherJoined()
	a := r.join("ann", "student", ann.send)
	b := r.join("bob", "student", bob.send)
	it := quiz.Lesson()[0]
	r.Ask(room.Poll{ID: 1, Item: it})
	ann.wait(t, "ann's question", pollIs(1, false))
	bob.wait(t, "bob's question", pollIs(1, false))
	teacher.wait(t, "an empty tally", tallyIs(0, 2))
	r.answer(a, 1, "300")
	if th := teacher.wait(t, "ann's answer", tallyIs(1, 2)).(room.TallyMsg).Tally.Thinking; len(th) != 1 || th[0] != "bob" {
		t.Fatalf("still thinking: %q, want bob", th)
	}

	c := r.join("cy", "student", cy.send)
	cy.wait(t, "cy's question, coming in late", pollIs(1, false))
	r.answer(a, 1, "about 200")
	r.answer(b, 1, "100")
	r.answer(b, 1, "200 requests")                    // changed: the last one counts
	r.answer(c, 2, "200")                             // another question's
	r.answer(c, 1, strings.Repeat("9", 500)+"\u202e") // bounded, and cleaned
	msg := teacher.wait(t, "three answers", tallyIs(3, 3)).(room.TallyMsg)
	bars := msg.Tally.Bars
	if len(bars) != 2 || bars[0] != (quiz.Bar{Answer: "200", Count: 2, Right: true}) || len([]rune(bars[1].Answer)) != quiz.MaxAnswer {
		t.Fatalf("the tally is %+v", bars)
	}
	// Nothing of the answers reaches another student.
	for _, box := range []*inbox{&ann, &bob, &cy} {
		box.mu.Lock()
		for _, m := range box.msgs {
			if _, ok := m.(room.TallyMsg); ok {
				t.Fatal("a student was sent the tally")
			}
		}
		box.mu.Unlock()
	}

	r.Ask(room.Poll{ID: 1, Item: it, Revealed: true})
	ann.wait(t, "ann's reveal", pollIs(1, true))
	r.answer(a, 1, "100") // too late
	if got := r.Tally().Bars[0]; got.Count != 2 || !got.Right {
		t.Fatalf("an answer after the reveal counted: %+v", r.Tally().Bars)
	}
	r.leave(b)
	teacher.wait(t, "bob gone from the tally", tallyIs(2, 2))

	// A new question wipes the answers; the teacher leaving closes it.
	r.Ask(room.Poll{ID: 2, Item: quiz.Lesson()[1]})
	if tl := r.Tally(); tl.Answered != 0 || tl.ID != 2 {
		t.Fatalf("question 2 starts with %+v", tl)
	}
	r.teacherLeft()
	ann.wait(t, "the question closed", pollIs(0, false))
	cy.wait(t, "the question closed", pollIs(0, false))
}
