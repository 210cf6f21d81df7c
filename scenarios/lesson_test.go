package scenarios

import (
	"slices"
	"strings"
	"testing"

	"windowlab/sim"
)

func TestLessonSteps(t *testing.T) {
	steps := Lesson()
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
		pauses := 0
		for _, c := range s.Captions {
			if c.Pause {
				pauses++
			}
		}
		if s.Title == "" || s.Description == "" || pauses == 0 || len(s.Expect) == 0 {
			t.Errorf("%s: wants a title, a description, pausing captions and expectations", s.Name)
		}
		for _, f := range s.Verify() {
			t.Error(f)
		}
		e, err := s.Engine(sim.Options{})
		if err != nil || e.Len() > 100_000 {
			t.Errorf("%s: %v, %d requests; a lesson step should replay instantly", s.Name, err, e.Len())
		}
	}
	want := []string{"bouncer", "fixed-window", "sliding-log", "sliding-counter", "common-mistakes", "takeaways"}
	if !slices.Equal(names, want) {
		t.Errorf("lesson steps %v, want %v", names, want)
	}
	// The lesson's big number is said where the log's memory is shown.
	var said bool
	for _, c := range steps[2].Captions {
		said = said || strings.Contains(c.Text, "10 billion")
	}
	if !said {
		t.Error("the sliding-log step never says 10 billion")
	}
}

// The lesson's own figures are what its captions print, now from the
// engine: nothing a caption says may contradict the lesson.
func TestLessonFiguresInCaptions(t *testing.T) {
	var all []string
	for _, s := range Lesson() {
		for _, c := range s.Captions {
			all = append(all, c.Text)
		}
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"200 requests in 2 seconds", "30 + 84 × 0.75 = 93", "10 billion timestamps", "0.003%"} {
		if !strings.Contains(text, want) {
			t.Errorf("no lesson caption prints %q", want)
		}
	}
}
