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

// everyLessonStep is every guided lesson's steps, in order.
func everyLessonStep(t *testing.T) []*Scenario {
	t.Helper()
	var all []*Scenario
	for _, l := range Lessons() {
		steps, err := LessonNamed(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, steps...)
	}
	return all
}

// The lessons by name: the default is the window lesson, an unknown name
// lists them.
func TestLessonsByName(t *testing.T) {
	ls := Lessons()
	if len(ls) != 2 || ls[0].Name != DefaultLesson || ls[1].Name != "many-bouncers" {
		t.Fatalf("lessons %+v", ls)
	}
	steps, err := LessonNamed(DefaultLesson)
	if err != nil || len(steps) != len(Lesson()) || steps[0].Name != Lesson()[0].Name {
		t.Errorf("the default lesson: %v, %d steps", err, len(steps))
	}
	if _, err := LessonNamed("many-doormen"); err == nil || !strings.Contains(err.Error(), "windows and many-bouncers") {
		t.Errorf("an unknown lesson: %v", err)
	}
}

// totals are a step's totals at its end, by algorithm.
func totals(t *testing.T, s *Scenario) map[string]sim.Stats {
	t.Helper()
	e, err := s.Engine(sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	out := map[string]sim.Stats{}
	for _, st := range e.Stats() {
		out[st.Algorithm.String()] = st
	}
	return out
}

// The many-bouncers lesson holds its claims, and each step teaches what
// its title says, read off the engine: one tally is exact; a tally at each
// of three doors lets the crowd in three times; the one shared tally is
// exact when it reads and adds in one go and over when it races; the
// compromises go over (synced, the failover) or under (split, uneven) the
// limit, a synced fleet never past three times it.
func TestManyBouncersLesson(t *testing.T) {
	steps, err := LessonNamed("many-bouncers")
	if err != nil {
		t.Fatal(err)
	}
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
		if e, err := s.Engine(sim.Options{}); err != nil || e.Len() > 10_000 {
			t.Errorf("%s: %v; a lesson step should replay instantly", s.Name, err)
		}
	}
	if want := []string{"one-bouncer", "many-doors", "one-tally", "compromises"}; !slices.Equal(names, want) {
		t.Fatalf("many-bouncers steps %v, want %v", names, want)
	}
	limit := steps[0].Config.Limit
	if got := totals(t, steps[0])["fixed-window"]; got.MaxInWindow != limit || got.Denied == 0 {
		t.Errorf("one bouncer: %+v, want exactly the limit and some turned away", got)
	}
	if got := totals(t, steps[1]); got["fixed-window@3"].MaxInWindow != 3*limit || got["fixed-window"].MaxInWindow != limit {
		t.Errorf("three doors: %d with a tally each, %d with one; want 3× the limit and the limit",
			got["fixed-window@3"].MaxInWindow, got["fixed-window"].MaxInWindow)
	}
	if got := totals(t, steps[2]); got["fixed-window"].MaxInWindow != limit || got["fixed-window~2ms"].MaxInWindow <= limit {
		t.Errorf("one tally: %d in one go, %d read then added; want the limit, and over it",
			got["fixed-window"].MaxInWindow, got["fixed-window~2ms"].MaxInWindow)
	}
	got := totals(t, steps[3])
	synced, split := got["fixed-window@3~sync=1s"].MaxInWindow, got["fixed-window@3:client-hash~split"].MaxInWindow
	lag := got["fixed-window~lag=200ms@12:10:01.500"].MaxInWindow
	if synced <= limit || synced > 3*limit || split >= limit || lag <= limit || got["fixed-window"].MaxInWindow != limit {
		t.Errorf("compromises: synced %d, split %d, after the failover %d; want over the limit and at most 3× it, under it, over it", synced, split, lag)
	}
	// Nothing it says contradicts the lesson it follows, whose words it ends on.
	last := steps[3].Captions[len(steps[3].Captions)-1].Text
	if !strings.Contains(last, "Across many servers, the tally itself must be shared.") {
		t.Errorf("the last caption does not end on the lesson's words: %q", last)
	}
}
