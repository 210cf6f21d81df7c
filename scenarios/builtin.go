package scenarios

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The built-in scenarios are the lesson's own examples, so the program
// teaches with no files around it.
//
//go:embed builtin/*.yaml
var builtinFS embed.FS

// builtinOrder is the teaching order: the boundary burst that motivates
// everything first, then the lesson's checks, then what each algorithm
// costs and where it breaks. Files not listed follow, by name.
var builtinOrder = []string{
	"boundary-burst",
	"check-yourself-1",
	"worked-example",
	"steady-stream",
	"sliding-log-memory",
	"forgotten-ttl",
	"many-servers",
	"shared-tally-race",
	"replica-lag",
	"synced-tallies",
	"split-quota",
	"random-traffic",
	"presets-cloudflare-example",
	"token-bucket",
	"segmented-window",
}

// DefaultBuiltin is the scenario to show when none is named.
const DefaultBuiltin = "boundary-burst"

// BuiltinNames lists the built-in scenarios in teaching order.
func BuiltinNames() []string {
	entries, err := builtinFS.ReadDir("builtin")
	if err != nil {
		panic(err) // embedded at build time
	}
	var extra []string
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		if !slices.Contains(builtinOrder, name) {
			extra = append(extra, name)
		}
	}
	slices.Sort(extra)
	names := slices.Clone(builtinOrder)
	return append(names, extra...)
}

// builtinFile is where the built-in called name is embedded.
func builtinFile(name string) string { return path.Join("builtin", name+".yaml") }

// Title is a built-in scenario's name and title.
type Title struct{ Name, Title string }

// BuiltinTitles are the built-ins' names and titles, in BuiltinNames'
// order, read without the replay that resolves their captions: all a list
// or a shell's completion needs, in a few milliseconds rather than the
// quarter of a second sliding-log-memory's replay takes.
func BuiltinTitles() []Title {
	names := BuiltinNames()
	out := make([]Title, len(names))
	for i, name := range names {
		file := builtinFile(name)
		data, err := builtinFS.ReadFile(file)
		if err != nil {
			panic(fmt.Sprintf("scenarios: built-in %s: %v", name, err)) // a test keeps this from shipping
		}
		s, err := parseText(file, data)
		if err != nil {
			panic(fmt.Sprintf("scenarios: built-in %s: %v", name, err))
		}
		out[i] = Title{s.Name, s.Title}
	}
	return out
}

// Builtin parses the built-in scenario called name. Each call returns a
// fresh Scenario, so callers may not disturb one another.
func Builtin(name string) (*Scenario, error) {
	file := builtinFile(name)
	data, err := builtinFS.ReadFile(file)
	if err != nil || !isSlug(name) {
		names := BuiltinNames()
		hint := ""
		if c, near := Closest(name, names); near {
			hint = fmt.Sprintf("did you mean %s? ", c)
		}
		return nil, fmt.Errorf("no built-in scenario named %q; %sbuilt-ins are %s", name, hint, strings.Join(names, ", "))
	}
	return Parse(file, data)
}

// Builtins parses every built-in scenario, in teaching order.
func Builtins() []*Scenario {
	names := BuiltinNames()
	out := make([]*Scenario, len(names))
	for i, name := range names {
		s, err := Builtin(name)
		if err != nil {
			panic(fmt.Sprintf("scenarios: built-in %s: %v", name, err)) // a test keeps this from shipping
		}
		out[i] = s
	}
	return out
}
