package redisstore_test

import (
	"fmt"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/internal/redisclustertest"
	"windowlab/internal/redistest"
)

// Decisions a second through Redis on loopback, pipelined and not, beside
// the in-process limiter it is checked against: a fixed window, 10,000
// clients, a request every millisecond; then on a Redis Cluster of three
// primaries. BenchmarkBeside runs redis-benchmark beside it; BENCHMARKS.md
// has the figures.
func BenchmarkDecide(b *testing.B) {
	clients := make([]string, 10_000)
	for i := range clients {
		clients[i] = fmt.Sprintf("client-%05d", i)
	}
	cfg := algo.Config{Limit: 100, Window: time.Minute}
	b.Run("in-process", func(b *testing.B) {
		l, _ := algo.New(algo.KindFixedWindow, cfg)
		for i := 0; b.Loop(); i++ {
			l.Allow(algo.Instant(i), clients[i%len(clients)])
		}
	})
	srv := redistest.Start(b)
	decide := func(b *testing.B, url string, pipelined bool) {
		s := openB(b, url, pipelined)
		local, _ := algo.New(algo.KindFixedWindow, cfg)
		l, err := s.Wrap(local)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; b.Loop(); i++ {
			l.Allow(algo.Instant(i), clients[i%len(clients)])
		}
		s.Flush()
		if err := s.Err(); err != nil {
			b.Fatal(err)
		}
	}
	for _, pipelined := range []bool{false, true} {
		b.Run(fmt.Sprintf("redis/pipelined=%v", pipelined), func(b *testing.B) { decide(b, srv.URL, pipelined) })
	}
	// The same on a Redis Cluster of three primaries (each with a replica):
	// a batch is split by node, one round trip a primary, in parallel.
	cluster := redisclustertest.Shared(b)
	for _, pipelined := range []bool{false, true} {
		b.Run(fmt.Sprintf("cluster/pipelined=%v", pipelined), func(b *testing.B) { decide(b, cluster.URL, pipelined) })
	}
}
