package render

import (
	"fmt"

	"windowlab/algo"
	"windowlab/human"
)

// SharedTally is what a synced or lagged lane shows of its shared tally
// for the focused client (algo.Synced, algo.Lagged).
type SharedTally struct {
	Synced     bool
	Shared     algo.Decision // synced: the shared tally as of the last sync
	Lagged     *algo.Lagged
	FailedOver bool
	Lost       int64
}

// sharedTally reads l's shared tally at t for client, if it has one.
func sharedTally(l algo.Limiter, t algo.Instant, client string) SharedTally {
	switch l := l.(type) {
	case *algo.Synced:
		return SharedTally{Synced: true, Shared: l.Shared().Peek(t, client)}
	case *algo.Lagged:
		return SharedTally{Lagged: l, FailedOver: l.FailedOver(), Lost: l.Lost()}
	}
	return SharedTally{}
}

// syncedServer is one synced server's count: the shared tally as of the
// last sync, plus its own unsynced delta ("60+20").
func syncedServer(d, shared algo.Decision) string {
	if d.Kind == algo.KindSlidingCounter || d.Count < shared.Count {
		return ""
	}
	return human.Int(shared.Count) + "+" + human.Int(d.Count-shared.Count)
}

// replicaLine is a lagged lane's replica: how far behind, and what the
// failover lost once it has happened.
func replicaLine(s SharedTally) string {
	a := algo.Of(s.Lagged)
	if !s.FailedOver {
		return fmt.Sprintf("%s behind · takes over at %s", human.Duration(a.Lag), a.Failover.Short())
	}
	return fmt.Sprintf("took over at %s · %s increments lost", a.Failover.Short(), human.Int(s.Lost))
}

// serverLabel names a fleet's server line: a synced fleet's counts are
// the shared tally's plus each server's own.
func (p Lanes) serverLabel(i int) string {
	if i < len(p.Snap.Shared) && p.Snap.Shared[i].Synced {
		return "synced"
	}
	if i < len(p.Snap.Algorithms) && p.Snap.Algorithms[i].Split {
		return "share"
	}
	return "server"
}

// sharingName labels a synced, split or lagged limiter's row by how its
// tally is kept: "~1s", "split/3", "fixed↯".
func sharingName(a algo.Algorithm) string {
	switch {
	case a.Synced:
		return "~" + human.Duration(a.Sync)
	case a.Split:
		return fmt.Sprintf("split/%d", a.Servers)
	case a.Lagged:
		plain := a
		plain.Lagged = false
		return ShortName(plain) + "↯"
	}
	return ""
}
