package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"windowlab/internal/long"
)

// admitNames are client names of every kind the allow-only path tells
// apart: shorter than 8 bytes, 8 to 16 (decided in the client's record,
// compared as two words), longer; names alike but for one byte at the
// start, the middle or the end.
var admitNames = []string{
	"a", "client7",
	"client-a", "client-b", "b-client",
	"client-0000001", "client-0001001", "client-1000001",
	"abcdefghijklmnop", "abcdefghijklmnoq", "bbcdefghijklmnop",
	"abcdefghijklmnopq", "e-with-a-longer-name",
}

// admitPair is one limiter told every request through Allow, one through
// Admit.
type admitPair struct {
	allow, admit Limiter
	admitFn      func(Instant, string) bool
}

// Admit decides and records exactly as Allow does: two limiters, one told
// every request through Allow and one through Admit, allow the same
// requests, hold the same memory (and, logs, the same queues), and answer
// every Peek alike, on random streams with expiry on and off, counts
// widened mid-stream, sweeps, and names of every length.
func TestAdmitDecidesAsAllow(t *testing.T) {
	sequences := long.N(300, 3000)
	for _, k := range All {
		for _, mode := range []string{"expiry", "no-expiry", "widened"} {
			t.Run(k.String()+"/"+mode, func(t *testing.T) {
				if mode == "widened" {
					narrowCountsUpTo(t, 2)
				}
				decided := 0
				for seed := range uint64(sequences) {
					r := rand.New(rand.NewPCG(seed, 0xad417))
					s := randomStream(r, seed%4 == 3)
					s.cfg.NoExpiry = mode == "no-expiry"
					rename := map[string]string{}
					p := admitPair{allow: mustNew(t, k, s.cfg), admit: mustNew(t, k, s.cfg)}
					p.admitFn = admitOf(p.admit)
					for i, e := range s.events {
						name, ok := rename[e.client]
						if !ok {
							name = admitNames[r.IntN(len(admitNames))]
							rename[e.client] = name
						}
						if msg := p.step(e.op, e.at, name); msg != "" {
							t.Fatalf("seed %d, %+v, event %d %v (client %q): %s", seed, s.cfg, i, e, name, msg)
						}
						if e.op == opAllow {
							decided++
						}
					}
					for _, name := range admitNames {
						at := s.events[len(s.events)-1].at
						if msg := sameEvidence(p.admit.Peek(at, name), p.allow.Peek(at, name)); msg != "" {
							t.Fatalf("seed %d: at the end, Peek(%q): %s", seed, name, msg)
						}
					}
				}
				if decided < 50*sequences {
					t.Errorf("only %d requests decided", decided)
				}
			})
		}
	}
}

// step applies one event to both limiters and says how they differ.
func (p admitPair) step(op opKind, at Instant, client string) string {
	switch op {
	case opAllow:
		if got, want := p.admitFn(at, client), p.allow.Allow(at, client).Allowed; got != want {
			return fmt.Sprintf("Admit says %v, Allow %v", got, want)
		}
	case opPeek:
		if msg := sameEvidence(p.admit.Peek(at, client), p.allow.Peek(at, client)); msg != "" {
			return "Peek: " + msg
		}
	case opExpire:
		p.admit.Expire(at)
		p.allow.Expire(at)
	case opMemory:
		if got, want := p.admit.MemoryAt(at), p.allow.MemoryAt(at); got != want {
			return fmt.Sprintf("MemoryAt: %+v, want %+v", got, want)
		}
	}
	if got, want := p.admit.Memory(), p.allow.Memory(); got != want {
		return fmt.Sprintf("Memory: %+v, want %+v", got, want)
	}
	// What the figures above do not show: a log client whose timestamps are
	// all one instant keeps them in its record, not in a queue.
	if a, ok := p.admit.(*SlidingLog); ok {
		if got, want := a.queuesHeld(), p.allow.(*SlidingLog).queuesHeld(); got != want {
			return fmt.Sprintf("%d queues held, want %d", got, want)
		}
	}
	return ""
}

// queuesHeld is how many of the keyed log's queues belong to a client.
func (l *SlidingLog) queuesHeld() int { return len(l.queues) - len(l.freeQueues) }
