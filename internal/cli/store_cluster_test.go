package cli

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/redis/go-redis/v9"

	"windowlab/human"
	"windowlab/internal/redisclustertest"
	"windowlab/redisstore"
	"windowlab/scenarios"
	"windowlab/ui"
)

// clusterKeys is how many keys under windowlab:* every node of c holds,
// and their DBSIZEs summed (replicas too: nothing may linger anywhere).
// The primaries are counted as they stand: the run said it had removed
// its keys. A replica applies its primary's deletes a moment later (a
// full suite on a loaded machine once found 676 keys left, never seen
// alone: most likely a replica behind), so the replicas are counted once
// they hold no key, or at the end of patience, whichever comes first.
func clusterKeys(t *testing.T, c *redisclustertest.Cluster) (run, db int64) {
	t.Helper()
	primary := map[*redisclustertest.Node]bool{}
	for _, n := range c.Primaries() {
		primary[n] = true
		r, d := keysOf(t, c.NodeURL(n), "windowlab:*")
		run, db = run+r, db+d
	}
	if run != 0 || db != 0 {
		return run, db
	}
	deadline := time.Now().Add(patience)
	for {
		run, db = 0, 0
		for _, n := range c.Nodes {
			if !primary[n] {
				r, d := keysOf(t, c.NodeURL(n), "windowlab:*")
				run, db = run+r, db+d
			}
		}
		if run == 0 && db == 0 || time.Now().After(deadline) {
			return run, db
		}
		time.Sleep(50 * time.Millisecond)
	}
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

// The view on a cluster says, in each lane, on which primary and slot
// the focused client's keys are, as the cluster itself says (CLUSTER
// KEYSLOT of the keys' tag, the primary serving it), and stepping back
// (a checkpoint's copies, each in its tag's slot) decides the same.
func TestViewOnAClusterShowsTheShard(t *testing.T) {
	c := redisclustertest.Shared(t)
	st, err := redisstore.Open(context.Background(), c.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := scenarios.Builtin("boundary-burst")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ui.New(ui.Options{Scenario: sc, Store: viewStore{st}})
	if err != nil {
		t.Fatal(err)
	}
	tab := tea.KeyPressMsg{Code: tea.KeyTab}
	m, text := viewText(t, m, tea.WindowSizeMsg{Width: 160, Height: 45}, tab, tab)
	focused := regexp.MustCompile(`client (\S+)`).FindStringSubmatch(text)
	if focused == nil {
		t.Fatalf("no focused client in the view:\n%s", text)
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{c.Nodes[0].Addr}})
	defer cc.Close()
	ctx := context.Background()
	keys, err := scanCluster(ctx, cc, st.Pattern())
	if err != nil || len(keys) == 0 {
		t.Fatalf("no key of the run on the cluster: %v", err)
	}
	key := keys[0] // boundary-burst has one client: every key is its
	slot, err := cc.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	owner, err := cc.MasterForKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	want := "shard " + owner.Options().Addr + ", slot " + human.Int(slot)
	if strings.Count(text, want) != 3 {
		t.Errorf("every lane should say %q:\n%s", want, text)
	}
	left, right := tea.KeyPressMsg{Code: tea.KeyLeft}, tea.KeyPressMsg{Code: tea.KeyRight}
	viewText(t, m, left, left, left, right, right, right)
	if err := st.Err(); err != nil {
		t.Fatalf("stepping back and forth on a cluster: %v", err)
	}
}

// scanCluster is every key matching pattern on every primary.
func scanCluster(ctx context.Context, cc *redis.ClusterClient, pattern string) ([]string, error) {
	var mu sync.Mutex
	var out []string
	err := cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		keys, err := m.Keys(ctx, pattern).Result()
		mu.Lock()
		out = append(out, keys...)
		mu.Unlock()
		return err
	})
	return out, err
}

// A cluster whose nodes require a password (requirepass, masterauth) is
// named with it in the URL, escaped as in any URL: the run prints the
// same report and leaves nothing. A wrong password, or none, is one line
// that says so, exit 2, and never prints the password.
func TestClusterWithAPassword(t *testing.T) {
	const password = "p@ss w0rd:1/x"
	c := redisclustertest.StartWithPassword(t, password)
	if !strings.Contains(c.URL, "%40") {
		t.Fatalf("the URL should escape the password's @: %s", c.URL)
	}
	want, _, _ := windowlab(t, "run", "boundary-burst")
	got, errOut, code := windowlab(t, "run", "boundary-burst", "--store", c.URL)
	if code != 0 || got != want || !strings.Contains(errOut, "every decision the same as in process") {
		t.Fatalf("exit %d; the report on the cluster with a password:\n%s\nwithout --store:\n%s\nstderr: %s", code, got, want, errOut)
	}
	if strings.Contains(errOut, "w0rd") {
		t.Errorf("the password is printed: %s", errOut)
	}
	if run, db := clusterKeys(t, c); run != 0 || db != 0 {
		t.Errorf("%d keys of the run left on the cluster (DBSIZE summed %d)", run, db)
	}
	seeds := c.URL[strings.LastIndex(c.URL, "@")+1:]
	for _, tc := range []struct{ url, says string }{
		{"redis-cluster://:wrong-secret@" + seeds, "refused the user name and password"},
		{"redis-cluster://" + seeds, "needs a password"},
	} {
		_, errOut, code := windowlab(t, "run", "boundary-burst", "--store", tc.url)
		var said []string // the message's lines, without fang's ERROR heading
		for _, l := range strings.Split(errOut, "\n") {
			if l = strings.TrimSpace(l); l != "" && l != "ERROR" {
				said = append(said, l)
			}
		}
		if code != exitInvalid || len(said) != 1 || !strings.Contains(said[0], tc.says) {
			t.Errorf("%s: exit %d, want 2 and one line saying %q: %q", redisstore.Redact(tc.url), code, tc.says, errOut)
		}
		if strings.Contains(errOut, "wrong-secret") {
			t.Errorf("the wrong password is printed: %s", errOut)
		}
	}
}
