package sim

import (
	"math"

	"windowlab/algo"
)

// Load is the most a replay's traffic puts into an engine, as the scenario
// bounds it before anything is generated: what EstimateBytes counts from.
type Load struct {
	Clients      int64 // distinct clients
	Runs         int64 // distinct (client, instant) pairs in all, at most
	RunsInWindow int64 // of them, at most in any one window
	Span         int64 // ms from the first arrival to the last
	KeyBytes     int   // the longest client id
}

// EstimateBytes is about the most memory an engine over limiters holds for
// load with opts, from what its structures cost: per client, the engine's
// index and admitted tracking and each limiter's table; per distinct
// instant of a client in one window, the logs' and the admitted tracking's
// runs (varints, so the gap between a client's instants sets their size);
// with History, a run per distinct instant of the whole replay; without
// ForwardOnly, the checkpoints. The constants are measured upper bounds
// (TestEstimateBoundsTheHeap checks them against the heap); it errs high.
func EstimateBytes(limiters []algo.Limiter, ld Load, opts Options) int64 {
	if len(limiters) == 0 {
		return 0
	}
	cfg := limiters[0].Config()
	w := int64(cfg.Window.Milliseconds())
	inWindow := min(ld.RunsInWindow, ld.Runs)
	active := min(ld.Clients, max(inWindow, 1))
	tracked := 0
	for _, l := range limiters {
		if !ownsAdmitted(l) {
			tracked++
		}
	}
	// The engine's own structures, each limiter's and a checkpoint's
	// headers, whatever the traffic.
	f := float64(64<<10+len(limiters)<<10) + slots(limiters, ld.Clients)
	// What a checkpoint copies: each client's admitted record and the
	// header of its runs (every client's, up to a half more as the slices
	// grow), each limiter's table for the clients a window holds at once,
	// and the runs.
	state := 0.0
	if tracked > 0 {
		state = 1.5 * float64(ld.Clients) * float64(admittedClientBytes)
	}
	for _, l := range limiters {
		if fp, err := algo.WorstCase(l.Kind(), cfg, 1, ld.KeyBytes); err == nil {
			state += 1.5 * float64(active) * float64(fp.PerClient)
		}
	}
	// Runs: a client's instants in a window are about w·active/inWindow
	// apart.
	gap := algo.VarintLen(w * active / max(inWindow, 1))
	for _, l := range limiters {
		switch {
		case l.Kind() == algo.KindSlidingLog && cfg.NoExpiry:
			state += 1.5 * float64(ld.Runs) * float64(gap+1)
		case l.Kind() == algo.KindSlidingLog:
			state += 1.5 * float64(inWindow) * float64(gap+1)
		case cfg.NoExpiry:
			state += 1.25 * float64(ld.Runs) * 32 // a retired window a run, at most
		}
	}
	if tracked > 0 {
		state += 1.5 * float64(inWindow) * float64(gap+2)
	}
	f += state
	if opts.History {
		gapAll := algo.VarintLen(ld.Span / max(ld.Runs, 1))
		run := gapAll + algo.VarintLen(ld.Clients) + algo.VarintLen(int64(1)<<len(limiters)) + 1
		f += 1.25*float64(ld.Runs)*float64(run) + float64(ld.Runs)/histBlockRuns*float64(32+8*len(limiters))
	}
	if !opts.ForwardOnly {
		// The checkpoints' budget counts the limiters' memory figures; their
		// copies on the heap come to up to a quarter more.
		f += math.Min(1.25*checkpointBudget, maxCheckpoints*(state+float64(len(limiters)<<10)))
	}
	return int64(math.Min(f, math.MaxInt64/2))
}

// SlotBytes is the part of EstimateBytes that every client of the log
// costs, active or not: its name and index, and its slot in every
// limiter's states. A sweep's pass that decides its settings from one
// record a client (algo.Trio) holds it once for them all.
func SlotBytes(limiters []algo.Limiter, clients int64) int64 {
	return int64(slots(limiters, clients))
}

// slots is SlotBytes: each client's name and index, and its slot in every
// limiter's states (indexed by the engine's ids, held whether the client
// is active or not; up to a half more as the slices grow).
func slots(limiters []algo.Limiter, clients int64) float64 {
	f := float64(clients) * 100
	for _, l := range limiters {
		f += 1.5 * float64(clients) * float64(algo.SlotBytes(l.Kind()))
	}
	return f
}
