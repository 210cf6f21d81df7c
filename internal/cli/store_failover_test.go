package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
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

// failoverLog is a CSV log of n requests, 3 ms apart, from 40 clients in
// turn: each asks 500 times a minute.
func failoverLog(t *testing.T, n int) string {
	var b strings.Builder
	b.WriteString("time,client\n")
	t0 := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, "%s,client-%d\n", t0.Add(time.Duration(i)*3*time.Millisecond).Format("2006-01-02T15:04:05.000Z"), i%40)
	}
	return writeFile(t, "failover.csv", []byte(b.String()))
}

// runKeysOn is how many keys under windowlab:* the node at addr holds
// (-1: it does not answer).
func runKeysOn(addr string) int {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	keys, err := c.Keys(ctx, "windowlab:*").Result()
	if err != nil {
		return -1
	}
	return len(keys)
}

// The failover, through the command line: a replay decides on a
// cluster of its own under --on-store-error allow; in the middle of it a
// primary holding its keys is killed by its PID, and its replica takes
// over (cluster-node-timeout 1000 ms). The run finishes, and the figures
// it reports are held to the test's own count over the JSON's decisions:
// the requests admitted beyond the limit, window by window, are the
// outages' sum, and decided_without_store is theirs. Nothing is left on
// any node, the promoted replica among them.
func TestReplayGoesOnThroughAFailover(t *testing.T) {
	if !long.Enabled() {
		t.Skip("a cluster of its own and a failover (about 30 s): the thorough run (" + long.Env + "=1, as .ci/run does) runs it")
	}
	c := redisclustertest.StartWith(t, "--cluster-node-timeout", "1000")
	if err := c.WaitSynced(redisclustertest.Wait); err != nil {
		t.Fatal(err)
	}
	const limit = 100
	log := failoverLog(t, 100_000)
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := windowlab(t, "replay", log, "--time-column", "time", "--client-column", "client",
			"--limit", strconv.Itoa(limit), "--window", "1m", "--algorithms", "fixed-window", "--json",
			"--store", c.URL, "--on-store-error", "allow")
		done <- result{out, errOut, code}
	}()
	var victim *redisclustertest.Node
	for deadline := time.Now().Add(redisclustertest.Wait); victim == nil; time.Sleep(20 * time.Millisecond) {
		for _, n := range c.Primaries() {
			if runKeysOn(n.Addr) > 0 {
				victim = n
				break
			}
		}
		if victim == nil && time.Now().After(deadline) {
			t.Fatalf("no key of the run on any primary within %s", redisclustertest.Wait)
		}
	}
	victim.Kill() // by its PID, mid-replay
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the replay did not finish within 5 minutes")
	}
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.errOut)
	}
	failed := regexp.MustCompile(`\(` + regexp.QuoteMeta(victim.Addr) + `\) did not answer \(.*?\), then failed over to 127\.0\.0\.1:\d+;`)
	if !failed.MatchString(r.errOut) {
		t.Fatalf("no failover of %s reported:\n%s", victim.Addr, r.errOut)
	}
	var over, without int64
	for _, m := range regexp.MustCompile(`; ([\d,]+) decisions? made without it; .*?([\d,]+) requests? admitted beyond the limit`).FindAllStringSubmatch(r.errOut, -1) {
		w, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
		o, _ := strconv.ParseInt(strings.ReplaceAll(m[2], ",", ""), 10, 64)
		without, over = without+w, over+o
	}
	var doc struct {
		Requests []struct {
			AtMs      int64  `json:"at_ms"`
			Client    string `json:"client"`
			Decisions map[string]struct {
				Allowed bool `json:"allowed"`
			} `json:"decisions"`
		} `json:"requests"`
		Algorithms []struct {
			Without *int64 `json:"decided_without_store"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Algorithms) != 1 || doc.Algorithms[0].Without == nil || *doc.Algorithms[0].Without != without || without == 0 {
		t.Errorf("decided_without_store %v; the report's lines say %d (and it must be some)", doc.Algorithms[0].Without, without)
	}
	// A plain count: admitted per client and minute; beyond the limit is
	// what passes it.
	admitted := map[string]int64{}
	for _, q := range doc.Requests {
		if q.Decisions["fixed-window"].Allowed {
			admitted[q.Client+"@"+strconv.FormatInt(q.AtMs/60_000, 10)]++
		}
	}
	var beyond int64
	for _, n := range admitted {
		beyond += max(0, n-limit)
	}
	if beyond != over || beyond == 0 {
		t.Errorf("admitted beyond the limit, window by window: %d; the report says %d\n%s", beyond, over, r.errOut)
	}
	for _, n := range c.Nodes {
		if k := runKeysOn(n.Addr); k > 0 {
			t.Errorf("%d keys of the run left on %s", k, n.Addr)
		}
	}
	// The default, stop: the same kill ends a run with one line, exit 2
	// (a run of two hours' traffic: pipelined, a replay is over too soon).
	long := writeFile(t, "long.yaml", []byte(longOnRedis))
	go func() {
		out, errOut, code := windowlab(t, "run", long, "--store", c.URL)
		done <- result{out, errOut, code}
	}()
	victim = nil
	for deadline := time.Now().Add(redisclustertest.Wait); victim == nil; time.Sleep(20 * time.Millisecond) {
		for _, n := range c.Primaries() {
			if runKeysOn(n.Addr) > 0 {
				victim = n
				break
			}
		}
		select {
		case r := <-done:
			t.Fatalf("the second run ended before a key of it was seen: exit %d\n%s", r.code, r.errOut)
		default:
		}
		if victim == nil && time.Now().After(deadline) {
			t.Fatalf("no key of the second run on any primary within %s", redisclustertest.Wait)
		}
	}
	victim.Kill()
	select {
	case r = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the replay under stop did not finish within 5 minutes")
	}
	var errLines []string
	for line := range strings.Lines(r.errOut) {
		if strings.HasPrefix(strings.TrimSpace(line), "redis at") { // the error, as main prints it
			errLines = append(errLines, line)
		}
	}
	if r.code != 2 || len(errLines) != 1 || r.out != "" {
		t.Errorf("under stop, a primary killed mid-run: exit %d, %d error lines, %d bytes of report; want 2, one line, none:\n%s", r.code, len(errLines), len(r.out), r.errOut)
	}
	// What it could not remove with a primary down it says, with a command
	// that removes it (TestRemoveCommandAfterAFailover runs one: here, a
	// redis-cli for each of thousands of keys would take minutes).
	if !strings.Contains(r.errOut, "remove them with") {
		for _, n := range c.Nodes {
			if k := runKeysOn(n.Addr); k > 0 {
				t.Errorf("%d keys of the stopped run left on %s, and nothing said of them", k, n.Addr)
			}
		}
	}
}

// A policy that is none of the three is exit 2, saying which are, on
// every command that takes it, with or without --store.
func TestBadOnStoreError(t *testing.T) {
	for _, args := range [][]string{
		{"run", "boundary-burst", "--on-store-error", "ignore"},
		{"run", "boundary-burst", "--store", "redis://127.0.0.1:1", "--on-store-error", "Allow"},
		{"tui", "boundary-burst", "--on-store-error", ""},
		{"replay", "-", "--on-store-error", "retry"},
	} {
		_, errOut, code := windowlab(t, args...)
		if code != 2 || !strings.Contains(errOut, `for "--on-store-error" flag`) || !strings.Contains(errOut, "use stop (the run ends, exit 2), allow") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}

// An outage's line, in the shape: its times, its slots, what the
// tally lacked and how far beyond the limit it admitted; and one that
// never answered again.
func TestOutageLine(t *testing.T) {
	o := redisstore.Outage{Node: "127.0.0.1:7000", Slots: []int{7123, 12000}, From: algo.Clock(12, 0, 31, 200), To: algo.Clock(12, 0, 33, 0),
		Answered: true, FailedOver: "127.0.0.1:7003", Reason: "CLUSTERDOWN The cluster is down", Without: 26, Missing: 40, Unsent: 26, Over: 14}
	want := "12:00:31.200–12:00:33: the primary of slots 7,123, 12,000 (127.0.0.1:7000) did not answer (CLUSTERDOWN The cluster is down), then failed over to 127.0.0.1:7003; 26 decisions made without it; 14 increments were lost with the primary, 40 missing in all; 14 requests admitted beyond the limit"
	if got := outageLine(o, false, 0, nil); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o.Answered, o.Slots, o.Without = false, []int{7123}, 1
	want = "12:00:31.200 to the end: 127.0.0.1:7000 (slot 7,123) did not answer (CLUSTERDOWN The cluster is down); 1 decision made without it"
	if got := outageLine(o, false, 0, nil); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// One Redis has no slots: its URL alone, in both shapes.
	o.Node, o.Slots, o.Reason = "redis://127.0.0.1:6379/0", nil, "it closed the connection"
	want = "12:00:31.200 to the end: redis://127.0.0.1:6379/0 did not answer (it closed the connection); 1 decision made without it"
	if got := outageLine(o, false, 0, nil); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	o.Answered, o.FailedOver = true, ""
	want = "12:00:31.200–12:00:33: redis://127.0.0.1:6379/0 did not answer (it closed the connection), then did again"
	if got := outageLine(o, false, 0, nil); !strings.HasPrefix(got, want) {
		t.Errorf("got  %s\nwant %s…", got, want)
	}
}

// The run's shard line: the slots of each primary that held keys, in one
// word or the plural, then the primaries that held none.
func TestShardLine(t *testing.T) {
	got := shardLine([]redisstore.ShardUse{
		{Addr: "127.0.0.1:7000", Slots: []int{1382}, Keys: 6},
		{Addr: "127.0.0.1:7001", Slots: []int{7123, 12000}, Keys: 1},
		{Addr: "127.0.0.1:7002"},
	})
	want := "On the cluster its keys lived on 2 of 3 primaries: 127.0.0.1:7000 (slot 1,382; 6 keys at the end), 127.0.0.1:7001 (slots 7,123, 12,000; 1 key at the end); none on 127.0.0.1:7002."
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
