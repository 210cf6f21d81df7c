package redisstore_test

import (
	"fmt"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/redistest"
)

// A pipelined decision on Redis allocates a bounded handful of objects:
// its key, its script's arguments, go-redis's command and its answer; no
// timer or context a decision, no copy of its arguments. The run's
// decisions are checked equal to the in-process limiter's as they come
// back (Err stays nil).
func TestPipelinedDecisionAllocs(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL, true)
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 100, Window: time.Minute})
	l, err := s.Wrap(local)
	if err != nil {
		t.Fatal(err)
	}
	clients := make([]string, 1000)
	for i := range clients {
		clients[i] = fmt.Sprintf("client-%04d", i)
	}
	i := 0
	allocs := testing.AllocsPerRun(20_000, func() {
		l.Allow(algo.Instant(i), clients[i%len(clients)])
		i++
	})
	s.Flush()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%.1f allocations a pipelined decision", allocs)
	if allocs > 20 {
		t.Errorf("a pipelined decision allocates %.1f objects, want at most 20", allocs)
	}
}
