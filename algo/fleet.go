package algo

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
)

// Routing is how a fleet of servers shares the requests out.
type Routing uint8

const (
	// RoundRobin sends each request to the next server in turn, whoever
	// sent it: a client's requests spread over every server.
	RoundRobin Routing = iota
	// ClientHash sends every request of a client to the same server (by a
	// hash of its name): sticky sessions.
	ClientHash
	// Random sends each request to a server drawn at random, the same
	// draws for the same seed (Algorithm.Seed).
	Random
)

func (r Routing) String() string {
	switch r {
	case RoundRobin:
		return "round-robin"
	case ClientHash:
		return "client-hash"
	case Random:
		return "random"
	}
	return fmt.Sprintf("routing(%d)", uint8(r))
}

// ParseRouting reads round-robin, client-hash or random.
func ParseRouting(s string) (Routing, bool) {
	switch s {
	case "round-robin":
		return RoundRobin, true
	case "client-hash":
		return ClientHash, true
	case "random":
		return Random, true
	}
	return 0, false
}

// MaxServers is the most servers one fleet may have.
const MaxServers = 64

// Fleet is one limiter algorithm run on several servers, each keeping its
// own tally (its own limiter), with requests shared out by a Routing: the
// lesson's "works for one bouncer" across many. Each server allows the
// full limit, so a client whose requests spread over n servers gets up to
// n times the limit through; one whose requests all reach one server is
// limited as by one tally. A shared tally is a single limiter.
//
// A Decision is the deciding server's, its counts that server's alone.
type Fleet struct {
	alg     Algorithm
	servers []Limiter
	routing Routing
	next    int      // RoundRobin: the server the next request goes to
	rng     rand.PCG // Random: its draws, a value (a clone copies where it is)
	seed    uint64
	tallies []ServerTally
	names   *Names // shared names, when the engine numbers its clients
	hashes  []int8 // ClientHash with shared names: each id's server, or −1 until worked out
	split   int64  // a split quota's whole limit (NewSplit), 0 when each server allows it all
}

// NewFleet returns n servers running a under c, routed by routing.
func NewFleet(a Algorithm, c Config, n int, routing Routing) (*Fleet, error) {
	return newFleet(a, c, n, routing, 0)
}

// NewRandomFleet is a fleet whose requests go to servers drawn at random,
// the draws set by seed.
func NewRandomFleet(a Algorithm, c Config, n int, seed uint64) (*Fleet, error) {
	return newFleet(a, c, n, Random, seed)
}

func newFleet(a Algorithm, c Config, n int, routing Routing, seed uint64) (*Fleet, error) {
	if n < 2 || n > MaxServers {
		return nil, Problem("servers", "%d is out of range: a fleet has 2 to %d servers", n, MaxServers)
	}
	if routing > Random {
		return nil, Problem("routing", "%v is not a routing; use round-robin, client-hash or random", routing)
	}
	f := &Fleet{alg: a, routing: routing, seed: seed, rng: *rand.NewPCG(seed, 0x726f757465), tallies: make([]ServerTally, n)}
	for range n {
		l, err := a.New(c)
		if err != nil {
			return nil, err
		}
		f.servers = append(f.servers, l)
	}
	return f, nil
}

// Algorithm is what the fleet runs, with its servers and routing.
func (f *Fleet) Algorithm() Algorithm {
	a := f.alg
	a.Servers, a.Routing, a.Split = len(f.servers), f.routing, f.split > 0
	if f.routing == Random {
		a.Seed = f.seed
	}
	return a
}

func (f *Fleet) Kind() Kind { return f.alg.Kind }
func (f *Fleet) Config() Config {
	c := f.servers[0].Config()
	if f.split > 0 {
		c.Limit = f.split
	}
	return c
}

// Servers are the fleet's limiters, one a server; callers may Peek and
// read memory, never Allow.
func (f *Fleet) Servers() []Limiter { return f.servers }

// route is the server a request from client goes to next; advance says
// whether the request is made (RoundRobin then moves on).
func (f *Fleet) route(client string, advance bool) int {
	switch f.routing {
	case ClientHash:
		return serverOf(client, len(f.servers))
	case Random:
		if !advance {
			r := f.rng // the next draw, not taken
			return int(r.Uint64() % uint64(len(f.servers)))
		}
		return int(f.rng.Uint64() % uint64(len(f.servers)))
	}
	i := f.next
	if advance {
		f.next = (f.next + 1) % len(f.servers)
	}
	return i
}

// serverOf is a client's server under ClientHash: FNV-1a of its name.
func serverOf(client string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(client))
	return int(h.Sum64() % uint64(n))
}

// Server is the server a request from client at this point would reach.
func (f *Fleet) Server(client string) int { return f.route(client, false) }

func (f *Fleet) Allow(t Instant, client string) Decision {
	i := f.route(client, true)
	return f.count(i, f.servers[i].Allow(t, client))
}

// ServerTally is what one server of a fleet decided.
type ServerTally struct {
	Allowed, Denied int64
}

// Tallies are what each server decided, in server order.
func (f *Fleet) Tallies() []ServerTally { return append([]ServerTally(nil), f.tallies...) }

func (f *Fleet) count(i int, d Decision) Decision {
	if d.Allowed {
		f.tallies[i].Allowed++
	} else {
		f.tallies[i].Denied++
	}
	return d
}

func (f *Fleet) Peek(t Instant, client string) Decision {
	return f.servers[f.route(client, false)].Peek(t, client)
}

// UseNames shares names with every server (ByID).
func (f *Fleet) UseNames(names *Names) bool {
	for _, s := range f.servers {
		if b, ok := s.(ByID); !ok || !b.UseNames(names) {
			return false
		}
	}
	f.names = names
	return true
}

// AllowID is Allow for the client numbered id in the shared names (ByID).
func (f *Fleet) AllowID(t Instant, id int32) Decision {
	var i int
	if f.routing == ClientHash {
		for int(id) >= len(f.hashes) {
			f.hashes = append(f.hashes, -1)
		}
		if f.hashes[id] < 0 {
			f.hashes[id] = int8(serverOf(f.names.Name(id), len(f.servers)))
		}
		i = int(f.hashes[id])
	} else {
		i = f.route("", true)
	}
	return f.count(i, f.servers[i].(ByID).AllowID(t, id))
}

func (f *Fleet) Expire(t Instant) {
	for _, s := range f.servers {
		s.Expire(t)
	}
}

func (f *Fleet) Memory() Memory { return f.sum(func(l Limiter) Memory { return l.Memory() }) }

func (f *Fleet) MemoryAt(t Instant) Memory {
	return f.sum(func(l Limiter) Memory { return l.MemoryAt(t) })
}

// sum adds up the servers' memory: a client on two servers is two
// clients' state.
func (f *Fleet) sum(of func(Limiter) Memory) Memory {
	var m Memory
	for _, s := range f.servers {
		m = m.plus(of(s))
	}
	return m
}

func (f *Fleet) Clone() Limiter {
	c := *f
	c.servers = make([]Limiter, len(f.servers))
	for i, s := range f.servers {
		c.servers[i] = s.Clone()
	}
	c.hashes = append([]int8(nil), f.hashes...)
	c.tallies = append([]ServerTally(nil), f.tallies...)
	return &c
}
