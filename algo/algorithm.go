package algo

import (
	"fmt"
	"strings"
)

// Algorithm is a limiter kind under a set of rules: what a scenario or a
// report names as "sliding-counter" (the lesson's rules) or
// "sliding-counter/httprate" (a preset's).
type Algorithm struct {
	Kind  Kind
	Rules Rules
}

// Of returns the algorithm a limiter runs.
func Of(l Limiter) Algorithm { return Algorithm{l.Kind(), l.Config().Rules} }

// String is the algorithm's name: the kind, then "/" and the preset's name
// when the rules are not the lesson's.
func (a Algorithm) String() string {
	if n := a.Rules.Name(); n != "" {
		return a.Kind.String() + "/" + n
	}
	return a.Kind.String()
}

// Title is the name in words: "Sliding window counter · go-chi/httprate".
func (a Algorithm) Title() string {
	if p, ok := presetFor(a.Rules); ok {
		return a.Kind.Title() + " · " + p.Title
	}
	if s := a.Rules.String(); s != "" {
		return a.Kind.Title() + " · " + s
	}
	return a.Kind.Title()
}

// New returns a fresh limiter running a under c's limit and window.
func (a Algorithm) New(c Config) (Limiter, error) {
	c.Rules = a.Rules
	return New(a.Kind, c)
}

// AlgorithmNames lists every name ParseAlgorithm accepts: each kind, then
// each preset after the kind it reproduces.
func AlgorithmNames() []string {
	var names []string
	for _, k := range All {
		names = append(names, k.String())
	}
	for _, p := range Presets {
		names = append(names, Algorithm{p.Kind, p.Rules}.String())
	}
	return names
}

// PresetKindError is a preset named after a kind of limiter it does not
// reproduce, such as fixed-window/httprate: the name is known, the pairing
// is wrong, and the message says which pairing is right.
type PresetKindError struct {
	Preset string
	Kind   Kind // the kind the preset reproduces
	Asked  Kind // the kind it was named after
}

func (e *PresetKindError) Error() string {
	return fmt.Sprintf("%s reproduces a %s, not a %s: use %s/%s", e.Preset, e.Kind, e.Asked, e.Kind, e.Preset)
}

// ParseAlgorithm reads "kind" or "kind/preset". A preset goes only with the
// kind of limiter whose behaviour it reproduces.
func ParseAlgorithm(s string) (Algorithm, error) {
	kindName, preset, hasPreset := strings.Cut(s, "/")
	k, ok := ParseKind(kindName)
	if !ok {
		return Algorithm{}, fmt.Errorf("unknown algorithm %q", s)
	}
	if !hasPreset {
		return Algorithm{Kind: k}, nil
	}
	for _, p := range Presets {
		if p.Name == preset {
			if p.Kind != k {
				return Algorithm{}, &PresetKindError{Preset: p.Name, Kind: p.Kind, Asked: k}
			}
			return Algorithm{k, p.Rules}, nil
		}
	}
	return Algorithm{}, fmt.Errorf("unknown preset %q", preset)
}
