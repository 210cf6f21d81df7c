package scenarios

import (
	"embed"
	"fmt"
	"path"
	"slices"
)

// The guided lesson's steps, one scenario each, in the lesson's order. File
// names start with the step number, so the directory listing is the order.
//
//go:embed lesson/*.yaml
var lessonFS embed.FS

// Lesson parses the guided lesson's steps, in order. Each call returns
// fresh scenarios.
func Lesson() []*Scenario {
	entries, err := lessonFS.ReadDir("lesson")
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
		file := path.Join("lesson", name)
		data, err := lessonFS.ReadFile(file)
		if err != nil {
			panic(err)
		}
		s, err := Parse(file, data)
		if err != nil {
			panic(fmt.Sprintf("scenarios: lesson step %s: %v", name, err)) // a test keeps this from shipping
		}
		steps[i] = s
	}
	return steps
}
