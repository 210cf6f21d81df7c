package redisstore_test

import (
	"context"
	"crypto/sha1"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
	"windowlab/internal/redisclustertest"
	"windowlab/internal/redistest"
	"windowlab/redisstore"
)

// besideCalls is how many decisions (and redis-benchmark's calls) a round
// makes.
const besideCalls = 300_000

// besidePeers are the redis-benchmark runs each round measures windowlab
// against: how many connections a primary (at least one each with
// --cluster) and how deep each pipelines. "c1P1024" is windowlab's own
// shape (one connection a primary, batches of redisstore.Batch);
// "c50P256" is 50 connections in all, the most Redis gives this script.
var besidePeers = []struct {
	name              string
	perPrimary, conns int
	deep              int
}{{"c1P1024", 1, 0, redisstore.Batch}, {"c50P256", 0, 50, 256}}

// BenchmarkBeside is windowlab's pipelined decisions a second beside
// redis-benchmark running the same script (the fixed window's, EVALSHA
// with the same keys and arguments) on the same server, in the same run:
// each b.N is a round of both, their order alternating (run it with
// -benchtime 5x), and the medians over the rounds are reported, the
// ratios as windowlab's decisions a second ÷ redis-benchmark's calls.
// On one Redis, then on a Redis Cluster of three primaries, where
// redis-benchmark runs with --cluster and its own {tag}.
func BenchmarkBeside(b *testing.B) {
	bin, err := exec.LookPath("redis-benchmark")
	if err != nil {
		if os.Getenv(redistest.Env) == "required" {
			b.Fatalf("no redis-benchmark, and %s=required", redistest.Env)
		}
		b.Skip("no redis-benchmark here (Debian: apt-get install redis-tools)")
	}
	b.Run("redis", func(b *testing.B) {
		srv := redistest.Start(b)
		port := srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:]
		each := func(ctx context.Context, f func(context.Context, *redis.Client) error) error {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr})
			defer c.Close()
			return f(ctx, c)
		}
		beside(b, srv.URL, bin, []string{"-p", port}, "{bench}", 1, each)
	})
	b.Run("cluster", func(b *testing.B) {
		cl := redisclustertest.Shared(b)
		p := cl.Primaries()
		if len(p) == 0 {
			b.Fatal("the cluster has no primary")
		}
		each := func(ctx context.Context, f func(context.Context, *redis.Client) error) error {
			c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{p[0].Addr}})
			defer c.Close()
			return c.ForEachMaster(ctx, f)
		}
		beside(b, cl.URL, bin, []string{"--cluster", "-p", strconv.Itoa(p[0].Port)}, "{tag}", len(p), each)
	})
}

// servers calls f with each server (each primary of a cluster).
type servers func(ctx context.Context, f func(context.Context, *redis.Client) error) error

func beside(b *testing.B, url, bin string, where []string, tag string, primaries int, each servers) {
	src, err := redisstore.Source("fixed")
	if err != nil {
		b.Fatal(err)
	}
	sum := sha1.Sum([]byte(src))
	sha := hex.EncodeToString(sum[:])
	clients := make([]string, 10_000)
	for i := range clients {
		clients[i] = fmt.Sprintf("client-%05d", i)
	}
	var ours []float64
	theirs := make([][]float64, len(besidePeers))
	ratios := make([][]float64, len(besidePeers))
	var log []string // every round's figures, logged at the end in one piece
	for round := 0; b.Loop(); round++ {
		var wl float64
		peers := make([]float64, len(besidePeers))
		steps := []func(){func() {
			resetStats(b, each)
			wl = windowlabRate(b, url, clients)
			log = append(log, "windowlab: "+serverStats(b, each))
		}}
		for i, p := range besidePeers {
			steps = append(steps, func() {
				resetStats(b, each)
				peers[i] = benchmarkRate(b, bin, where, sha, tag, max(p.conns, p.perPrimary*primaries), p.deep)
				log = append(log, "redis-benchmark "+p.name+": "+serverStats(b, each))
				if err := each(context.Background(), func(ctx context.Context, c *redis.Client) error { return c.FlushAll(ctx).Err() }); err != nil {
					b.Fatal(err)
				}
			})
		}
		if round%2 == 1 {
			slices.Reverse(steps)
		}
		for _, f := range steps {
			f()
		}
		ours = append(ours, wl)
		for i := range besidePeers {
			theirs[i] = append(theirs[i], peers[i])
			ratios[i] = append(ratios[i], wl/peers[i])
		}
		log = append(log, fmt.Sprintf("round %d: windowlab %.0f decisions/s; redis-benchmark %.0f; ratios %v", round, wl, peers, ratiosOf(wl, peers)))
	}
	b.Logf("%d rounds:\n%s", len(ours), strings.Join(log, "\n"))
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(median(ours), "decisions/s")
	for i, p := range besidePeers {
		b.ReportMetric(median(theirs[i]), "rb-"+p.name+"/s")
		b.ReportMetric(median(ratios[i]), "ratio-"+p.name)
	}
}

func ratiosOf(wl float64, peers []float64) []string {
	var out []string
	for _, p := range peers {
		out = append(out, strconv.FormatFloat(wl/p, 'f', 2, 64))
	}
	return out
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// windowlabRate is a pipelined store's decisions a second: besideCalls
// of a fixed window of 100 a minute, 10,000 clients, a request a
// millisecond (BenchmarkDecide's), from the first to the last answer
// checked. Opening and closing the store are not timed.
func windowlabRate(b *testing.B, url string, clients []string) float64 {
	s, err := redisstore.Open(context.Background(), url, redisstore.Options{Pipelined: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 100, Window: time.Minute})
	l, err := s.Wrap(local)
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := range besideCalls {
		l.Allow(algo.Instant(i), clients[i%len(clients)])
	}
	s.Flush()
	took := time.Since(start)
	if err := s.Err(); err != nil {
		b.Fatal(err)
	}
	return besideCalls / took.Seconds()
}

// benchmarkRate is redis-benchmark's calls a second of the fixed window's
// script, with the keys and arguments a store sends for a request at 1 s
// in an aligned window (every call allowed: 30 a key, the limit 100).
func benchmarkRate(b *testing.B, bin string, where []string, sha, tag string, conns, deep int) float64 {
	key := "windowlab:" + tag + ":0.0:"
	args := append(slices.Clone(where), "-n", strconv.Itoa(besideCalls), "-r", "10000",
		"-c", strconv.Itoa(conns), "-P", strconv.Itoa(deep), "--csv",
		"EVALSHA", sha, "2", key+"f:client-__rand_int__:0", key+"expiry",
		"1000", "60000", "100", "0", "0", "1", "86400000", "0", "f:client-__rand_int__:0")
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		b.Fatalf("redis-benchmark: %v: %s", err, out)
	}
	table := string(out) // with --cluster, after the primaries it found
	if i := strings.Index(table, "\"test\","); i >= 0 {
		table = table[i:]
	}
	rows, err := csv.NewReader(strings.NewReader(table)).ReadAll()
	if err != nil || len(rows) < 2 || len(rows[1]) < 2 {
		b.Fatalf("redis-benchmark answered %q", out)
	}
	rps, err := strconv.ParseFloat(rows[1][1], 64)
	if err != nil {
		b.Fatalf("redis-benchmark answered %q", out)
	}
	return rps
}

// resetStats zeroes every server's INFO commandstats.
func resetStats(b *testing.B, each servers) {
	if err := each(context.Background(), func(ctx context.Context, c *redis.Client) error { return c.ConfigResetStat(ctx).Err() }); err != nil {
		b.Fatal(err)
	}
}

// serverStats is what the servers spent since resetStats, summed: the
// scripts' calls and their µs a call (INFO commandstats), and the
// servers' own CPU (INFO cpu, since they started).
func serverStats(b *testing.B, each servers) string {
	var calls, usec, cpu float64
	err := each(context.Background(), func(ctx context.Context, c *redis.Client) error {
		info, err := c.Info(ctx, "commandstats", "cpu").Result()
		if err != nil {
			return err
		}
		for line := range strings.Lines(info) {
			line = strings.TrimSpace(line)
			if v, ok := strings.CutPrefix(line, "cmdstat_evalsha:"); ok {
				for f := range strings.SplitSeq(v, ",") {
					k, x, _ := strings.Cut(f, "=")
					n, _ := strconv.ParseFloat(x, 64)
					switch k {
					case "calls":
						calls += n
					case "usec":
						usec += n
					}
				}
			}
			for _, k := range []string{"used_cpu_user:", "used_cpu_sys:"} {
				if v, ok := strings.CutPrefix(line, k); ok {
					n, _ := strconv.ParseFloat(v, 64)
					cpu += n
				}
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("%.0f EVALSHA, %.2f µs a call in Lua; servers' CPU %.1f s since they started", calls, usec/max(calls, 1), cpu)
}
