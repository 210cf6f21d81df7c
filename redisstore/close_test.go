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
	"windowlab/internal/redistest"
	"windowlab/redisstore"
)

// client is a connection of the test's own to srv.
func client(t *testing.T, srv *redistest.Server) *redis.Client {
	t.Helper()
	opt, _ := redis.ParseURL(srv.URL)
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// filled is a pipelined store on srv holding a fixed window's counters for
// clients clients, both limiters sharing none of their keys with anyone.
func filled(t *testing.T, srv *redistest.Server, clients int, noExpiry bool) (*redisstore.Store, *redisstore.Limiter) {
	t.Helper()
	s, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: true})
	if err != nil {
		t.Fatal(err)
	}
	local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 10, Window: time.Minute, NoExpiry: noExpiry})
	l, err := s.Wrap(local)
	if err != nil {
		t.Fatal(err)
	}
	for i := range clients {
		l.Allow(algo.Clock(12, 0, 0, 0), fmt.Sprintf("client-%d", i))
	}
	s.Flush()
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return s, l
}

func dbsize(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	n, err := c.DBSize(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Close waits for a checkpoint's copies under way (a view's seek, going
// on in its goroutine after the view has quit) and none is made after
// it: nothing is left, with or without TTLs. Before, the copies landed
// behind Close's sweep: hundreds of keys, with no TTL when expiry was off.
func TestCloseLeavesNoCheckpointCopies(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	for _, noExpiry := range []bool{false, true} {
		s, l := filled(t, srv, 30_000, noExpiry)
		copied := make(chan struct{})
		go func() {
			defer close(copied)
			l.Clone() // 30 pages of COPY, each a round trip
		}()
		// Close once the copies are under way: keys of the clone's namespace exist.
		clone := strings.TrimSuffix(l.Namespace(), "0:") + "1:*"
		for {
			keys, _, err := c.Scan(context.Background(), 0, clone, 100_000).Result()
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) > 0 {
				break
			}
			select {
			case <-copied:
				t.Fatal("the clone ended before any copy was seen")
			default:
			}
		}
		if err := s.Close(); err != nil {
			t.Fatalf("expiry off %v: %v", noExpiry, err)
		}
		<-copied
		if n := dbsize(t, c); n != 0 {
			t.Errorf("expiry off %v: %d keys left after Close", noExpiry, n)
		}
		l.Allow(algo.Clock(12, 0, 1, 0), "late") // a decision after Close writes nothing
		if n := dbsize(t, c); n != 0 || s.Err() == nil {
			t.Errorf("expiry off %v: after Close a decision left %d keys, the store's error %v", noExpiry, n, s.Err())
		}
	}
}

// Abandon (a second ctrl+c) removes the run's keys; on a Redis that takes
// no writes it gives up within its time (the pause is still on when it
// returns) and says how many keys are left and the command that removes
// them, which does.
func TestAbandonIsBounded(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	ctx := context.Background()
	s, _ := filled(t, srv, 1000, true)
	if err := s.Abandon(2 * time.Second); err != nil || dbsize(t, c) != 0 {
		t.Fatalf("Abandon on a Redis that answers: %v, %d keys left", err, dbsize(t, c))
	}
	s.Close()

	s, _ = filled(t, srv, 1000, true)
	defer s.Close()
	if err := c.Do(ctx, "CLIENT", "PAUSE", "600000", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	err := s.Abandon(2 * time.Second)
	still, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	werr := c.Set(still, "probe", "1", 0).Err() // blocks while the pause is on
	cancel()
	c2 := client(t, srv) // the connection the probe timed out on is closed
	if err := c2.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
		t.Fatal(err)
	}
	if werr == nil {
		t.Fatal("the pause was over when Abandon returned: the test proves nothing")
	}
	var left *redisstore.LeftError
	if !errors.As(err, &left) || left.Keys != 1000 { // expiry off: the counters alone
		t.Fatalf("Abandon on a paused Redis: %v; want 1,000 keys left", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "1000 keys of this run are left") || !strings.Contains(msg, s.Pattern()) {
		t.Errorf("the message should say what is left and its pattern %s: %s", s.Pattern(), msg)
	}
	if n := dbsize(t, c2); n != 1000 {
		t.Errorf("%d keys on Redis, the message says 1,000", n)
	}
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Skip("no redis-cli to try the command with")
	}
	command := s.RemoveCommand()
	if out, err := exec.Command("sh", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	if n := dbsize(t, c2); n != 0 {
		t.Errorf("%s left %d keys", command, n)
	}
}

// A batch under way when Abandon is called (Redis holds it: writes paused
// for 700 ms) is not waited for past a quarter of Abandon's time: the
// store's connections are closed under it, Abandon sweeps through its
// own and watches for late writes, and leaves nothing, now or later. The
// Close that was waiting beside it (the run's own, stopped by the first
// signal) finds the connections closed and says nothing: before, it
// printed "this run's keys could not be removed (redis: client is
// closed)" beside Abandon's success.
func TestCloseBesideAbandonIsQuiet(t *testing.T) {
	srv := redistest.Start(t)
	c := client(t, srv)
	s, l := filled(t, srv, 1000, false)
	if err := c.Do(context.Background(), "CLIENT", "PAUSE", "700", "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	flushed := make(chan struct{})
	go func() { // the run, its sender held by the pause
		for i := range 3 * redisstore.Batch {
			l.Allow(algo.Clock(12, 0, 0, 1), fmt.Sprintf("late-%d", i))
		}
		s.Flush()
		close(flushed)
	}()
	closed := make(chan error, 1)
	time.Sleep(50 * time.Millisecond) // the batch is on its way, held by the pause
	go func() { closed <- s.Close() }()
	time.Sleep(50 * time.Millisecond)
	if err := s.Abandon(2 * time.Second); err != nil {
		t.Errorf("Abandon: %v", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Close beside Abandon: %v, want nothing said (Abandon's answer is the run's)", err)
	}
	<-flushed
	time.Sleep(300 * time.Millisecond) // a write landing after the sweep would show now
	if n := dbsize(t, c); n != 0 {
		t.Errorf("%d keys left after Abandon", n)
	}
}
