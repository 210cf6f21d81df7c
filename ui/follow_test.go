package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"windowlab/room"
	"windowlab/scenarios"
)

// classroom is a teacher's view publishing into last, and a student's
// following it, on the lesson.
func classroom(t *testing.T) (teacher, student Model, last *room.Position) {
	t.Helper()
	last = new(room.Position)
	var err error
	teacher, err = New(Options{Lesson: scenarios.Lesson(), Room: testRoom{publish: func(p room.Position) { *last = p }}})
	if err != nil {
		t.Fatal(err)
	}
	student, err = New(Options{Lesson: scenarios.Lesson(), Room: testRoom{follows: true}})
	if err != nil {
		t.Fatal(err)
	}
	teacher.budget, student.budget = inFrame, inFrame
	size := tea.WindowSizeMsg{Width: 100, Height: 30}
	return update(t, teacher, size), update(t, student, size), last
}

// The student's view goes wherever the teacher's goes, caption and all,
// until a key of the student's moves the clock; F follows again.
func TestStudentsFollowTheTeacher(t *testing.T) {
	teacher, student, last := classroom(t)
	for _, keys := range [][]string{{"tab"}, {"tab"}, {"n"}, {"tab", "tab"}, {"right"}, {"p"}} {
		teacher = update(t, teacher, press(keys...)...)
		student = update(t, student, room.FollowMsg{Position: *last})
		if got, want := student.position(), teacher.position(); got != want {
			t.Fatalf("after the teacher's %v the student is at %+v, the teacher at %+v", keys, got, want)
		}
		if s := screen(student); !strings.Contains(s, "● following the teacher") || captionOnScreen(student) != captionOnScreen(teacher) {
			t.Fatalf("after %v the student's screen:\n%s\nthe teacher's:\n%s", keys, s, screen(teacher))
		}
	}
	// A step of the student's own: exploring alone, the teacher's moves no
	// longer move it.
	student = update(t, student, press("right", "right")...)
	mine := student.position()
	teacher = update(t, teacher, press("tab")...)
	student = update(t, student, room.FollowMsg{Position: *last})
	if student.position() != mine || !strings.Contains(screen(student), "○ exploring alone") {
		t.Fatalf("exploring, the student moved with the teacher:\n%s", screen(student))
	}
	student = update(t, student, press("F")...)
	if student.position() != teacher.position() || !strings.Contains(screen(student), "● following") {
		t.Fatalf("F should go back to the teacher's moment: %+v, want %+v", student.position(), teacher.position())
	}
	// The teacher's view says nothing of following.
	if strings.Contains(screen(teacher), "following the teacher") {
		t.Error("the teacher's view shows a student's banner")
	}
}
