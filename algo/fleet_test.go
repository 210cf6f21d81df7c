package algo

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The lesson's many bouncers: a burst of three times the limit from one
// client, spread round-robin over three servers each with its own tally,
// all gets through; on one tally, the limit does.
func TestFleetLetsEachServerAllowTheLimit(t *testing.T) {
	cfg := Config{Limit: 100, Window: time.Minute}
	for _, k := range All {
		single, _ := Algorithm{Kind: k}.New(cfg)
		fleet, err := Algorithm{Kind: k}.Fleet(3, RoundRobin).New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sticky, _ := Algorithm{Kind: k}.Fleet(3, ClientHash).New(cfg)
		one, three, hashed := 0, 0, 0
		for range 300 {
			if single.Allow(Clock(12, 0, 59, 0), "client-1").Allowed {
				one++
			}
			if fleet.Allow(Clock(12, 0, 59, 0), "client-1").Allowed {
				three++
			}
			if sticky.Allow(Clock(12, 0, 59, 0), "client-1").Allowed {
				hashed++
			}
		}
		if one != 100 || three != 300 || hashed != 100 {
			t.Errorf("%v: one tally let %d of 300 through, three local tallies %d, three sticky %d; want 100, 300, 100", k, one, three, hashed)
		}
		if m := fleet.Memory(); m.Clients != 3 {
			t.Errorf("%v: the fleet holds %d clients' state, want 3 (one on each server)", k, m.Clients)
		}
	}
}

// A fleet decides each request as its server's own limiter would, given
// the requests that server saw: round-robin, request i on server i mod n;
// by client hash, every request of a client on one server, which decides
// exactly as one tally does. By name and by dense id alike.
func TestFleetDecidesAsItsServers(t *testing.T) {
	for seed := range uint64(120) {
		r := rand.New(rand.NewPCG(seed, 0xf1ee7))
		s := randomStream(r, false)
		n := 2 + r.IntN(4)
		for _, k := range All {
			for _, routing := range []Routing{RoundRobin, ClientHash, Random} {
				a := Algorithm{Kind: k}.Fleet(n, routing)
				a.Seed = seed + 1 // Random's draws; the others ignore it
				if routing != Random {
					a.Seed = 0
				}
				byName, err := a.New(s.cfg)
				if err != nil {
					t.Fatal(err)
				}
				byID, _ := a.New(s.cfg)
				names := NewNames()
				if !byID.(ByID).UseNames(names) {
					t.Fatal("a fresh fleet refused the names")
				}
				servers := make([]Limiter, n)
				for i := range servers {
					servers[i], _ = Algorithm{Kind: k}.New(s.cfg)
				}
				single, _ := Algorithm{Kind: k}.New(s.cfg)
				req := 0
				for i, e := range s.events {
					if e.op != opAllow {
						continue
					}
					next := byName.(*Fleet).Server(e.client) // asking takes no draw
					if again := byName.(*Fleet).Server(e.client); again != next {
						t.Fatalf("%v: asked twice, the next server is %d, then %d", a, next, again)
					}
					got := byName.Allow(e.at, e.client)
					if id := byID.(ByID).AllowID(e.at, names.ID(e.client)); id != got {
						t.Fatalf("%v seed %d event %d: by id %+v, by name %+v", a, seed, i, id, got)
					}
					server := next
					switch routing {
					case RoundRobin:
						if server != req%n {
							t.Fatalf("%v request %d: server %d, want %d in turn", a, req, server, req%n)
						}
					case ClientHash:
						if server != serverOf(e.client, n) {
							t.Fatalf("%v: %s's request went to server %d, not its own %d", a, e.client, server, serverOf(e.client, n))
						}
					}
					if want := servers[server].Allow(e.at, e.client); got != want {
						t.Fatalf("%v seed %d event %d %v: the fleet %+v, its server %d alone %+v", a, seed, i, e, got, server, want)
					}
					if one := single.Allow(e.at, e.client); routing == ClientHash && got != one {
						t.Fatalf("%v seed %d event %d: sticky routing %+v, one tally %+v", a, seed, i, got, one)
					}
					req++
				}
				var want Memory
				for _, l := range servers {
					m := l.Memory()
					want.Clients, want.Entries, want.Bytes = want.Clients+m.Clients, want.Entries+m.Entries, want.Bytes+m.Bytes
				}
				if got := byName.Memory(); got != want {
					t.Fatalf("%v seed %d: memory %+v, the servers' sum %+v", a, seed, got, want)
				}
			}
		}
	}
}

func TestParseFleets(t *testing.T) {
	for name, want := range map[string]Algorithm{
		"fixed-window@5:random/7":                {Kind: KindFixedWindow, Servers: 5, Routing: Random, Seed: 7},
		"fixed-window@3":                         {Kind: KindFixedWindow, Servers: 3},
		"sliding-counter/httprate@4:client-hash": {Kind: KindSlidingCounter, Rules: PresetHTTPRate.Rules, Servers: 4, Routing: ClientHash},
		"token-bucket@2:round-robin":             {Kind: KindTokenBucket, Servers: 2},
	} {
		got, err := ParseAlgorithm(name)
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, want)
		}
		if back, _ := ParseAlgorithm(got.String()); back != got {
			t.Errorf("%s reads back as %+v", got, back)
		}
		if l, err := got.New(Config{Limit: 5, Window: time.Second}); err != nil || Of(l) != got {
			t.Errorf("%s: New gives %v (%v)", name, Of(l), err)
		}
	}
	for _, bad := range []string{"fixed-window@1", "fixed-window@x", "fixed-window@65", "fixed-window@3:sticky", "nothing@3", "fixed-window@3:round-robin/7", "fixed-window@3:random/x"} {
		if _, err := ParseAlgorithm(bad); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
	if got := (Algorithm{Kind: KindFixedWindow, Servers: 3, Routing: ClientHash}).Title(); got != "Fixed window · 3 servers, a tally each (client-hash)" {
		t.Errorf("title %q", got)
	}
}

// Random routing is the same for the same seed, spreads a client's
// requests over every server, and differs with the seed.
func TestRandomRouting(t *testing.T) {
	cfg := Config{Limit: 1000, Window: time.Minute}
	servers := func(seed uint64) []int {
		f, err := NewRandomFleet(Algorithm{Kind: KindFixedWindow}, cfg, 4, seed)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for i := range 400 {
			out = append(out, f.Server("c"))
			f.Allow(Instant(i), "c")
		}
		return out
	}
	a, b, c := servers(7), servers(7), servers(8)
	seen := map[int]int{}
	same, differ := true, false
	for i := range a {
		seen[a[i]]++
		same = same && a[i] == b[i]
		differ = differ || a[i] != c[i]
	}
	if !same || !differ || len(seen) != 4 {
		t.Errorf("seed 7 twice the same %v, seed 8 different %v, servers reached %v", same, differ, seen)
	}
	for s, n := range seen {
		if n < 60 {
			t.Errorf("server %d got %d of 400 requests", s, n)
		}
	}
}
