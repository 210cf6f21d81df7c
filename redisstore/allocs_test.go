package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
	if allocs > 14 { // 11 at 2026-12-03: 28 before the call was built whole
		t.Errorf("a pipelined decision allocates %.1f objects, want at most 14", allocs)
	}
}

// A window's end kills every client's key at once; the sweep removes
// them a thousand a command (sweep.lua): 2,500 clients' keys, more than
// two such commands, all gone at the next window's first request, its
// own key and index entry left, counted by KEYS and ZCARD.
func TestSweepRemovesAWindowsThousands(t *testing.T) {
	srv := redistest.Start(t)
	s := open(t, srv.URL, true)
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 5, Window: time.Minute})
	l, err := s.Wrap(local)
	if err != nil {
		t.Fatal(err)
	}
	const n = 2500
	for i := range n {
		l.Allow(algo.Instant(i), fmt.Sprintf("c%d", i))
	}
	// The next window's first request sweeps the first's 2,500 keys
	// before its own is written.
	l.Allow(algo.Instant(61_000), "late")
	s.Flush()
	opt, _ := redis.ParseURL(srv.URL)
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	count := func(pattern string) int {
		keys, err := c.Keys(ctx, pattern).Result()
		if err != nil {
			t.Fatal(err)
		}
		return len(keys)
	}
	if got := count(l.Namespace() + "f:*"); got != 1 {
		t.Fatalf("after the first window's end: %d keys, want only the next window's one", got)
	}
	if got, _ := c.ZCard(ctx, l.Namespace()+"expiry").Result(); got != 1 {
		t.Errorf("the expiry index holds %d entries, want 1", got)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
}
