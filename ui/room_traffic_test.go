package ui

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"windowlab/algo"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/sim"
)

// playRoom is a teacher and n students on the empty clock (windowlab
// play's), the teacher's positions kept in last for relay to hand on.
func playRoom(t *testing.T, n int) (teacher Model, students []Model, last *room.Position) {
	t.Helper()
	last = new(room.Position)
	sc := emptyClock(t)
	var err error
	teacher, err = New(Options{Scenario: sc, Room: testRoom{publish: func(p room.Position) { *last = p }}})
	if err != nil {
		t.Fatal(err)
	}
	teacher.budget = inFrame
	size := tea.WindowSizeMsg{Width: 100, Height: 30}
	teacher = update(t, teacher, size)
	for range n {
		s, err := New(Options{Scenario: sc, Room: testRoom{follows: true}})
		if err != nil {
			t.Fatal(err)
		}
		s.budget = inFrame
		students = append(students, update(t, s, size))
	}
	return teacher, students, last
}

// relay sends the teacher each message, and every student the teacher's
// position after it, as the room does.
func relay(t *testing.T, teacher Model, students []Model, last *room.Position, msgs ...tea.Msg) Model {
	t.Helper()
	for _, msg := range msgs {
		teacher = update(t, teacher, msg)
		for i := range students {
			students[i] = update(t, students[i], room.FollowMsg{Position: *last})
		}
	}
	return teacher
}

// playRelayed plays the teacher's clock for d, a frame at a time, relayed.
func playRelayed(t *testing.T, teacher Model, students []Model, last *room.Position, d time.Duration) Model {
	t.Helper()
	if !teacher.playing {
		teacher = relay(t, teacher, students, last, press("space")...)
	}
	at := time.Unix(1000, 0)
	for range d / frame {
		at = at.Add(frame)
		teacher = relay(t, teacher, students, last, tickMsg{at: at, gen: teacher.gen})
	}
	return teacher
}

// sameAsTeacher fails unless every student stands where the teacher does
// with the same arrivals decided the same, and, when records, the same
// records from the start.
func sameAsTeacher(t *testing.T, what string, teacher Model, students []Model, records bool) {
	t.Helper()
	for i, s := range students {
		if got, want := decidedState(s.eng), decidedState(teacher.eng); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: student %d at\n%+v\nthe teacher at\n%+v", what, i+1, got, want)
		}
		if s.eng.Len() != teacher.eng.Len() || s.eng.Config() != teacher.eng.Config() {
			t.Fatalf("%s: student %d has %d requests under %+v, the teacher %d under %+v", what, i+1,
				s.eng.Len(), s.eng.Config(), teacher.eng.Len(), teacher.eng.Config())
		}
	}
	if !records {
		return
	}
	want := allRecords(teacher.eng)
	for i, s := range students {
		if got := allRecords(s.eng); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: student %d's %d records differ from the teacher's %d", what, i+1, len(got), len(want))
		}
	}
}

// The teacher's boundary burst, made by hand, reaches two followers: each
// burst decided in their own engines at the clock (no replay), their
// records the teacher's, the fixed window's 200 on their screens; an undo
// and a knob reach them too (by a replay).
func TestTeachersTrafficReachesFollowers(t *testing.T) {
	teacher, students, last := playRoom(t, 2)
	engines := []*sim.Engine{students[0].eng, students[1].eng}
	teacher = relay(t, teacher, students, last, boundaryByHand()...)
	sameAsTeacher(t, "the boundary burst", teacher, students, false)
	for i, s := range students {
		if s.eng != engines[i] {
			t.Errorf("student %d's engine was rebuilt for a burst: it is decided at the clock", i+1)
		}
		if st := s.eng.Stats(); st[0].Allowed != 200 || st[0].MaxInWindow != 200 {
			t.Errorf("student %d: the fixed window allowed %d, most %d", i+1, st[0].Allowed, st[0].MaxInWindow)
		}
		out := screen(s)
		for _, want := range []string{"⚠ 200 admitted to client-1 within 1s", "the teacher made 100 requests for client-1 at 12:01:00", "● following the teacher"} {
			if !strings.Contains(out, want) {
				t.Errorf("student %d's screen lacks %q:\n%s", i+1, want, out)
			}
		}
	}
	teacher = relay(t, teacher, students, last, burstKeys("30 bob")...)
	sameAsTeacher(t, "b 30 bob", teacher, students, false)
	teacher = relay(t, teacher, students, last, press("u")...)
	sameAsTeacher(t, "u", teacher, students, false)
	if !strings.Contains(screen(students[0]), "the teacher took away 30 requests for bob") {
		t.Errorf("after the teacher's u:\n%s", screen(students[0]))
	}
	teacher = relay(t, teacher, students, last, press(")", "}")...)
	sameAsTeacher(t, ") }", teacher, students, false)
	if s := screen(students[0]); !strings.Contains(s, "the teacher makes the traffic here; exploring alone, r b s make your own") {
		t.Errorf("a following student's empty clock names keys they cannot use:\n%s", s)
	}
	if c := students[1].eng.Config(); c.Limit != 110 || c.Window != 5*time.Minute {
		t.Errorf("the knobs gave the student %d per %s", c.Limit, c.Window)
	}
	teacher = relay(t, teacher, students, last, press("u")...)
	sameAsTeacher(t, "u after the knobs", teacher, students, true)
}

// A stream the teacher starts reaches the followers as it plays, at each
// rate, with a request the teacher makes while it runs; each frame's new
// requests are decided at the clock, no replay.
func TestTeachersStreamReachesFollowers(t *testing.T) {
	teacher, students, last := playRoom(t, 2)
	engines := []*sim.Engine{students[0].eng, students[1].eng}
	teacher = relay(t, teacher, students, last, goTo("12:00:58")...)
	teacher = relay(t, teacher, students, last, append(append(press("s"), typeText("20")...), keyMsg("enter"))...)
	teacher = playRelayed(t, teacher, students, last, time.Second)
	sameAsTeacher(t, "a stream of 20/s", teacher, students, false)
	if !strings.Contains(screen(students[0]), "the teacher's stream for client-1: one request every 50ms from 12:00:58") {
		t.Errorf("the student's screen as the stream plays:\n%s", screen(students[0]))
	}
	teacher = relay(t, teacher, students, last, press("r")...)
	teacher = playRelayed(t, teacher, students, last, time.Second)
	teacher = relay(t, teacher, students, last, press(">")...)
	teacher = playRelayed(t, teacher, students, last, 1500*time.Millisecond)
	if !strings.Contains(screen(students[1]), "the teacher's stream for client-1: one request every 40ms from 12:00:59.990") {
		t.Errorf("the student's screen after >:\n%s", screen(students[1]))
	}
	teacher = relay(t, teacher, students, last, press("space")...)
	if n := teacher.eng.Processed(); n < 50 {
		t.Fatalf("the teacher's stream made %d requests", n)
	}
	for i, s := range students {
		if s.eng != engines[i] {
			t.Errorf("student %d's engine was rebuilt for a stream: its requests are decided at the clock", i+1)
		}
	}
	sameAsTeacher(t, "the stream, r, >", teacher, students, true)
}

// A student who explores alone keeps their own traffic apart from the
// teacher's; following again, they take the teacher's.
func TestExploringAloneKeepsOwnTraffic(t *testing.T) {
	teacher, students, last := playRoom(t, 1)
	teacher = relay(t, teacher, students, last, goTo("12:00:59")...)
	s := update(t, students[0], press("r")...)
	if s.eng.Len() != 0 || !strings.Contains(s.status, "you follow the teacher") {
		t.Fatalf("a following student's r: %d requests, %q", s.eng.Len(), s.status)
	}
	s = update(t, s, press("u")...)
	if !strings.Contains(s.status, "you follow the teacher") {
		t.Fatalf("a following student's u: %q", s.status)
	}
	s = update(t, s, press("right")...)
	s = update(t, s, burstKeys("7 me")...)
	students[0] = s
	teacher = relay(t, teacher, students, last, burstKeys("")...)
	if s := students[0]; s.eng.Len() != 7 || !strings.Contains(screen(s), "○ exploring alone") {
		t.Fatalf("exploring, the student has %d requests:\n%s", s.eng.Len(), screen(s))
	}
	students[0] = update(t, students[0], press("F")...)
	students[0] = update(t, students[0], room.FollowMsg{Position: *last})
	sameAsTeacher(t, "F", teacher, students, true)
	if !strings.Contains(students[0].status, "the teacher's traffic replaces yours") {
		t.Errorf("following again, the student reads %q", students[0].status)
	}
	if clients := students[0].eng.Clients(); len(clients) != 1 || clients[0] != "client-1" {
		t.Errorf("following again, the student's clients are %v", clients)
	}
}

// What the room carries is bounded: a teacher's view refuses the addition
// past room.MaxAdditions, saying so; a follower given traffic no view
// could make, or more than the budget, says why and changes nothing; and
// a stream too long to hold at the clock is replayed from the scenario's
// own form, never expanded request by request.
func TestRoomTrafficIsBounded(t *testing.T) {
	if room.MaxRequests != scenarios.MaxRequests {
		t.Fatalf("the room's budget is %d requests, a scenario's %d", room.MaxRequests, scenarios.MaxRequests)
	}
	teacher, students, last := playRoom(t, 1)
	for range room.MaxAdditions {
		teacher = update(t, teacher, press("r")...)
	}
	teacher = update(t, teacher, press("r")...)
	if n := len(teacher.entries()); n != room.MaxAdditions || !strings.Contains(teacher.status, "the room carries at most 1,000 additions") {
		t.Fatalf("the teacher has %d additions: %q", n, teacher.status)
	}
	students[0] = update(t, students[0], room.FollowMsg{Position: *last})
	sameAsTeacher(t, "1,000 additions", teacher, students, false)

	student := students[0]
	before := stateOf(student.eng)
	base := *last.Traffic
	for _, bad := range []room.Traffic{
		withAdded(base, make([]room.Addition, room.MaxAdditions+1)),
		withAdded(base, []room.Addition{{Client: "x", From: 0, To: 1 << 62, Every: time.Millisecond}}),
		withAdded(base, []room.Addition{{Client: "x", At: 1, Count: 1 << 40}}),
		withAdded(base, []room.Addition{{Client: "x", From: 5, To: 1, Every: time.Millisecond}}),
		withAdded(base, []room.Addition{{Client: "x", From: -1 << 62, To: 1 << 62, Every: time.Millisecond}}),
		withAdded(base, []room.Addition{{Client: "bad\x1b[2J", At: algo.Clock(12, 0, 0, 0), Count: 1}}),
		{Scenario: base.Scenario, Name: base.Name, Config: algo.Config{Limit: 0, Window: time.Minute}, Algorithms: base.Algorithms},
	} {
		p := *last
		p.Traffic = &bad
		next := update(t, student, room.FollowMsg{Position: p})
		if got := stateOf(next.eng); !reflect.DeepEqual(got, before) || !strings.Contains(next.status, "the teacher's traffic cannot be followed") {
			t.Errorf("%+v: the student is at %+v, %q", bad.Added[:min(1, len(bad.Added))], got.n, next.status)
		}
	}
	// 50,000,000 requests, the budget: replayed from the stream's own
	// form, none of them held as added at the clock.
	huge := withAdded(base, []room.Addition{{Client: "x", From: algo.Clock(12, 0, 0, 0), To: algo.Clock(12, 0, 0, 0) + 50_000_000, Every: time.Millisecond}})
	p := room.Position{Scenario: base.Name, Caption: -1, Speed: 1, Now: algo.Clock(12, 0, 0, 0), Traffic: &huge}
	next := update(t, student, room.FollowMsg{Position: p})
	if runs, _ := next.eng.Injected(); runs != 0 || next.eng.Len() != 50_000_000 {
		t.Errorf("the stream of 50,000,000: %d runs held, %d requests", runs, next.eng.Len())
	}
}

// decidedState is stateOf without the last arrival's client number (a
// hint of the source's, which a replay and an injection number apart).
func decidedState(e *sim.Engine) state {
	s := stateOf(e)
	s.last.Arrival.Number = 0
	return s
}

// A name no file may hold, added after the teacher's own (where the
// follower would decide only what is new), is refused before anything
// is decided, as a prompt's is.
func TestTeachersNamesAreChecked(t *testing.T) {
	teacher, students, last := playRoom(t, 1)
	relay(t, teacher, students, last, press("r")...)
	s := students[0]
	n := s.eng.Len() // the engine is shared by the model's copies
	p := *last
	bad := withAdded(*last.Traffic, append(slices.Clone(last.Traffic.Added), room.Addition{Client: "bad\x1b[2J", At: s.eng.Now(), Count: 1}))
	p.Traffic = &bad
	if next := update(t, s, room.FollowMsg{Position: p}); n != 1 || next.eng.Len() != n || !strings.Contains(next.status, "cannot be followed") {
		t.Errorf("a name with an escape: %d requests more than %d, %q", next.eng.Len()-n, n, next.status)
	}
}

// withAdded is t with other additions.
func withAdded(t room.Traffic, added []room.Addition) room.Traffic {
	t.Added = added
	return t
}

// A stream the teacher runs long and fast holds at most maxFollowedRuns
// requests as added at the clock in a follower's view (a server holds one
// view per student): past them the view replays the stream from its own
// form and adds on from there, its records those of the same traffic
// written in a file.
func TestALongStreamHoldsLittle(t *testing.T) {
	_, students, _ := playRoom(t, 1)
	s := students[0]
	base := *s.roomTraffic()
	from := algo.Clock(12, 0, 0, 0)
	var tr room.Traffic
	for sec := 1; sec <= 30; sec++ {
		tr = withAdded(base, []room.Addition{{Client: "x", From: from, To: from + algo.Instant(sec*1000), Every: time.Millisecond}})
		to := from + algo.Instant(sec*1000)
		s = update(t, s, room.FollowMsg{Position: room.Position{Scenario: base.Name, Caption: -1, Speed: 1, Now: to - 1, Processed: int64(sec * 1000), Traffic: &tr}})
		if runs, _ := s.eng.Injected(); runs > maxFollowedRuns || s.eng.Processed() != int64(sec*1000) {
			t.Fatalf("after %ds of a stream at 1,000/s the student holds %d runs, has decided %d", sec, runs, s.eng.Processed())
		}
	}
	file, err := emptyClock(t).WithTraffic([]scenarios.Traffic{fromAddition(tr.Added[0])})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := allRecords(s.eng), records(t, file); !reflect.DeepEqual(got, want) {
		t.Fatalf("the student's %d records are not the file's %d", len(got), len(want))
	}
}

// finishJob runs the view's move under way to its end (the commands the
// view returned, as the program would) and hands it the result.
func finishJob(t *testing.T, m Model, cmd tea.Cmd) (Model, tea.Cmd) {
	t.Helper()
	for m.job != nil {
		if cmd == nil {
			t.Fatal("a job with no command to run it")
		}
		msgs := make(chan tea.Msg, 16)
		var run func(tea.Cmd)
		run = func(c tea.Cmd) {
			if c == nil {
				return
			}
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					go run(c)
				}
			default:
				msgs <- msg
			}
		}
		go run(cmd)
		for msg := range msgs {
			if done, ok := msg.(jobDoneMsg); ok {
				var next tea.Model
				next, cmd = m.Update(done)
				m = next.(Model)
				break
			}
		}
	}
	return m, cmd
}

// A teacher's position that comes while a student's view is busy
// replaying (a move past its frame's budget) is not lost: the view goes
// there once the replay is done, with the traffic the teacher made since.
func TestAPositionMissedDuringAReplayIsTakenAfter(t *testing.T) {
	teacher, students, last := playRoom(t, 1)
	teacher = relay(t, teacher, students, last, goTo("12:00:59")...)
	s := students[0]
	s.budget = 0 // every long move outlasts its frame
	teacher = update(t, teacher, burstKeys("1000000")...)
	next, cmd := s.Update(room.FollowMsg{Position: *last}) // a million to decide
	s = next.(Model)
	if s.job == nil {
		t.Fatal("a million decisions fit in no time at all")
	}
	teacher = update(t, teacher, goTo("12:01:00")...)
	teacher = update(t, teacher, burstKeys("")...)
	s = update(t, s, room.FollowMsg{Position: *last}) // while the job runs
	s, cmd = finishJob(t, s, cmd)
	s.budget = inFrame
	s, _ = finishJob(t, s, cmd)
	sameAsTeacher(t, "after the replay", teacher, []Model{s}, false)
}

// In the lesson, traffic made at a step stays with that step while it is
// on screen: another step leaves it behind, in the teacher's view and in
// the lesson's engine kept for coming back, so a student who joins later
// sees what the teacher sees.
func TestLessonStepsLeaveTrafficBehind(t *testing.T) {
	teacher, student, last := classroom(t)
	n := teacher.eng.Len()
	teacher = update(t, teacher, press("r", "r")...)
	student = update(t, student, room.FollowMsg{Position: *last})
	if teacher.eng.Len() != n+2 || student.eng.Len() != n+2 {
		t.Fatalf("r r: the teacher has %d more requests, the student %d", teacher.eng.Len()-n, student.eng.Len()-n)
	}
	teacher = update(t, teacher, press("n", "p")...)
	student = update(t, student, room.FollowMsg{Position: *last})
	if teacher.eng.Len() != n || len(teacher.entries()) != 0 || student.eng.Len() != n || len(last.Traffic.Added) != 0 {
		t.Fatalf("back at step 1: the teacher has %d more requests in %d additions, the student %d, the room %d additions",
			teacher.eng.Len()-n, len(teacher.entries()), student.eng.Len()-n, len(last.Traffic.Added))
	}
	late, err := New(Options{Lesson: scenarios.Lesson(), Room: testRoom{follows: true}})
	if err != nil {
		t.Fatal(err)
	}
	late.budget = inFrame
	late = update(t, late, tea.WindowSizeMsg{Width: 100, Height: 30}, room.FollowMsg{Position: *last})
	sameAsTeacher(t, "a student joining later", teacher, []Model{student, late}, true)
}

// Two teachers' views (the laptop and the projector) make traffic
// together, each taking the other's, and a teacher coming back takes the
// room's traffic with its position.
func TestTeachersMakeTrafficTogether(t *testing.T) {
	var fromA, fromB room.Position
	mk := func(sent *room.Position, start *room.Position) Model {
		m, err := New(Options{Scenario: emptyClock(t), Room: testRoom{publish: func(p room.Position) { *sent = p }}, StartAt: start})
		if err != nil {
			t.Fatal(err)
		}
		m.budget = inFrame
		return update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	}
	a, b := mk(&fromA, nil), mk(&fromB, nil)
	a = update(t, a, boundaryByHand()...)
	b = update(t, b, room.FollowMsg{Position: fromA})
	b = update(t, b, burstKeys("5 bob")...)
	a = update(t, a, room.FollowMsg{Position: fromB})
	sameAsTeacher(t, "a after b's burst", b, []Model{a}, false)
	if len(a.entries()) != 3 || len(fromA.Traffic.Added) != 2 {
		t.Errorf("a has %d additions and sent %d; b's burst went back to b", len(a.entries()), len(fromA.Traffic.Added))
	}
	back := mk(new(room.Position), &fromB)
	sameAsTeacher(t, "a teacher coming back", b, []Model{back}, true)
}
