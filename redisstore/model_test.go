package redisstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
	"windowlab/internal/redistest"
)

// usedMemory is INFO used_memory.
func usedMemory(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatal("no used_memory in INFO")
	return 0
}

// The model of Redis's memory (algo.RedisModel, what the view and
// `windowlab memory` print) is checked against a real redis-server: every
// limiter's worst case (each client at its limit) written by windowlab's
// own scripts, on a fresh server, measured as the growth of INFO
// used_memory (the expiry index, windowlab's bookkeeping, taken off by its
// own MEMORY USAGE). Within 10%, or the model must be fixed. MEMORY USAGE
// of the keys alone is logged beside it: it leaves out Redis's own
// tables (the keyspace's and the TTLs' entries), some 30 to 50 bytes a key.
func TestRedisModelMatchesARealRedis(t *testing.T) {
	cases := []struct {
		kind    algo.Kind
		limit   int64
		clients int64
	}{
		{algo.KindFixedWindow, 10, 20_000},
		{algo.KindSlidingCounter, 10, 10_000},
		{algo.KindTokenBucket, 10, 20_000},
		{algo.KindSlidingLog, 100, 500}, // a listpack of at most 128 members
		{algo.KindSlidingLog, 200, 250}, // a skiplist
		{algo.KindSegmentedWindow, 10, 10_000},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%v-%d", tc.kind, tc.limit), func(t *testing.T) {
			srv := redistest.Start(t)
			opt, _ := redis.ParseURL(srv.URL)
			c := redis.NewClient(opt)
			defer c.Close()
			cfg := algo.Config{Limit: tc.limit, Window: time.Hour, Segments: 6}
			local, err := algo.New(tc.kind, cfg)
			if err != nil {
				t.Fatal(err)
			}
			s := open(t, srv.URL, true)
			before := usedMemory(t, c)
			l, err := s.Wrap(local)
			if err != nil {
				t.Fatal(err)
			}
			at := algo.Clock(12, 0, 0, 0)
			windows := 1
			step := int64(time.Hour / time.Millisecond)
			if tc.kind == algo.KindSlidingCounter {
				windows = 2 // its worst case: both windows counted
			}
			if tc.kind == algo.KindSegmentedWindow {
				windows, step = 6, step/6 // its worst case: a count in each segment
			}
			n := tc.limit
			if tc.kind != algo.KindSlidingLog {
				n = 1 // one counter or bucket a window
			}
			for w := range windows {
				for i := range tc.clients {
					client := fmt.Sprintf("client-%05d", i) // the model's own measure used ids like these
					for range n {
						l.Allow(at+algo.Instant(int64(w)*step), client)
					}
				}
			}
			now := at + algo.Instant(int64(windows-1)*step)
			u, err := l.Usage(now)
			if err != nil {
				t.Fatal(err)
			}
			grown := usedMemory(t, c) - before - u.IndexBytes
			f, err := algo.WorstCase(tc.kind, cfg, tc.clients, len("client-00000"))
			if err != nil {
				t.Fatal(err)
			}
			model := f.RedisBytes.Int64()
			t.Logf("%d keys: used_memory grew %d B (%.1f a client), model %d B (%.1f); MEMORY USAGE of the keys %d B (%.1f)",
				u.Keys, grown, float64(grown)/float64(tc.clients), model, float64(model)/float64(tc.clients), u.Bytes, float64(u.Bytes)/float64(tc.clients))
			if d := float64(model-grown) / float64(grown); d > 0.10 || d < -0.10 {
				t.Errorf("the model is %+.0f%% off a real Redis (%d B modelled, %d B measured): fix algo.RedisModel", d*100, model, grown)
			}
		})
	}
}
