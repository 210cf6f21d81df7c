package algo

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// Synced at every request, a fleet is the single shared limiter, decision
// for decision, under every rule set it takes.
func TestSyncedAtEveryRequestIsTheSharedTally(t *testing.T) {
	variants := append([]Rules{{}}, allRules()...)
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 0x5e0c))
		s := randomStream(r, false)
		s.cfg.Rules = variants[seed%uint64(len(variants))]
		for _, k := range Lesson {
			if k == KindSlidingCounter && s.cfg.Rules.WindowStart == WindowFirstEvent {
				continue // refused, as Racy refuses it
			}
			a := Algorithm{Kind: k, Rules: s.cfg.Rules}.Fleet(2+int(seed%4), Routing(seed%3))
			a.Synced = true
			synced, err := a.New(s.cfg)
			if err != nil {
				t.Fatal(err)
			}
			shared := mustNew(t, k, s.cfg)
			for i, e := range s.events {
				if e.op != opAllow {
					continue
				}
				if got, want := synced.Allow(e.at, e.client), shared.Allow(e.at, e.client); got.Allowed != want.Allowed || got.Count != want.Count {
					t.Fatalf("%v seed %d event %d %v: synced %+v, shared %+v", a, seed, i, e, got, want)
				}
			}
		}
	}
}

// syncModel is a synced fleet of fixed windows written from the
// definition with plain maps: each server decides on the counts synced
// before the last sync instant plus its own since, in windows at
// multiples of w.
type syncModel struct {
	n, next     int
	limit, w, i int64
	shared      map[[2]string]int64 // (window, client) → count synced
	own         []map[[2]string]int64
	lastSync    int64
}

func modelFloor(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

func (m *syncModel) allow(t int64, client string) (bool, int) {
	if m.i > 0 && modelFloor(t, m.i) > m.lastSync {
		m.lastSync = modelFloor(t, m.i)
		for _, o := range m.own {
			for k, v := range o {
				m.shared[k] += v
				delete(o, k)
			}
		}
	}
	srv := m.next
	m.next = (m.next + 1) % m.n
	key := [2]string{fmt.Sprint(modelFloor(t, m.w)), client}
	if m.shared[key]+m.own[srv][key] >= m.limit {
		return false, srv
	}
	if m.i == 0 {
		m.shared[key]++
	} else {
		m.own[srv][key]++
	}
	return true, srv
}

// A synced fleet of fixed windows against the model, every interval from
// 0 to three windows; and its bound: no more than servers × limit in a
// window, the limit with interval 0.
func TestSyncedAgainstItsDefinition(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0x5ced))
		s := randomStream(r, false)
		s.cfg.Offset = 0
		w := int64(s.cfg.Window / time.Millisecond)
		n := 2 + r.IntN(4)
		every := r.Int64N(3*w + 1)
		if seed%5 == 0 {
			every = 0
		}
		a := Algorithm{Kind: KindFixedWindow}.Fleet(n, RoundRobin)
		a.Synced, a.Sync = true, time.Duration(every)*time.Millisecond
		l, err := a.New(s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		m := &syncModel{n: n, limit: s.cfg.Limit, w: w, i: every, shared: map[[2]string]int64{}, lastSync: -1 << 62}
		for range n {
			m.own = append(m.own, map[[2]string]int64{})
		}
		allowed := map[[2]string]int64{}
		clock := Instant(-1 << 62)
		for i, e := range s.events {
			if e.op == opExpire && e.at <= clock {
				l.Expire(e.at) // dropping what no later decision needs changes none
			}
			if e.op != opAllow {
				continue
			}
			clock = e.at
			want, _ := m.allow(int64(e.at), e.client)
			got := l.Allow(e.at, e.client)
			if got.Allowed != want {
				t.Fatalf("%v seed %d event %d %v: got %+v, the model says allowed=%v", a, seed, i, e, got, want)
			}
			if got.Allowed {
				allowed[[2]string{fmt.Sprint(modelFloor(int64(e.at), w)), e.client}]++
			}
		}
		bound := int64(n) * s.cfg.Limit
		if every == 0 {
			bound = s.cfg.Limit
		}
		for k, v := range allowed {
			if v > bound {
				t.Fatalf("%v seed %d: %d allowed to %s in window %s, over %d", a, seed, v, k[1], k[0], bound)
			}
		}
	}
}

// A sliding log synced: never more than servers × limit in any window.
func TestSyncedLogStaysUnderServersTimesLimit(t *testing.T) {
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 0x106))
		s := randomStream(r, false)
		w := Instant(s.cfg.Window / time.Millisecond)
		n := 2 + r.IntN(4)
		a := Algorithm{Kind: KindSlidingLog}.Fleet(n, Routing(seed%3))
		a.Synced, a.Sync = true, time.Duration(r.Int64N(3*int64(w)+1))*time.Millisecond
		l, err := a.New(s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]Instant{}
		for _, e := range s.events {
			if e.op == opAllow && l.Allow(e.at, e.client).Allowed {
				got[e.client] = append(got[e.client], e.at)
			}
		}
		for c, ts := range got {
			for i := range ts {
				in := 0
				for _, u := range ts[:i+1] {
					if u > ts[i]-w {
						in++
					}
				}
				if in > n*int(s.cfg.Limit) {
					t.Fatalf("%v seed %d: %d of %s's requests in the window ending %v, over %d × %d", a, seed, in, c, ts[i], n, s.cfg.Limit)
				}
			}
		}
	}
}

// The shares add up to the limit, differing by at most one, the larger
// first.
func TestSplitSharesAddUpToTheLimit(t *testing.T) {
	for limit := int64(1); limit < 60; limit++ {
		for n := 2; n <= 7; n++ {
			sum := int64(0)
			for i := range n {
				sh := SplitShare(limit, n, i)
				lo := limit / int64(n)
				if sh != lo && sh != lo+1 || (i > 0 && sh > SplitShare(limit, n, i-1)) {
					t.Fatalf("limit %d over %d: server %d's share %d", limit, n, i, sh)
				}
				sum += sh
			}
			if sum != limit {
				t.Fatalf("limit %d over %d: shares add up to %d", limit, n, sum)
			}
		}
	}
}

// A split quota: spread evenly (round-robin) a client never gets more
// than the limit in a window; sent all to one server (client-hash) it is
// denied while the fleet has let through less than the limit.
func TestSplitQuotaUnderAndOverAdmission(t *testing.T) {
	cfg := Config{Limit: 10, Window: time.Second}
	for _, k := range Lesson {
		for n := 2; n <= 4; n++ {
			even := Algorithm{Kind: k, Split: true}.Fleet(n, RoundRobin)
			even.Split = true
			l, err := even.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if l.Config().Limit != 10 {
				t.Errorf("%v: config limit %d, want the whole 10", even, l.Config().Limit)
			}
			allowed := 0
			for i := range 100 {
				if l.Allow(Clock(12, 0, 0, 0)+Instant(i), "c").Allowed {
					allowed++
				}
			}
			if allowed > 10 {
				t.Errorf("%v: %d of 100 allowed, over the limit 10", even, allowed)
			}
			sticky := Algorithm{Kind: k}.Fleet(n, ClientHash)
			sticky.Split = true
			l, _ = sticky.New(cfg)
			allowed = 0
			deniedUnder := false
			for i := range 100 {
				if l.Allow(Clock(12, 0, 0, 0)+Instant(i), "c").Allowed {
					allowed++
				} else if allowed < 10 {
					deniedUnder = true
				}
			}
			if !deniedUnder || int64(allowed) > SplitShare(10, n, 0) {
				t.Errorf("%v: %d allowed, denied under the limit %v; want one server's share and a denial under 10", sticky, allowed, deniedUnder)
			}
		}
	}
	if _, err := (Algorithm{Kind: KindFixedWindow, Split: true, Servers: 4}).New(Config{Limit: 3, Window: time.Second}); err == nil {
		t.Error("a limit of 3 split 4 ways was not refused")
	}
}

// A lagged tally against a model written from the definition (fixed
// windows, counts in a map): until the failover the shared count; at it,
// the count of the writes made by failover − lag. After the failover the
// requests admitted beyond the limit in a window never exceed the writes
// lost, and Lost counts those writes.
func TestLaggedAgainstItsDefinition(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0x1a99))
		s := randomStream(r, false)
		s.cfg.Offset = 0
		w := int64(s.cfg.Window / time.Millisecond)
		lag := r.Int64N(2*w + 1)
		first, last := s.events[0].at, s.events[len(s.events)-1].at
		at := first + Instant(r.Int64N(int64(last-first)+1))
		a := Algorithm{Kind: KindFixedWindow, Lagged: true, Lag: time.Duration(lag) * time.Millisecond, Failover: at}
		l, err := a.New(s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		type wr struct {
			at  int64
			key [2]string
		}
		var writes []wr
		count := map[[2]string]int64{}
		allowed := map[[2]string]int64{}
		failed, lost := false, int64(0)
		clock := Instant(-1 << 62)
		for i, e := range s.events {
			if e.op == opExpire && e.at <= clock {
				l.Expire(e.at) // the replica's and the tally's: no decision changes
			}
			if e.op != opAllow {
				continue
			}
			clock = e.at
			if !failed && e.at >= at {
				failed = true
				count = map[[2]string]int64{}
				for _, x := range writes {
					if x.at <= int64(at)-lag {
						count[x.key]++
					} else {
						lost++
					}
				}
			}
			key := [2]string{fmt.Sprint(modelFloor(int64(e.at), w)), e.client}
			want := count[key] < s.cfg.Limit
			if want {
				count[key]++
				writes = append(writes, wr{int64(e.at), key})
				allowed[key]++
			}
			if got := l.Allow(e.at, e.client); got.Allowed != want {
				t.Fatalf("%v seed %d event %d %v: got %+v, the model says allowed=%v", a, seed, i, e, got, want)
			}
		}
		if got := l.(*Lagged).Lost(); got != lost {
			t.Fatalf("%v seed %d: lost %d, the model says %d", a, seed, got, lost)
		}
		for k, v := range allowed {
			if v-s.cfg.Limit > lost {
				t.Fatalf("%v seed %d: %d allowed to %s in window %s, %d beyond the limit with %d lost", a, seed, v, k[1], k[0], v-s.cfg.Limit, lost)
			}
		}
	}
}

// Names round-trip, and bad ones say what is valid.
func TestSharingNames(t *testing.T) {
	for _, n := range []string{"fixed-window@3~sync=1s", "sliding-log@2:client-hash~sync=0ms", "fixed-window@4~split",
		"sliding-counter@3:random/7~split", "fixed-window~lag=200ms@12:00:31", "sliding-log~lag=0ms@12:00:31.500"} {
		a, err := ParseAlgorithm(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if a.String() != n {
			t.Errorf("%s reads back as %s", n, a)
		}
		if _, err := a.New(Config{Limit: 10, Window: time.Second}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, n := range []string{"fixed-window~sync=1s", "fixed-window@3~sync=-1s", "fixed-window@3~sync=1.5ms", "token-bucket@3~sync=1s",
		"fixed-window~split", "token-bucket@2~split", "fixed-window@3~lag=1s@12:00:00", "fixed-window~lag=1s",
		"fixed-window~lag=2m@12:00:00", "fixed-window~lag=1s@25:00:00", "fixed-window@3~sync=2h"} {
		if _, err := ParseAlgorithm(n); err == nil {
			t.Errorf("%s was accepted", n)
		}
	}
}
