package algo

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Algorithm is a limiter kind under a set of rules: what a scenario or a
// report names as "sliding-counter" (the lesson's rules) or
// "sliding-counter/httprate" (a preset's).
type Algorithm struct {
	Kind  Kind
	Rules Rules
	// Servers, 2 or more, runs the algorithm on that many servers each
	// with its own tally (Fleet), the requests shared out by Routing; 0
	// is one tally, as every limiter on its own keeps.
	Servers int
	Routing Routing
	Seed    uint64 // Random routing's draws
	// Racy reads and writes the shared tally in two round trips, RTT
	// apart (Racy), instead of at once in one script.
	Racy bool
	RTT  time.Duration
	// The fleets real gateways run and a replica behind a shared tally
	// (synced.go, split.go, lagged.go): a fleet syncing its servers'
	// tallies every Sync (Synced), or splitting the limit among them
	// (Split); one shared tally whose replica trails by Lag and takes
	// over at Failover (Lagged).
	Synced, Split, Lagged bool
	Sync, Lag             time.Duration
	Failover              Instant
}

// Of returns the algorithm a limiter runs.
func Of(l Limiter) Algorithm {
	switch l := l.(type) {
	case *Fleet:
		return l.Algorithm()
	case *Racy:
		return l.Algorithm()
	case *Synced:
		return l.Algorithm()
	case *Lagged:
		return l.Algorithm()
	}
	return Algorithm{Kind: l.Kind(), Rules: l.Config().Rules}
}

// String is the algorithm's name: the kind, then "/" and the preset's name
// when the rules are not the lesson's, then for a fleet "@" and its
// servers, and ":client-hash" when they route so.
func (a Algorithm) String() string {
	s := a.Kind.String()
	if n := a.Rules.Name(); n != "" {
		s += "/" + n
	}
	if a.Servers >= 2 {
		s += fmt.Sprintf("@%d", a.Servers)
		if a.Routing != RoundRobin {
			s += ":" + a.Routing.String()
		}
		if a.Routing == Random && a.Seed != 0 {
			s += fmt.Sprintf("/%d", a.Seed)
		}
	}
	if a.Racy {
		s += "~" + shortDuration(a.RTT)
	}
	return s + a.sharing()
}

// shortDuration is d as a name holds it: 2ms, 1.5s, 1m0s as Go writes it.
func shortDuration(d time.Duration) string {
	if d == 0 {
		return "0ms"
	}
	return d.String()
}

// Fleet is the algorithm with n servers, each its own tally, routed so;
// the same algorithm on one tally when n is under 2.
func (a Algorithm) Fleet(n int, r Routing) Algorithm {
	if n < 2 {
		n, r = 0, RoundRobin
	}
	a.Servers, a.Routing = n, r
	if r != Random {
		a.Seed = 0
	}
	return a
}

// Single is the algorithm on one tally.
func (a Algorithm) Single() Algorithm { return a.Fleet(0, RoundRobin) }

// Title is the name in words: "Sliding window counter · go-chi/httprate".
func (a Algorithm) Title() string {
	t := a.Kind.Title()
	if p, ok := presetFor(a.Rules); ok {
		t += " · " + p.Title
	} else if s := a.Rules.String(); s != "" {
		t += " · " + s
	}
	if a.Servers >= 2 && !a.Synced && !a.Split {
		t += fmt.Sprintf(" · %d servers, a tally each", a.Servers)
		if a.Routing != RoundRobin {
			t += " (" + a.Routing.String() + ")"
		}
	}
	if a.Racy {
		t += " · shared, GET then INCR " + shortDuration(a.RTT) + " apart"
	}
	return t + a.sharingTitle()
}

// New returns a fresh limiter running a under c's limit and window.
func (a Algorithm) New(c Config) (Limiter, error) {
	c.Rules = a.Rules
	switch {
	case a.Synced || a.Split || a.Lagged:
		return a.newSharing(c)
	case a.Servers >= 2 && a.Racy:
		return nil, Problem("atomic", "%s: a fleet keeps a tally a server, nothing shared to race on", a)
	case a.Servers >= 2 && a.Routing == Random:
		return NewRandomFleet(a.Single(), c, a.Servers, a.Seed)
	case a.Servers >= 2:
		return NewFleet(a.Single(), c, a.Servers, a.Routing)
	case a.Racy:
		plain := a
		plain.Racy, plain.RTT = false, 0
		return NewRacy(plain, c, a.RTT)
	}
	return New(a.Kind, c)
}

// AlgorithmNames lists every name ParseAlgorithm accepts: each kind, then
// each preset after the kind it reproduces.
func AlgorithmNames() []string {
	var names []string
	for _, k := range All {
		names = append(names, k.String())
	}
	for _, p := range AllPresets() {
		names = append(names, Algorithm{Kind: p.Kind, Rules: p.Rules}.String())
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
	if base, rtt, ok := strings.Cut(s, "~"); ok {
		a, err := ParseAlgorithm(base)
		if err != nil {
			return a, err
		}
		if b, ok, err := a.parseSharing(s, rtt); ok {
			return b, err
		}
		d, err := time.ParseDuration(rtt)
		if err != nil || d < 0 || d > MaxRTT || d%time.Millisecond != 0 || a.Servers >= 2 || a.Kind == KindTokenBucket || a.Kind == KindSegmentedWindow {
			return Algorithm{}, fmt.Errorf("%q: after ~ give the round trip between the tally's read and its write, whole milliseconds up to %s, for a window limiter on one shared tally (fixed-window~2ms)", s, MaxRTT)
		}
		a.Racy, a.RTT = true, d
		return a, nil
	}
	if base, fleet, ok := strings.Cut(s, "@"); ok {
		a, err := ParseAlgorithm(base)
		if err != nil {
			return a, err
		}
		n, routing, _ := strings.Cut(fleet, ":")
		routing, seedText, seeded := strings.Cut(routing, "/")
		servers, err := strconv.Atoi(n)
		if err != nil || servers < 2 || servers > MaxServers {
			return Algorithm{}, fmt.Errorf("%q: after @ give the servers, 2 to %d, each with its own tally (fixed-window@3)", s, MaxServers)
		}
		r := RoundRobin
		if routing != "" {
			if r, ok = ParseRouting(routing); !ok {
				return Algorithm{}, fmt.Errorf("%q: routing %q is not round-robin, client-hash or random", s, routing)
			}
		}
		a = a.Fleet(servers, r)
		if seeded {
			seed, err := strconv.ParseUint(seedText, 10, 64)
			if err != nil || r != Random || seed == 0 {
				return Algorithm{}, fmt.Errorf("%q: after random/ give the draws' seed, a whole number from 1 (fixed-window@3:random/7)", s)
			}
			a.Seed = seed
		}
		return a, nil
	}
	kindName, preset, hasPreset := strings.Cut(s, "/")
	k, ok := ParseKind(kindName)
	if !ok {
		return Algorithm{}, fmt.Errorf("unknown algorithm %q", s)
	}
	if !hasPreset {
		return Algorithm{Kind: k}, nil
	}
	for _, p := range AllPresets() {
		if p.Name == preset {
			if p.Kind != k {
				return Algorithm{}, &PresetKindError{Preset: p.Name, Kind: p.Kind, Asked: k}
			}
			return Algorithm{Kind: k, Rules: p.Rules}, nil
		}
	}
	return Algorithm{}, fmt.Errorf("unknown preset %q", preset)
}
