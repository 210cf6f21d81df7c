package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"windowlab/room"
	"windowlab/scenarios"
)

// testRoom takes no challenge; challengeTestRoom's go to its funcs.
func (testRoom) StartChallenge(room.Challenge) {}
func (testRoom) ReportResult(room.Attempt)     {}

type challengeTestRoom struct {
	testRoom
	start  func(room.Challenge)
	report func(room.Attempt)
}

func (r challengeTestRoom) StartChallenge(c room.Challenge) {
	if r.start != nil {
		r.start(c)
	}
}

func (r challengeTestRoom) ReportResult(a room.Attempt) {
	if r.report != nil {
		r.report(a)
	}
}

// challengeRoomViews are a teacher's view whose challenges go to starts
// and a student's whose results go to reports, on the lesson, at w×h.
func challengeRoomViews(t *testing.T, w, h int) (teacher, student Model, starts *[]room.Challenge, reports *[]room.Attempt) {
	t.Helper()
	starts, reports = new([]room.Challenge), new([]room.Attempt)
	lesson := scenarios.Lesson()
	var err error
	teacher, err = New(Options{Lesson: lesson, Room: challengeTestRoom{start: func(c room.Challenge) { *starts = append(*starts, c) }}})
	if err != nil {
		t.Fatal(err)
	}
	student, err = New(Options{Lesson: lesson, Room: challengeTestRoom{testRoom: testRoom{follows: true},
		report: func(a room.Attempt) { *reports = append(*reports, a) }}})
	if err != nil {
		t.Fatal(err)
	}
	teacher.budget, student.budget = inFrame, inFrame
	size := tea.WindowSizeMsg{Width: w, Height: h}
	seats := room.RosterMsg{Seats: []room.Seat{{Name: "ann", Following: true}, {Name: "bob", Following: true}, {Name: "\u202ecy", Following: true}}}
	return update(t, teacher, size, seats), update(t, student, size), starts, reports
}

// threeResults is the room's results as the room sends them: bob reached
// the counter's 200, ann 163, and cy (a name with a right-to-left
// override, shown quoted) has sent nothing yet.
func threeResults(id int) room.ChallengeTallyMsg {
	return room.ChallengeTallyMsg{Tally: room.ChallengeTally{ID: id, Name: "counter-max", Reached: 1, Students: 3, Results: []room.Standing{
		{Name: "bob", Tried: true, Reached: 72 * time.Second, Attempt: room.Attempt{ID: id, Best: 200, Target: 200, Reached: true, Decided: 212}},
		{Name: "ann", Tried: true, Attempt: room.Attempt{ID: id, Best: 163, Target: 200, Decided: 300}},
		{Name: "\u202ecy"},
	}}}
}

// The teacher starts the sliding counter's challenge from the list, the
// room is told, the results arrive best first with the hostile name
// quoted, esc keeps them above the lanes, and enter in x ends it: the room
// is told, the last results stay until the teacher goes back.
func TestTheTeacherStartsAChallenge(t *testing.T) {
	teacher, _, starts, _ := challengeRoomViews(t, 100, 30)
	teacher = update(t, teacher, keyMsg("x"))
	wantOnScreen(t, teacher, "enter puts it to every student", "start it for the room")
	teacher = update(t, teacher, keyMsg("2"), keyMsg("enter"))
	if len(*starts) != 1 || (*starts)[0] != (room.Challenge{ID: 1, Name: "counter-max"}) {
		t.Fatalf("enter should start counter-max for the room; started %+v", *starts)
	}
	wantOnScreen(t, teacher, "challenge 2 for the room · The most through the sliding counter", "open", "0 of 3 reached · 3 still trying")
	teacher = update(t, teacher, threeResults(1))
	out := screen(teacher)
	bob, ann, cy := strings.Index(out, "1  bob"), strings.Index(out, "2  ann"), strings.Index(out, `3  "\u202ecy"`)
	if bob < 0 || ann < bob || cy < ann {
		t.Fatalf("the results should read bob, ann, then cy quoted:\n%s", out)
	}
	wantOnScreen(t, teacher, "200 of 200 ✓ reached after 1m12s", "163 of 200 · 300 requests", "nothing yet", "1 of 3 reached · 2 still trying")
	if strings.Contains(out, "\u202e") {
		t.Fatal("a name's right-to-left override reached the screen")
	}
	teacher = update(t, teacher, keyMsg("esc"))
	if modeOf(teacher) != modeMain {
		t.Fatalf("esc left %s open", modeOf(teacher))
	}
	wantOnScreen(t, teacher, "challenge 2 for the room", "1 bob", "x: all of them, and end it", "challenge 2 for the room: 1 of 3 reached")
	teacher = update(t, teacher, keyMsg("x"), keyMsg("enter"))
	if len(*starts) != 2 || (*starts)[1].ID != 0 {
		t.Fatalf("enter should close the room's challenge; started %+v", *starts)
	}
	wantOnScreen(t, teacher, "ended", "1 of 3 reached · 2 did not reach it", "1 bob", "enter back to your view")
	teacher = update(t, teacher, threeResults(1)) // late: changes nothing, opens nothing
	teacher = update(t, teacher, keyMsg("enter"))
	if modeOf(teacher) != modeMain || strings.Contains(screen(teacher), "for the room") {
		t.Fatalf("after the end, enter should leave the view without the results:\n%s", screen(teacher))
	}
	// Another one takes the next ID.
	update(t, teacher, keyMsg("x"), keyMsg("1"), keyMsg("enter"))
	if last := (*starts)[len(*starts)-1]; last != (room.Challenge{ID: 2, Name: "boundary-burst"}) {
		t.Fatalf("the next challenge is %+v", last)
	}

	// Another teacher's view (the projector's) started one: this view
	// shows its results, and lets it go when the room's closes.
	teacher = update(t, teacher, room.ChallengeTallyMsg{Tally: room.ChallengeTally{ID: 3, Name: "log-holds", Students: 3}})
	wantOnScreen(t, teacher, "challenge 3 for the room · Try to beat the sliding log", "0 of 3 reached")
	teacher = update(t, teacher, room.ChallengeTallyMsg{Tally: room.ChallengeTally{Students: 3}})
	if strings.Contains(screen(teacher), "for the room") {
		t.Fatalf("the room's challenge closed, the teacher's view still shows it:\n%s", screen(teacher))
	}
	teacher = update(t, teacher, keyMsg("x"), keyMsg("1"), keyMsg("enter"))
	if last := (*starts)[len(*starts)-1]; last.ID != 4 {
		t.Fatalf("the next challenge after the projector's 3 is %+v", last)
	}
	teacher = update(t, teacher, room.ChallengeTallyMsg{Tally: room.ChallengeTally{Students: 3}}) // from before it started
	wantOnScreen(t, teacher, "challenge 1 for the room", "open")
}

// A student's view takes the room's challenge: it leaves the lesson for an
// empty clock of its own, the teacher's moves wait, its best goes to the
// room as it changes (at most every reportEvery: a change within it waits
// for the tick, whose message sends it), F does not leave it, and the
// challenge's end brings the student back to the lesson at the teacher's
// position, following.
func TestAStudentTakesTheRoomsChallenge(t *testing.T) {
	_, student, _, reports := challengeRoomViews(t, 100, 30)
	student = update(t, student, room.FollowMsg{Position: room.Position{Step: 0, Scenario: scenarios.Lesson()[0].Name, Processed: 3, Caption: -1}})
	student = update(t, student, room.ChallengeMsg{Challenge: room.Challenge{ID: 7, Name: "counter-max"}})
	if student.following || student.sc.Name != "challenge" || len(student.eng.Clients()) != 0 {
		t.Fatalf("the student should be on an empty clock of their own, not following (following %v, scenario %q)", student.following, student.sc.Name)
	}
	wantOnScreen(t, student, "◆ the teacher's challenge", "challenge 2 · The most through the sliding counter")
	at := room.Position{Step: 1, Scenario: scenarios.Lesson()[1].Name, Processed: 5, Now: scenarios.Lesson()[1].Start + 60_000, Caption: -1}
	student = update(t, student, room.FollowMsg{Position: at})
	if student.sc.Name != "challenge" {
		t.Fatal("the teacher's move took the student off the challenge")
	}
	student = update(t, student, burstAt("12:00:59.999")...)
	student = update(t, student, roomReportMsg{})
	if n := len(*reports); n == 0 || (*reports)[n-1] != (room.Attempt{ID: 7, Best: 100, Target: 200, Decided: 100}) {
		t.Fatalf("after the first burst the room has %+v", *reports)
	}
	before := len(*reports)
	student = update(t, student, burstAt("12:01:59.998")...)
	for range 20 {
		student = update(t, student, keyMsg("r"))
	}
	if n := len(*reports) - before; n > 1 {
		t.Errorf("%d reports within a few key presses; a view reports at most once every %s and then waits for its tick", n, reportEvery)
	}
	student = update(t, student, roomReportMsg{})
	if last := (*reports)[len(*reports)-1]; last != (room.Attempt{ID: 7, Best: 200, Target: 200, Reached: true, Decided: 220}) {
		t.Fatalf("after the second burst and 20 more the room has %+v", last)
	}
	// Another challenge chosen with x is the student's own: nothing goes to the room.
	n := len(*reports)
	student = update(t, student, keyMsg("x"), keyMsg("1"), keyMsg("enter"), roomReportMsg{}, keyMsg("r"), roomReportMsg{})
	if len(*reports) != n {
		t.Fatalf("a challenge the student chose was reported as the room's: %+v", (*reports)[n:])
	}
	wantOnScreen(t, student, "not counted now: x 2 tries it again")
	student = update(t, student, keyMsg("F"))
	wantOnScreen(t, student, "you follow again when the teacher ends it")
	student = update(t, student, room.ChallengeMsg{Challenge: room.Challenge{}})
	if !student.following || student.sc.Name != scenarios.Lesson()[1].Name || student.trying.on {
		t.Fatalf("the end should bring the student to the teacher's step, following (following %v, scenario %q, trying %v)",
			student.following, student.sc.Name, student.trying.on)
	}
	// Where a follower the teacher's position reached would stand.
	_, follower, _, _ := challengeRoomViews(t, 100, 30)
	follower = update(t, follower, room.FollowMsg{Position: at})
	if got, want := fmt.Sprint(student.Position()), fmt.Sprint(follower.Position()); got != want {
		t.Errorf("the student is at %s, a follower at %s", got, want)
	}
}

// A challenge that comes while the student types their name waits for it.
func TestARoomChallengeWaitsForTheName(t *testing.T) {
	m, err := New(Options{Lesson: scenarios.Lesson(), Name: &NamePrompt{Default: "ann", Claim: func(string) error { return nil }},
		Room: challengeTestRoom{testRoom: testRoom{follows: true}}})
	if err != nil {
		t.Fatal(err)
	}
	m.budget = inFrame
	m = update(t, m, tea.WindowSizeMsg{Width: 100, Height: 30}, room.ChallengeMsg{Challenge: room.Challenge{ID: 1, Name: "log-holds"}})
	if modeOf(m) != modeName || m.trying.room.id != 0 {
		t.Fatalf("the challenge took the name prompt's place (%s)", modeOf(m))
	}
	m = update(t, m, keyMsg("enter"))
	if m.trying.room.id != 1 || !m.trying.on || m.trying.goal.Name != "log-holds" {
		t.Fatalf("after the name the challenge should be open: %+v", m.trying.room)
	}
}

// The teacher's results (the dialog, and the panel above the lanes) and a
// student's view on the room's challenge, at 80×24 and 140×40, dark, light
// and without colour.
func TestGoldenRoomChallenge(t *testing.T) {
	for _, who := range []string{"results", "panel", "student"} {
		for _, sz := range sizes {
			for _, bg := range []string{"dark", "light", "no-color"} {
				t.Run(fmt.Sprintf("%s/%dx%d/%s", who, sz[0], sz[1], bg), func(t *testing.T) {
					teacher, student, _, _ := challengeRoomViews(t, sz[0], sz[1])
					m := teacher
					if who == "student" {
						m = student
					}
					ink := tea.BackgroundColorMsg{Color: color.Black}
					if bg == "light" {
						ink = tea.BackgroundColorMsg{Color: color.White}
					}
					m = update(t, m, ink)
					want := "2 ann"
					switch who {
					case "results":
						m = update(t, m, keyMsg("x"), keyMsg("2"), keyMsg("enter"), threeResults(1))
					case "panel":
						m = update(t, m, keyMsg("x"), keyMsg("2"), keyMsg("enter"), threeResults(1), keyMsg("esc"))
						want = "x: all of them"
					case "student":
						m = update(t, m, room.ChallengeMsg{Challenge: room.Challenge{ID: 1, Name: "counter-max"}})
						m = update(t, m, burstAt("12:00:59.999")...)
						want = "best so far: 100 of 200"
					}
					out := screen(m)
					checkFrame(t, out, sz[0], sz[1])
					if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
						t.Errorf("the frame lacks %q:\n%s", want, out)
					}
					if bg != "no-color" {
						out = m.View().Content
					}
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}
