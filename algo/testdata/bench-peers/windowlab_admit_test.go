//go:build windowlab

// windowlab's allow-only path beside the peers, for the peer harness
// (../shared/bench-peers): copy this file next to its windowlab_test.go
// and run ./run.sh PROJECT_DIR. Admit decides and records exactly as Allow
// does, called on each limiter's own type: no interface call, no Decision
// built, as a server that only enforces the limit would call it. The
// harness's own wiring (windowlab_test.go, Limiter.Allow(...).Allowed)
// runs in the same pass, so both paths are measured side by side.

package peers

import (
	"testing"
	"time"

	"windowlab/algo"
)

func newWindowlabAdmit(k algo.Kind) decider {
	l, err := algo.New(k, algo.Config{Limit: limitPerWindow, Window: window})
	if err != nil {
		panic(err)
	}
	at := func(now time.Time) algo.Instant { return algo.Instant(now.UnixMilli() - epochMs) }
	switch l := l.(type) {
	case *algo.FixedWindow:
		return func(key string, now time.Time) bool { return l.Admit(at(now), key) }
	case *algo.SlidingLog:
		return func(key string, now time.Time) bool { return l.Admit(at(now), key) }
	case *algo.SlidingCounter:
		return func(key string, now time.Time) bool { return l.Admit(at(now), key) }
	case *algo.TokenBucket:
		return func(key string, now time.Time) bool { return l.Admit(at(now), key) }
	}
	panic("no Admit for " + k.String())
}

func init() {
	for _, k := range windowlabKinds {
		optionalVirtual = append(optionalVirtual, namedDecider{"windowlab_admit_" + k.String(), func() decider { return newWindowlabAdmit(k) }})
	}
}

// BenchmarkWindowlabAdmit/<kind>/{hot,keys10k}.
func BenchmarkWindowlabAdmit(b *testing.B) {
	for _, k := range windowlabKinds {
		b.Run(k.String(), func(b *testing.B) {
			benchShapes(b, allShapes, func(*testing.B) decider { return newWindowlabAdmit(k) })
		})
	}
}
