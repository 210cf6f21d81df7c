package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"windowlab/quiz"
	"windowlab/room"
	"windowlab/scenarios"
)

// pollRoom is a teacher's view whose questions go to asks, and a
// student's whose answers go to answers, on the lesson, at 100×30.
func pollRoom(t *testing.T) (teacher, student Model, asks *[]room.Poll, answers *[]string) {
	t.Helper()
	asks, answers = new([]room.Poll), new([]string)
	lesson := scenarios.Lesson()
	var err error
	teacher, err = New(Options{Lesson: lesson, Questions: quiz.Lesson(),
		Room: testRoom{ask: func(p room.Poll) { *asks = append(*asks, p) }}})
	if err != nil {
		t.Fatal(err)
	}
	student, err = New(Options{Lesson: lesson, Room: testRoom{follows: true, answer: func(id int, text string) {
		*answers = append(*answers, text)
	}}})
	if err != nil {
		t.Fatal(err)
	}
	teacher.budget, student.budget = inFrame, inFrame
	size := tea.WindowSizeMsg{Width: 100, Height: 30}
	seats := room.RosterMsg{Seats: []room.Seat{{Name: "ann", Following: true}, {Name: "bob", Following: true}, {Name: "cy", Following: true}}}
	return update(t, teacher, size, seats), update(t, student, size), asks, answers
}

// The teacher asks the lesson's first question, watches the answers
// arrive as a histogram without the right one marked, reveals, and sees
// the room's score; each step reaches the room through Ask.
func TestTheTeacherAsksTheRoom(t *testing.T) {
	teacher, _, asks, _ := pollRoom(t)
	teacher = update(t, teacher, press("A")...)
	if s := screen(teacher); !strings.Contains(s, "Which question?") || !strings.Contains(s, "How many get through?") {
		t.Fatalf("A should offer the questions:\n%s", s)
	}
	teacher = update(t, teacher, press("enter")...)
	if len(*asks) != 1 || (*asks)[0].ID != 1 || (*asks)[0].Revealed || (*asks)[0].Item.Answer != "200" {
		t.Fatalf("enter should ask the room question 1, open; asked %+v", *asks)
	}
	if s := screen(teacher); !strings.Contains(s, "0 of 3 answered · 3 still thinking") || !strings.Contains(s, "no answer yet") {
		t.Fatalf("before any answer:\n%s", s)
	}
	it := (*asks)[0].Item
	given := []string{"200", "about 200 requests", "100"}
	teacher = update(t, teacher, room.TallyMsg{Tally: room.Tally{ID: 1, Bars: it.Tally(given[:2]), Answered: 2, Students: 3, Thinking: []string{"cy"}}})
	s := screen(teacher)
	if !strings.Contains(s, "2 of 3 answered · 1 still thinking") || !strings.Contains(s, "200") || !strings.Contains(s, "still thinking: cy") {
		t.Fatalf("two answers in:\n%s", s)
	}
	if strings.Contains(s, "✓") {
		t.Fatalf("the right answer is marked before the reveal, on a screen the room may see:\n%s", s)
	}
	teacher = update(t, teacher, room.TallyMsg{Tally: room.Tally{ID: 1, Bars: it.Tally(given), Answered: 3, Students: 3}})
	teacher = update(t, teacher, press("enter")...)
	if last := (*asks)[len(*asks)-1]; !last.Revealed || last.ID != 1 {
		t.Fatalf("enter should reveal question 1; asked %+v", last)
	}
	s = screen(teacher)
	for _, want := range []string{"✓ The answer: 200 · 2 of 3 right (67%)", "✓ 200", "100"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the revealed question should show %q:\n%s", want, s)
		}
	}
	// A tally that comes late (an answer after the reveal) changes nothing.
	teacher = update(t, teacher, room.TallyMsg{Tally: room.Tally{ID: 1, Bars: it.Tally(append(given, "200")), Answered: 4, Students: 4}})
	if !strings.Contains(screen(teacher), "2 of 3 right") {
		t.Fatalf("the score moved after the reveal:\n%s", screen(teacher))
	}
	teacher = update(t, teacher, press("enter")...)
	if last := (*asks)[len(*asks)-1]; last.ID != 0 {
		t.Fatalf("moving on should close the question; asked %+v", last)
	}
	if s := screen(teacher); !strings.Contains(s, "The room's score") || !strings.Contains(s, "1. 2 of 3 right (67%), 3 answered — the answer 200") {
		t.Fatalf("the picker should keep the score of question 1:\n%s", s)
	}
	teacher = update(t, teacher, press("esc")...)
	if modeOf(teacher) != modeMain {
		t.Fatalf("esc should go back to the view, mode %v", modeOf(teacher))
	}
}

// A student is asked, answers (and may change the answer), sees it sent,
// then right or wrong and the replay that proves it when the teacher
// reveals; when the question closes, the view follows the teacher again.
func TestAStudentAnswersTheRoom(t *testing.T) {
	for _, c := range []struct {
		typed []string
		want  string
	}{
		{[]string{"100", "about 200"}, "✓ Right: 200"},
		{[]string{"200", "100"}, "✗ Not quite: you answered 100; the answer is 200"},
		{nil, "– You sent no answer: the answer is 200"},
	} {
		_, student, _, answers := pollRoom(t)
		student = update(t, student, room.FollowMsg{Position: room.Position{Scenario: student.sc.Name, Caption: -1, Speed: 1}})
		it := quiz.Lesson()[0]
		student = update(t, student, room.PollMsg{Poll: room.Poll{ID: 7, Number: 3, Item: it}})
		if s := screen(student); modeOf(student) != modeQuiz || !strings.Contains(s, "How many get through?") || !strings.Contains(s, "the room's question 3") {
			t.Fatalf("the room's question should open:\n%s", s)
		}
		for _, a := range c.typed {
			student = update(t, student, typeText(a)...)
			student = update(t, student, press("enter")...)
			if s := screen(student); !strings.Contains(s, "Sent: "+a) {
				t.Fatalf("after sending %q:\n%s", a, s)
			}
		}
		if strings.Join(*answers, "|") != strings.Join(c.typed, "|") {
			t.Fatalf("the room got %q, want %q", *answers, c.typed)
		}
		if strings.Contains(screen(student), "Right") || strings.Contains(screen(student), "Not quite") {
			t.Fatalf("the verdict shows before the teacher reveals:\n%s", screen(student))
		}
		student = update(t, student, room.PollMsg{Poll: room.Poll{ID: 7, Number: 3, Item: it, Revealed: true}})
		if s := screen(student); !strings.Contains(s, c.want) {
			t.Fatalf("%v revealed should show %q:\n%s", c.typed, c.want, s)
		}
		student = update(t, student, room.PollMsg{})
		if s := screen(student); modeOf(student) != modeMain || !strings.Contains(s, "● following the teacher") {
			t.Fatalf("the closed question should leave the student following:\n%s", s)
		}
	}
}

// A question that comes while the student is in a dialog, or exploring,
// still reaches them; one revealed to a student who left it shows them
// the answer.
func TestTheRoomsQuestionReachesEveryone(t *testing.T) {
	_, student, _, _ := pollRoom(t)
	it := quiz.Lesson()[1]
	student = update(t, student, press("right", "e")...) // exploring, in the what-if form
	if modeOf(student) != modeWhatIf {
		t.Fatalf("e should open the what-if form, mode %v", modeOf(student))
	}
	student = update(t, student, room.PollMsg{Poll: room.Poll{ID: 1, Item: it}})
	if s := screen(student); modeOf(student) != modeQuiz || !strings.Contains(s, "What does 0.75 represent?") {
		t.Fatalf("the question should open over the dialog:\n%s", s)
	}
	student = update(t, student, press("esc")...)
	if modeOf(student) != modeWhatIf {
		t.Fatalf("esc should leave the question for the form it interrupted, mode %v", modeOf(student))
	}
	student = update(t, student, press("esc")...)
	student = update(t, student, room.PollMsg{Poll: room.Poll{ID: 1, Item: it, Revealed: true}})
	if s := screen(student); !strings.Contains(s, "– You sent no answer: the answer is The share of the previous window") {
		t.Fatalf("the reveal should reach a student who left the question:\n%s", s)
	}
}

// P pauses the room: followers are told, and the teacher's moves stay on
// the teacher's screen until P again, when the room goes to where the
// teacher is.
func TestPausingTheRoom(t *testing.T) {
	teacher, student, last := classroom(t)
	teacher = update(t, teacher, press("tab")...)
	held := *last
	teacher = update(t, teacher, press("P")...)
	if !last.Paused || last.Processed != held.Processed {
		t.Fatalf("P should publish the teacher's moment, paused: %+v (was %+v)", *last, held)
	}
	student = update(t, student, room.FollowMsg{Position: *last})
	if s := screen(student); !strings.Contains(s, "■ the teacher has paused the room") {
		t.Fatalf("the student should be told the room is paused:\n%s", s)
	}
	if s := screen(teacher); !strings.Contains(s, "■ the room is paused at") {
		t.Fatalf("the teacher should see the room paused:\n%s", s)
	}
	teacher = update(t, teacher, press("tab", "n")...)
	if !last.Paused || last.Processed != held.Processed || last.Step != held.Step {
		t.Fatalf("while paused the teacher's moves reached the room: %+v", *last)
	}
	teacher = update(t, teacher, press("P")...)
	student = update(t, student, room.FollowMsg{Position: *last})
	if last.Paused || student.position() != teacher.position() {
		t.Fatalf("P again should take the room to the teacher: student %+v, teacher %+v", student.position(), teacher.position())
	}
}

// Two teachers' views (the teacher's terminal and the projector's
// session) drive the room together: each goes where the other's keys go,
// and neither sends back a move it was sent.
func TestTeachersDriveTogether(t *testing.T) {
	var sentA, sentB []room.Position
	mk := func(sent *[]room.Position) Model {
		m, err := New(Options{Lesson: scenarios.Lesson(), Room: testRoom{publish: func(p room.Position) { *sent = append(*sent, p) }}})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		return update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	}
	a, b := mk(&sentA), mk(&sentB)
	a = update(t, a, press("tab", "tab")...)
	b = update(t, b, room.FollowMsg{Position: sentA[len(sentA)-1]})
	if b.position() != a.position() {
		t.Fatalf("b at %+v, a at %+v", b.position(), a.position())
	}
	before := len(sentB)
	b = update(t, b, tea.WindowSizeMsg{Width: 120, Height: 40})
	if len(sentB) != before {
		t.Fatalf("b sent back the move a sent it: %+v", sentB[before:])
	}
	if b = update(t, b, press("n")...); len(sentB) == before || sentB[len(sentB)-1] != b.position() {
		t.Fatal("b's own key was not sent to the room")
	}
	n := len(sentA)
	a = update(t, a, room.FollowMsg{Position: sentB[len(sentB)-1]})
	if step, _ := a.Step(); step != 1 || len(sentA) != n {
		t.Fatalf("a should go to b's step 2 without sending it back: step %d, sent %d more", step+1, len(sentA)-n)
	}
}

// The room reads one number for a question everywhere: the teacher's
// "Question N", the room's score, the student's header, question and
// reveal. A question withdrawn before its answer takes none. (A student
// read "the room's question 2" over "Question 1", and "question 1 of 1"
// at the reveal; a withdrawn question took a number.)
func TestTheRoomsQuestionsHaveOneNumbering(t *testing.T) {
	teacher, student, asks, _ := pollRoom(t)
	teacher = update(t, teacher, press("A", "enter", "esc")...) // asked, then withdrawn
	teacher = update(t, teacher, press("down", "enter")...)
	if len(*asks) != 3 {
		t.Fatalf("asks: %+v", *asks)
	}
	open := (*asks)[2]
	if open.ID != 2 || open.Number != 1 {
		t.Fatalf("the question after a withdrawn one: ID %d, number %d; want ID 2, number 1", open.ID, open.Number)
	}
	if s := screen(teacher); !strings.Contains(s, "Question 1 ·") || strings.Contains(s, "Question 2") {
		t.Fatalf("the teacher's screen:\n%s", s)
	}
	student = update(t, student, room.PollMsg{Poll: open})
	s := screen(student)
	if !strings.Contains(s, "the room's question 1") || !strings.Contains(s, "Question 1 ·") || strings.Contains(s, "Question 2") {
		t.Fatalf("the student's screen:\n%s", s)
	}
	teacher = update(t, teacher, press("enter")...) // reveal
	revealed := (*asks)[len(*asks)-1]
	student = update(t, student, room.PollMsg{Poll: revealed})
	if s := screen(student); !strings.Contains(s, "the room's question 1") || strings.Contains(s, "of 1") {
		t.Fatalf("the student's reveal:\n%s", s)
	}
	if s := screen(teacher); !strings.Contains(s, "1 question asked") || !strings.Contains(s, "Question 1 ·") {
		t.Fatalf("the teacher's reveal:\n%s", s)
	}
	teacher = update(t, teacher, press("enter", "enter")...) // the next question
	if next := (*asks)[len(*asks)-1]; next.Number != 2 {
		t.Fatalf("the next question: %+v, want number 2", next)
	}
	if s := screen(teacher); !strings.Contains(s, "Question 2 ·") {
		t.Fatalf("the teacher's second question:\n%s", s)
	}
}
