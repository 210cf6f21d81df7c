package redisstore_test

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
	"windowlab/internal/long"
	"windowlab/internal/redisclustertest"
	"windowlab/redisstore"
)

func TestParsePolicy(t *testing.T) {
	for i, name := range redisstore.Policies {
		if p, err := redisstore.ParsePolicy(name); err != nil || int(p) != i || p.String() != name {
			t.Errorf("ParsePolicy(%q) = %v, %v", name, p, err)
		}
	}
	if _, err := redisstore.ParsePolicy("ignore"); err == nil || !strings.Contains(err.Error(), "stop") {
		t.Errorf("ParsePolicy(ignore): %v; want what is valid", err)
	}
}

// A primary killed by its PID in the middle of a burst, its replica
// promoted: with PolicyAllow the run goes on, the requests for its slots
// while it is down are admitted without the store, and after the
// promotion the store's decisions are its own. The outage's figures are
// held to the test's own arithmetic: the twin's count (every request
// before), the count the promoted primary holds (read by GET), and a
// plain loop over what a fixed window then admits.
func TestAPrimaryFailsOverMidBurst(t *testing.T) {
	if !long.Enabled() {
		t.Skip("a cluster of its own and a failover (about 10 s): the thorough run (" + long.Env + "=1, as .ci/run does) runs it")
	}
	c := redisclustertest.StartWith(t, "--cluster-node-timeout", "1000") // its own: a node of it is killed
	s, err := redisstore.Open(context.Background(), c.URL, redisstore.Options{Pipelined: true, OnError: redisstore.PolicyAllow})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const limit, before, during, after = 5, 3, 2, 6
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: limit, Window: time.Hour})
	l, _ := s.Wrap(local)
	t0 := algo.Clock(12, 0, 0, 0)
	var clients []string
	for i := range 60 {
		clients = append(clients, fmt.Sprintf("client-%d", i))
	}
	for _, cl := range clients {
		for range before {
			if d := l.Allow(t0, cl); !d.Allowed {
				t.Fatalf("%s refused before the kill: %s", cl, d.Explain())
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	victim, _ := s.Shard(clients[0])
	var on []string // clients whose keys the victim holds: five of them
	for _, cl := range clients {
		if n, _ := s.Shard(cl); n == victim && len(on) < 5 {
			on = append(on, cl)
		}
	}
	var node *redisclustertest.Node
	for _, n := range c.Nodes {
		if n.Addr == victim {
			node = n
		}
	}
	if err := c.WaitSynced(redisclustertest.Wait); err != nil {
		t.Fatal(err)
	}
	node.Kill() // by its PID, as a crash
	for _, cl := range on {
		for range during {
			if d := l.Allow(t0.Add(time.Millisecond), cl); !d.Allowed {
				t.Fatalf("%s refused while its primary is down, under allow", cl)
			}
		}
	}
	if n, ok := l.DecidedWithoutStore(); !ok || n != int64(during*len(on)) {
		t.Fatalf("decided without the store: %d, %t; want %d", n, ok, during*len(on))
	}
	if err := c.WaitFailover(node, redisclustertest.Wait); err != nil {
		out, _ := exec.Command("redis-cli", "-p", strconv.Itoa(c.Nodes[5].Port), "cluster", "nodes").CombinedOutput()
		t.Fatalf("no failover: %v\n%s", err, out)
	}
	// The store learns the new primaries (every node's view converges by
	// gossip: a node that still names the old one is asked again).
	for deadline := time.Now().Add(redisclustertest.Wait); ; time.Sleep(100 * time.Millisecond) {
		_, err := s.KeysByNode()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster's primaries after the failover: %v", err)
		}
	}
	// What the promoted primary holds of each client's window, read by GET.
	cc := clusterClient(t, c)
	held := map[string]int64{}
	start := strconv.FormatInt(int64(algo.Config{Limit: limit, Window: time.Hour}.WindowStart(t0)), 10)
	err = cc.ForEachMaster(context.Background(), func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, "windowlab:*").Result()
		for _, k := range keys {
			for _, cl := range on {
				if strings.HasSuffix(k, ":f:"+cl+":"+start) {
					v, _ := m.Get(ctx, k).Int64()
					held[cl] = v
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var want redisstore.Outage
	want.Node, want.Without = victim, int64(during*len(on))
	for _, cl := range on {
		h := held[cl]
		if h < 0 || h > before {
			t.Fatalf("%s: the promoted primary holds %d; at most %d were sent", cl, h, before)
		}
		twin := int64(before + during) // the twin admitted every one so far
		want.Missing += twin - h
		want.Unsent += min(twin-h, during)
		count := h // the store's count from here: a plain loop of a fixed window
		for range after {
			storeAdmits := count < limit
			if storeAdmits {
				count++
			}
			twinAdmits := twin < limit
			if twinAdmits {
				twin++
			}
			if storeAdmits && !twinAdmits {
				want.Over++
			}
			if !storeAdmits && twinAdmits {
				want.Under++
			}
			if d := l.Allow(t0.Add(2*time.Millisecond), cl); d.Allowed != storeAdmits {
				t.Fatalf("%s after the promotion: allowed %t; the store holding %d admits: %t", cl, d.Allowed, count, storeAdmits)
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	outs := s.Outages()
	if len(outs) != 1 {
		t.Fatalf("outages: %+v; want one", outs)
	}
	got := outs[0]
	if got.Node != want.Node || !got.Answered || got.FailedOver == "" || got.FailedOver == victim ||
		got.Without != want.Without || got.Missing != want.Missing || got.Unsent != want.Unsent ||
		got.Over != want.Over || got.Under != want.Under || got.Lost() != want.Missing-want.Unsent {
		t.Errorf("outage %+v\nwant node %s failed over, without %d, missing %d (unsent %d), over %d, under %d",
			got, want.Node, want.Without, want.Missing, want.Unsent, want.Over, want.Under)
	}
	if want.Over == 0 {
		t.Errorf("the test admits nothing beyond the limit: it cannot fail")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for addr, n := range keysOn(t, c, "windowlab:*") {
		if n != 0 {
			t.Errorf("%d keys left on %s (the promoted replica among them)", n, addr)
		}
	}
}
