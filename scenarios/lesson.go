package scenarios

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The guided lessons' steps, one scenario each, a directory a lesson, in
// the lesson's order. File names start with the step number, so the
// directory listing is the order.
//
//go:embed lesson/*.yaml bouncers/*.yaml
var lessonFS embed.FS

// LessonInfo is a guided lesson: its name on the command line, its title,
// and the directory of its steps.
type LessonInfo struct {
	Name, Title string
	dir         string
}

// DefaultLesson is the lesson windowlab lesson opens when none is named:
// the window-counting limiters.
const DefaultLesson = "windows"

// lessons are the guided lessons, the window-counting lesson first; the
// second picks up where it ends ("across many servers, the tally itself
// must be shared").
var lessons = []LessonInfo{
	{Name: DefaultLesson, Title: "Window counting limiters: the bouncer's tally, the fixed window, the sliding log, the sliding counter", dir: "lesson"},
	{Name: "many-bouncers", Title: "Many bouncers: one tally each lets a client in once per door; one shared costs a trip per count", dir: "bouncers"},
}

// Lessons lists the guided lessons, the default first.
func Lessons() []LessonInfo { return slices.Clone(lessons) }

// LessonNamed parses the steps of the lesson called name, in order; an
// unknown name is an error that lists the lessons.
func LessonNamed(name string) ([]*Scenario, error) {
	names := make([]string, len(lessons))
	for i, l := range lessons {
		if l.Name == name {
			return lessonSteps(l.dir), nil
		}
		names[i] = l.Name
	}
	return nil, fmt.Errorf("no lesson is called %q; the lessons are %s", truncate(name), strings.Join(names, " and "))
}

// Lesson parses the window-counting lesson's steps, in order. Each call
// returns fresh scenarios.
func Lesson() []*Scenario { return lessonSteps("lesson") }

// lessonSteps parses the steps in the lesson directory dir, in order.
func lessonSteps(dir string) []*Scenario {
	entries, err := lessonFS.ReadDir(dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	steps := make([]*Scenario, len(names))
	for i, name := range names {
		file := path.Join(dir, name)
		data, err := lessonFS.ReadFile(file)
		if err != nil {
			panic(err)
		}
		s, err := Parse(file, data)
		if err != nil {
			panic(fmt.Sprintf("scenarios: lesson step %s: %v", file, err)) // a test keeps this from shipping
		}
		steps[i] = s
	}
	return steps
}
