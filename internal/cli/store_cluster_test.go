package cli

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redisclustertest"
)

// clusterKeys is how many keys under windowlab:* every node of c holds,
// and their DBSIZEs summed (replicas too: nothing may linger anywhere).
func clusterKeys(t *testing.T, c *redisclustertest.Cluster) (run, db int64) {
	t.Helper()
	for _, n := range c.Nodes {
		r, d := keysOf(t, "redis://"+n.Addr+"/0", "windowlab:*")
		run, db = run+r, db+d
	}
	return run, db
}

// The issue's done-means on a cluster: `windowlab run boundary-burst
// --store redis-cluster://…` prints the same report as without --store,
// byte for byte, says on which primaries the keys lived, and leaves
// nothing on any node.
func TestRunOnAClusterPrintsTheSameReport(t *testing.T) {
	c := redisclustertest.Shared(t)
	for _, args := range [][]string{{"run", "boundary-burst"}, {"run", "worked-example", "--json"}, {"run", "random-traffic"}, {"run", "token-bucket", "--trace"}} {
		want, _, code := windowlab(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		got, errOut, code := windowlab(t, append(args, "--store", c.URL)...)
		if code != 0 {
			t.Fatalf("%v --store: exit %d: %s", args, code, errOut)
		}
		if got != want {
			t.Errorf("%v: the report on the cluster differs:\n%s\nwithout --store:\n%s", args, got, want)
		}
		if !strings.Contains(errOut, "every decision the same as in process") || !strings.Contains(errOut, "On the cluster its keys lived on") {
			t.Errorf("%v: stderr says nothing of the cluster: %q", args, errOut)
		}
		if args[1] == "random-traffic" && !strings.Contains(errOut, "lived on 3 of 3 primaries") {
			t.Errorf("random traffic's clients should spread over all three primaries: %q", errOut)
		}
		if run, db := clusterKeys(t, c); run != 0 || db != 0 {
			t.Errorf("%v: %d keys of the run left on the cluster (DBSIZE summed %d)", args, run, db)
		}
	}
}

// SIGINT mid-run (once: the run stops and cleans up; twice: the bounded
// last cleanup) leaves nothing on any node of the cluster.
func TestSignalMidRunOnAClusterLeavesNoKeys(t *testing.T) {
	c := redisclustertest.Shared(t)
	scenario := writeFile(t, "long.yaml", []byte(longOnRedis))
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{c.Nodes[0].Addr}})
	defer cc.Close()
	for _, twice := range []bool{false, true} {
		p := start(t, "run", scenario, "--store", c.URL)
		deadline := time.Now().Add(patience)
		for {
			n, err := cc.DBSize(context.Background()).Result() // summed over the primaries
			if err != nil {
				t.Fatal(err)
			}
			if n >= 5000 {
				break
			}
			if p.cmd.ProcessState != nil || time.Now().After(deadline) {
				t.Fatalf("the run wrote fewer than 5,000 keys before it ended: %s", p.stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		if twice {
			time.Sleep(50 * time.Millisecond)
			_ = p.cmd.Process.Signal(syscall.SIGINT)
		}
		if code := p.wait(t); code != 130 {
			t.Errorf("twice %v: exit %d, want 130: %s", twice, code, p.stderr.String())
		}
		if run, db := clusterKeys(t, c); run != 0 || db != 0 {
			t.Errorf("twice %v: %d keys of the run left on the cluster (DBSIZE summed %d): %s", twice, run, db, p.stderr.String())
		}
	}
}

// A cluster URL that cannot be used is one line and exit 2.
func TestUnusableClusterExits2(t *testing.T) {
	c := redisclustertest.Shared(t)
	for _, url := range []string{"redis-cluster://127.0.0.1", "redis://" + c.Nodes[0].Addr} {
		_, errOut, code := windowlab(t, "run", "boundary-burst", "--store", url)
		if code != exitInvalid || !strings.Contains(errOut, "redis-cluster://") {
			t.Errorf("%s: exit %d, want 2 and how to write a cluster URL: %s", url, code, errOut)
		}
	}
}
