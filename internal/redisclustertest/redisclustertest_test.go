package redisclustertest_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redisclustertest"
)

func TestMain(m *testing.M) { redisclustertest.Main(m) }

// The cluster is three primaries and three replicas, every slot served,
// and a key written through one seed is read through another node.
func TestClusterStarts(t *testing.T) {
	c := redisclustertest.Shared(t)
	if len(c.Nodes) != 6 {
		t.Fatalf("%d nodes, want 6", len(c.Nodes))
	}
	if p := c.Primaries(); len(p) != 3 {
		t.Fatalf("%d primaries, want 3", len(p))
	}
	for _, n := range c.Nodes {
		if n.PID <= 0 || n.Addr == "" {
			t.Errorf("node %+v: no PID or address", n)
		}
	}
	ctx := context.Background()
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{c.Nodes[0].Addr}})
	defer cc.Close()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		if err := cc.Set(ctx, k, k, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var masters atomic.Int32 // ForEachMaster calls at once
	cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { masters.Add(1); return nil })
	if n := masters.Load(); n != 3 {
		t.Errorf("go-redis sees %d primaries", n)
	}
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		cc.Del(ctx, k)
	}
	if _, err := os.Stat(c.Nodes[0].Dir); err != nil {
		t.Error(err)
	}
}
