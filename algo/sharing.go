package algo

import (
	"fmt"
	"strings"
	"time"
)

// The names of the tallies that share (or split) a limit across servers,
// after "~": fixed-window@3~sync=1s (Synced), fixed-window@3~split
// (Split), fixed-window~lag=200ms@12:00:31 (Lagged).

// sharing is the name's suffix for a synced, split or lagged tally.
func (a Algorithm) sharing() string {
	switch {
	case a.Synced:
		return "~sync=" + shortDuration(a.Sync)
	case a.Split:
		return "~split"
	case a.Lagged:
		return "~lag=" + shortDuration(a.Lag) + "@" + a.Failover.Short()
	}
	return ""
}

// sharingTitle is the title's words for it.
func (a Algorithm) sharingTitle() string {
	switch {
	case a.Synced && a.Sync == 0:
		return fmt.Sprintf(" · %d servers synced at every request", a.Servers) + a.routed()
	case a.Synced:
		return fmt.Sprintf(" · %d servers synced every %s", a.Servers, shortDuration(a.Sync)) + a.routed()
	case a.Split:
		return fmt.Sprintf(" · %d servers, the limit split", a.Servers) + a.routed()
	case a.Lagged:
		return " · replica " + shortDuration(a.Lag) + " behind"
	}
	return ""
}

// routed names a fleet's routing when it is not round-robin.
func (a Algorithm) routed() string {
	if a.Routing == RoundRobin {
		return ""
	}
	return " (" + a.Routing.String() + ")"
}

// newSharing makes the limiter for a synced, split or lagged algorithm.
func (a Algorithm) newSharing(c Config) (Limiter, error) {
	plain := a.Single()
	plain.Synced, plain.Split, plain.Lagged, plain.Sync, plain.Lag, plain.Failover = false, false, false, 0, 0, 0
	switch {
	case a.Synced:
		return NewSynced(plain, c, a.Servers, a.Routing, a.Seed, a.Sync)
	case a.Split:
		return NewSplit(plain, c, a.Servers, a.Routing, a.Seed)
	}
	return NewLagged(plain, c, a.Lag, a.Failover)
}

// parseSharing reads what follows "~" in name when it is sync=, split or
// lag=; ok is false for anything else (a round trip).
func (a Algorithm) parseSharing(name, rest string) (Algorithm, bool, error) {
	fleet := a.Servers >= 2 && !a.Racy
	window := a.Kind != KindTokenBucket && a.Kind != KindSegmentedWindow
	switch {
	case rest == "split":
		if !fleet || !window {
			return Algorithm{}, true, fmt.Errorf("%q: ~split shares a window limiter's limit among a fleet's servers; name the servers first (fixed-window@3~split)", name)
		}
		a.Split = true
		return a, true, nil
	case strings.HasPrefix(rest, "sync="):
		d, err := time.ParseDuration(strings.TrimPrefix(rest, "sync="))
		if err != nil || d < 0 || d > MaxSync || d%time.Millisecond != 0 || !fleet || !window {
			return Algorithm{}, true, fmt.Errorf("%q: after ~sync= give how often the servers sync their tallies, whole milliseconds from 0 (at every request) to %s, for a window limiter on a fleet (fixed-window@3~sync=1s)", name, MaxSync)
		}
		a.Synced, a.Sync = true, d
		return a, true, nil
	case strings.HasPrefix(rest, "lag="):
		lag, at, _ := strings.Cut(strings.TrimPrefix(rest, "lag="), "@")
		d, err := time.ParseDuration(lag)
		t, errAt := ParseClock(at)
		if err != nil || errAt != nil || d < 0 || d > MaxRTT || d%time.Millisecond != 0 || a.Servers >= 2 || a.Racy || !window {
			return Algorithm{}, true, fmt.Errorf("%q: after ~lag= give how far the replica trails, whole milliseconds up to %s, then @ the clock time it takes over, for a window limiter on one shared tally (fixed-window~lag=200ms@12:00:31)", name, MaxRTT)
		}
		a.Lagged, a.Lag, a.Failover = true, d, t
		return a, true, nil
	}
	return a, false, nil
}

// ServerFleet is a limiter run on several servers, each deciding on what
// it holds: a Fleet (a split one too) or a Synced fleet.
type ServerFleet interface {
	Limiter
	Servers() []Limiter
	Server(client string) int
	Tallies() []ServerTally
}
