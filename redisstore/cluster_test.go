package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
	"windowlab/internal/long"
	"windowlab/internal/redisclustertest"
	"windowlab/internal/redistest"
	"windowlab/redisstore"
)

func TestMain(m *testing.M) { redisclustertest.Main(m) }

// clusterClient is a connection of the test's own to the cluster.
func clusterClient(t *testing.T, c *redisclustertest.Cluster) *redis.ClusterClient {
	t.Helper()
	var addrs []string
	for _, n := range c.Nodes {
		addrs = append(addrs, n.Addr)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { cc.Close() })
	return cc
}

// keysOn is how many keys matching pattern each primary holds, by address.
func keysOn(t *testing.T, c *redisclustertest.Cluster, pattern string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, n := range c.Primaries() {
		cl := redis.NewClient(&redis.Options{Addr: n.Addr})
		keys, err := cl.Keys(context.Background(), pattern).Result()
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[n.Addr] = len(keys)
	}
	return out
}

// Slot is Redis Cluster's own: CLUSTER KEYSLOT agrees on a thousand tags.
func TestSlotIsRedisClusters(t *testing.T) {
	cc := clusterClient(t, redisclustertest.Shared(t))
	for i := range 1000 {
		tag := fmt.Sprintf("%08x.%d", i*2654435761, i%13)
		want, err := cc.ClusterKeySlot(context.Background(), tag).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got := redisstore.Slot(tag); int64(got) != want {
			t.Fatalf("Slot(%q) = %d, CLUSTER KEYSLOT says %d", tag, got, want)
		}
	}
}

// One run's keys spread over all three primaries; every one of them is
// under a tag whose slot its primary serves (else the script would have
// been refused), Keys and KeysByNode count them as the nodes do, and
// Close leaves nothing on any node.
func TestKeysSpreadOverEveryPrimary(t *testing.T) {
	c := redisclustertest.Shared(t)
	for _, pipelined := range []bool{false, true} {
		s := open(t, c.URL, pipelined)
		if !s.Cluster() {
			t.Fatal("a redis-cluster:// store is not a cluster")
		}
		for _, k := range algo.All {
			local, _ := algo.New(k, algo.Config{Limit: 3, Window: time.Minute})
			l, err := s.Wrap(local)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				l.Allow(algo.Clock(12, 0, 0, i), fmt.Sprintf("client-%d", i%20))
			}
		}
		s.Flush()
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		on := keysOn(t, c, s.Pattern())
		var total int
		for addr, n := range on {
			if n == 0 {
				t.Errorf("pipelined %v: no key of the run on primary %s: %v", pipelined, addr, on)
			}
			total += n
		}
		run, _, err := s.Keys()
		if err != nil || run != int64(total) {
			t.Errorf("Keys says %d (%v); the primaries hold %d", run, err, total)
		}
		byNode, err := s.KeysByNode()
		if err != nil || len(byNode) != 3 {
			t.Fatalf("KeysByNode: %v, %v", byNode, err)
		}
		for _, nk := range byNode {
			if int(nk.Keys) != on[nk.Addr] {
				t.Errorf("KeysByNode says %s holds %d; it holds %d", nk.Addr, nk.Keys, on[nk.Addr])
			}
		}
		node, slot := s.Shard("client-3")
		if _, ok := on[node]; !ok || slot < 0 || slot >= 16384 {
			t.Errorf("Shard(client-3) = %s, %d: not a primary", node, slot)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for addr, n := range keysOn(t, c, "windowlab:*") {
			if n != 0 {
				t.Errorf("pipelined %v: %d keys left on %s after Close", pipelined, n, addr)
			}
		}
	}
}

// Usage sums MEMORY USAGE over the keys of every shard: the same keys
// and bytes a run on one Redis measures (every node runs one version).
func TestUsageOnAClusterIsOneRedis(t *testing.T) {
	c := redisclustertest.Shared(t)
	srv := redistest.Start(t)
	usage := func(url string) []redisstore.Usage {
		s := open(t, url, true)
		var out []redisstore.Usage
		for _, k := range algo.All {
			local, _ := algo.New(k, algo.Config{Limit: 5, Window: 10 * time.Second})
			l, err := s.Wrap(local)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 300 {
				l.Allow(algo.Clock(12, 0, 0, i*97), fmt.Sprintf("c%d", i%31))
			}
			u, err := l.Usage(algo.Clock(12, 0, 25, 0))
			if err != nil {
				t.Fatal(err)
			}
			u.IndexBytes = 0 // one index a tag on a cluster, one a lane on one Redis
			out = append(out, u)
		}
		return out
	}
	one, cluster := usage(srv.URL), usage(c.URL)
	for i := range one {
		if one[i].Keys != cluster[i].Keys || one[i].Keys == 0 {
			t.Errorf("%v: %d keys on one Redis, %d on the cluster", algo.All[i], one[i].Keys, cluster[i].Keys)
		}
	}
}

// A script flushed from a primary (a node restarted, a replica promoted
// that never had it) is loaded again and the decision goes on: NOSCRIPT
// is not an error of the run.
func TestScriptsReloadAfterNOSCRIPT(t *testing.T) {
	c := redisclustertest.Shared(t)
	cc := clusterClient(t, c)
	for _, pipelined := range []bool{false, true} {
		s := open(t, c.URL, pipelined)
		local, _ := algo.New(algo.KindSlidingLog, algo.Config{Limit: 2, Window: time.Second})
		want, _ := algo.New(algo.KindSlidingLog, algo.Config{Limit: 2, Window: time.Second})
		l, err := s.Wrap(local)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 60 {
			if i == 30 {
				s.Flush()
				if err := cc.ForEachShard(context.Background(), func(ctx context.Context, n *redis.Client) error {
					return n.ScriptFlush(ctx).Err()
				}); err != nil {
					t.Fatal(err)
				}
			}
			at, who := algo.Clock(12, 0, 0, i*100), fmt.Sprintf("c%d", i%7)
			if got, w := l.Allow(at, who), want.Allow(at, who); got != w {
				t.Fatalf("request %d: %+v, want %+v", i, got, w)
			}
		}
		s.Flush()
		if err := s.Err(); err != nil {
			t.Fatalf("pipelined %v: after SCRIPT FLUSH: %v", pipelined, err)
		}
		s.Close()
	}
}

// What cannot be used as a cluster is one line saying what to change.
func TestUnusableClusters(t *testing.T) {
	c := redisclustertest.Shared(t)
	single := redistest.Start(t)
	lone, err := redisclustertest.StartNode(t.TempDir()) // a cluster node with no slots
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lone.Kill)
	seed := c.Nodes[0].Addr
	cases := []struct{ url, want string }{
		{"redis-cluster://", "no HOST:PORT; use redis-cluster://"},
		{"redis-cluster://127.0.0.1", `"127.0.0.1" is not HOST:PORT`},
		{"redis-cluster://127.0.0.1:0", "the port is a number from 1 to 65535"},
		{"redis-cluster://" + seed + "/3", "a cluster has one database, 0: drop /3"},
		{"redis-cluster://" + seed + "?timeout=1", "takes no options"},
		{"redis-cluster://:se/cret@" + seed, "the user name or password holds a '/'"},
		{"rediss-cluster://" + seed, "TLS to a cluster is not supported yet"},
		{"redis-cluster://" + single.Addr, single.Addr + " is not a cluster node (cluster support is disabled there); for a single Redis use redis://" + single.Addr + "/0"},
		{"redis-cluster://" + lone.Addr, "the cluster is not serving every slot (" + lone.Addr + " says cluster_state:fail, 0 of 16384 slots assigned"},
		{"redis://" + seed + "/0", "it is a node of a Redis Cluster; use redis-cluster://" + seed},
		{"redis-cluster://127.0.0.1:1", "cannot connect"},
	}
	for _, tc := range cases {
		start := time.Now()
		s, err := redisstore.Open(context.Background(), tc.url, redisstore.Options{})
		if err == nil {
			s.Close()
			t.Errorf("%s: opened", tc.url)
			continue
		}
		var re *redisstore.Error
		msg := err.Error()
		if !errors.As(err, &re) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "cret") {
			t.Errorf("%s:\n got %s\nwant one line with %q, no password", tc.url, msg, tc.want)
		}
		if time.Since(start) > 4*redisstore.Timeout {
			t.Errorf("%s: took %v", tc.url, time.Since(start))
		}
	}
}

// The command a run that could not remove its keys prints removes them
// from every primary.
func TestClusterRemoveCommand(t *testing.T) {
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("no redis-cli")
	}
	c := redisclustertest.Shared(t)
	s := open(t, c.URL, true)
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 3, Window: time.Minute, NoExpiry: true})
	l, _ := s.Wrap(local)
	for i := range 100 {
		l.Allow(algo.Clock(12, 0, 0, 0), fmt.Sprintf("client %d's", i)) // a space and a quote in the key
	}
	s.Flush()
	if n, _, _ := s.Keys(); n != 100 {
		t.Fatalf("%d keys, want 100", n)
	}
	cmd := s.RemoveCommand()
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	for addr, n := range keysOn(t, c, s.Pattern()) {
		if n != 0 {
			t.Errorf("%s left %d keys on %s", cmd, n, addr)
		}
	}
}

// A primary killed (by its PID) before the run's keys are removed: Close
// says it could not remove them, and the command it prints removes them
// all once the replica is promoted, from the node that now holds them.
func TestRemoveCommandAfterAFailover(t *testing.T) {
	if !long.Enabled() {
		t.Skip("a cluster of its own and a failover (about 5 s): the thorough run (" + long.Env + "=1, as .ci/run does) runs it")
	}
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("no redis-cli")
	}
	c := redisclustertest.Start(t) // its own: a node of it is killed
	s, err := redisstore.Open(context.Background(), c.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 3, Window: time.Minute})
	l, _ := s.Wrap(local)
	for i := range 300 {
		l.Allow(algo.Clock(12, 0, 0, 0), fmt.Sprintf("client-%d", i))
	}
	s.Flush()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	var victim *redisclustertest.Node
	for _, n := range c.Primaries() {
		if keysOn(t, c, s.Pattern())[n.Addr] > 0 {
			victim = n
			break
		}
	}
	if victim == nil {
		t.Fatal("no primary holds a key of the run")
	}
	victim.Kill()
	err = s.Close()
	var left *redisstore.LeftError
	if !errors.As(err, &left) {
		t.Fatalf("Close with a primary down: %v; want what is left and how to remove it", err)
	}
	if err := c.WaitOK(redisclustertest.Wait); err != nil {
		t.Fatalf("no failover: %v", err)
	}
	cmd := s.RemoveCommand()
	if out, err := exec.Command("sh", "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	for addr, n := range keysOn(t, c, "windowlab:*") {
		if n != 0 {
			t.Errorf("%d keys left on %s after the printed command", n, addr)
		}
	}
}
