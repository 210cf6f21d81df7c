package redisstore_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
	"windowlab/internal/redistest"
	"windowlab/redisstore"
)

// Every key a limiter writes has the lesson's TTL (its virtual lifetime
// plus Grace of Redis's clock), none with expiry off; keys dead on the
// virtual clock are removed at the next window edge; keys outside the
// run's namespace are never touched, and Close removes the run's.
func TestTTLsAndNamespace(t *testing.T) {
	srv := redistest.Start(t)
	opt, _ := redis.ParseURL(srv.URL)
	c := redis.NewClient(opt)
	defer c.Close()
	ctx := context.Background()
	if err := c.Set(ctx, "someone-else:key", "mine", 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, noExpiry := range []bool{false, true} {
		s, err := redisstore.Open(ctx, srv.URL, redisstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := algo.Config{Limit: 10, Window: time.Minute, NoExpiry: noExpiry}
		for _, k := range algo.All {
			local, _ := algo.New(k, cfg)
			l, err := s.Wrap(local)
			if err != nil {
				t.Fatal(err)
			}
			l.Allow(algo.Clock(12, 0, 30, 0), "alice")
			keys, err := c.Keys(ctx, l.Namespace()+"[^e]*").Result() // not the expiry index
			if err != nil || len(keys) != 1 {
				t.Fatalf("%v: keys %v (%v), want one", k, keys, err)
			}
			ttl, _ := c.PTTL(ctx, keys[0]).Result()
			switch {
			case noExpiry && ttl != -1:
				t.Errorf("%v with expiry off: %s has a TTL of %v", k, keys[0], ttl)
			case !noExpiry && (ttl <= redisstore.Grace || ttl > redisstore.Grace+2*time.Minute):
				t.Errorf("%v: %s has a TTL of %v, want its lifetime (at most two windows) plus %v", k, keys[0], ttl, redisstore.Grace)
			}
			// Two windows later another client's request sweeps alice's dead key.
			l.Allow(algo.Clock(12, 2, 30, 0), "bob")
			s.Flush()
			left, _ := c.Exists(ctx, keys[0]).Result()
			if !noExpiry && left != 0 {
				t.Errorf("%v: %s is still there two windows on", k, keys[0])
			}
			if noExpiry && left != 1 {
				t.Errorf("%v with expiry off: %s was removed", k, keys[0])
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.DBSize(ctx).Result(); n != 1 {
			t.Errorf("after Close the database holds %d keys, want only the one that was there before", n)
		}
	}
	if v, _ := c.Get(ctx, "someone-else:key").Result(); v != "mine" {
		t.Errorf("a key outside the run was changed: %q", v)
	}
}

// A server that takes the connection and never answers is an error
// (redisstore.Timeout on every call), not a hang: were it one, the test's
// own -timeout would fail it.
func TestSilentServerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, silent
		}
	}()
	_, err = redisstore.Open(context.Background(), "redis://"+ln.Addr().String(), redisstore.Options{})
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Fatalf("a silent server: %v", err)
	}
}

// A closed store may be closed again, and a decision after it is an
// error of the store, not a panic: the in-process decision stands.
func TestClosedStore(t *testing.T) {
	srv := redistest.Start(t)
	for _, pipelined := range []bool{false, true} {
		s, err := redisstore.Open(context.Background(), srv.URL, redisstore.Options{Pipelined: pipelined})
		if err != nil {
			t.Fatal(err)
		}
		local, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 1, Window: time.Second})
		l, err := s.Wrap(local)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("closed twice: %v", err)
		}
		if d := l.Allow(0, "a"); !d.Allowed {
			t.Errorf("the in-process decision after Close: %+v", d)
		}
		if err := s.Err(); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("pipelined %v: a decision after Close: %v", pipelined, err)
		}
	}
}
