package scenarios

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// gen produces the arrivals of one traffic entry in order. It is a plain
// value, so copying it copies the position (including the PCG state), which
// is what makes Clone cheap and exact.
type gen struct {
	at     algo.Instant // the pending arrival, valid after first/advance returned true
	client string       // the pending arrival's client

	shape   Shape
	i, n    int64        // Burst, Spread: arrivals emitted so far, and in all
	from    algo.Instant // Spread, Stream, Random
	to      algo.Instant // Stream, Random
	span    int64        // Spread: To − From in ms
	every   algo.Instant // Stream
	perMs   float64      // Random: arrivals per millisecond
	elapsed float64      // Random: ms from From to the pending arrival, before flooring
	pcg     rand.PCG     // Random
	clients uint64       // Random: how many clients to pick from
	names   *clientNames // Random: shared, read-only; nil when only counting
	number  int32        // the pending arrival's client's number (sim.Arrival.Number, less one)
	base    int32        // Random: the number of <prefix>-1
}

// newGen returns a generator for traffic entry i, before its first arrival.
// A counting generator leaves client names unset, which keeps counting a
// large random entry cheap (no names to build, no table to touch).
func newGen(s *Scenario, i int, counting bool) gen {
	t := &s.Traffic[i]
	g := gen{shape: t.Shape, client: t.Client, from: t.From, to: t.To}
	switch t.Shape {
	case Burst:
		g.at, g.n = t.At, t.Count
	case Spread:
		g.n, g.span = t.Count, int64(t.To-t.From)
	case Stream:
		g.every = algo.Instant(t.Every / time.Millisecond)
	case Random:
		g.perMs = t.Rate / 1000
		g.pcg = *rand.NewPCG(uint64(t.Seed), pcgStream)
		g.clients = uint64(t.Clients)
		if !counting {
			g.names = s.clientNames(i)
		}
	}
	if !counting {
		g.number = s.clientNumbers()[i]
		g.base = g.number
	}
	return g
}

// pcgStream is the second half of every random entry's PCG seed; the
// first half is the entry's seed, so the seed alone picks the sequence.
const pcgStream = 0x9e3779b97f4a7c15

// first positions g on its first arrival; false if it has none.
func (g *gen) first() bool {
	switch g.shape {
	case Burst:
		return g.n > 0
	case Spread:
		g.at = g.from
		return g.n > 0
	case Stream:
		g.at = g.from
		return g.from < g.to
	}
	return g.advance()
}

// advance moves g to its next arrival; false when there is none.
func (g *gen) advance() bool {
	switch g.shape {
	case Burst:
		g.i++
		return g.i < g.n
	case Spread:
		// Request i is at From + floor(i·span/count); i·span < 50e6·86.4e6 fits int64.
		g.i++
		g.at = g.from + algo.Instant(g.i*g.span/g.n)
		return g.i < g.n
	case Stream:
		g.at += g.every
		return g.at < g.to
	}
	// Random: exponential gaps from a uniform in (0, 1], so Log never sees 0.
	u := float64(g.pcg.Uint64()>>11+1) / (1 << 53)
	g.elapsed -= math.Log(u) / g.perMs
	if g.elapsed >= float64(g.to-g.from) {
		return false
	}
	g.at = g.from + algo.Instant(g.elapsed)
	hi, _ := bits.Mul64(g.pcg.Uint64(), g.clients) // uniform in [0, clients)
	if g.names != nil {
		g.client = g.names.name(hi)
		g.number = g.base + int32(hi)
	}
	return true
}

// clientNames returns (building once) the names <prefix>-1 … <prefix>-N of
// random traffic entry i, so that generating an arrival never allocates.
func (s *Scenario) clientNames(i int) *clientNames {
	s.nameClients()
	return s.names[i]
}

// clientNames are a random entry's client names <prefix>-1 … <prefix>-N,
// written end to end in one string. A name is found by arithmetic, not
// looked up: the names with d digits come one after another, each
// len(prefix)+1+d bytes long, from where the ones with fewer digits end.
// So an arrival's name costs no read of a table as large as the clients
// (which, 16 bytes a name, missed the cache on every arrival among 10,000
// clients), and the names take their bytes alone.
type clientNames struct {
	all    string
	prefix int                       // len(prefix) + 1, the "-"
	starts [len(powersOfTen) + 1]int // starts[d]: where the first name of d digits begins
}

// powersOfTen are 10⁰ … 10¹⁸: numbers below 10^d have at most d digits.
var powersOfTen = func() (p [19]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

func newClientNames(prefix string, n int) *clientNames {
	c := &clientNames{prefix: len(prefix) + 1}
	var b strings.Builder
	for k := 1; k <= n; k++ {
		b.WriteString(prefix)
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(k))
	}
	c.all = b.String()
	off := 0
	for d := 1; d < len(c.starts); d++ {
		c.starts[d] = off
		if first := powersOfTen[d-1]; uint64(n) >= first {
			last := uint64(n) // the numbers of d digits are first … last
			if d < len(powersOfTen) {
				last = min(last, powersOfTen[d]-1)
			}
			off += int(last-first+1) * (c.prefix + d)
		}
	}
	return c
}

// name is the name of client k, 0-based: <prefix>-(k+1).
func (c *clientNames) name(k uint64) string {
	n := k + 1
	// n's digits: ⌊log₁₀ 2⌋ of its bit length (1233/4096 ≈ log₁₀ 2), plus one,
	// less one when n is below the power of ten that many digits start at.
	d := min(bits.Len64(n)*1233>>12+1, len(powersOfTen))
	if n < powersOfTen[d-1] {
		d--
	}
	off := c.starts[d] + int(n-powersOfTen[d-1])*(c.prefix+d)
	return c.all[off : off+c.prefix+d]
}

// clientNumbers is each entry's client's number, or a random entry's
// first (numbering), worked out once.
func (s *Scenario) clientNumbers() []int32 {
	s.nameClients()
	return s.numbers
}

// nameClients builds, once, the random entries' names and every entry's
// number.
func (s *Scenario) nameClients() {
	s.namesOnce.Do(func() {
		s.numbers = s.numbering()
		s.names = make([]*clientNames, len(s.Traffic))
		for j := range s.Traffic {
			t := &s.Traffic[j]
			if t.Shape != Random {
				continue
			}
			s.names[j] = newClientNames(t.Client, t.Clients)
		}
	})
}

// source merges the entries' arrivals. The heap holds the index of every
// entry that has a pending arrival, keyed by (instant, entry index): each
// entry yields in time order, so popping the least key gives time order,
// and same-instant requests follow file order.
type source struct {
	gens  []gen
	heap  []int32
	scen  *Scenario    // whose Len is the source's, counted on first use
	bound algo.Instant // no arrival comes after it
	exact bool         // and the last arrival is at it
}

func newSource(s *Scenario) *source {
	src := &source{
		gens: make([]gen, len(s.Traffic)),
		heap: make([]int32, 0, len(s.Traffic)),
		scen: s,
	}
	src.bound, src.exact = s.lastBound()
	for i := range s.Traffic {
		src.gens[i] = newGen(s, i, false)
		if src.gens[i].first() {
			src.push(int32(i))
		}
	}
	return src
}

// Next returns the next arrival in decision order. It does not allocate.
func (s *source) Next() (sim.Arrival, bool) {
	if len(s.heap) == 0 {
		return sim.Arrival{}, false
	}
	e := s.heap[0]
	g := &s.gens[e]
	a := sim.Arrival{At: g.at, Client: g.client, Number: g.number + 1}
	if !g.advance() {
		last := len(s.heap) - 1
		s.heap[0] = s.heap[last]
		s.heap = s.heap[:last]
	}
	s.down(0)
	return a, true
}

// Clone copies the positions; client names are shared, read-only.
func (s *source) Clone() sim.Source {
	c := &source{
		gens:  append([]gen(nil), s.gens...),
		heap:  append(make([]int32, 0, cap(s.heap)), s.heap...),
		scen:  s.scen,
		bound: s.bound,
		exact: s.exact,
	}
	return c
}

// Len is the exact total number of arrivals, from the first one: the
// scenario's, which random traffic counts by a dry run of its generators
// on first use (Scenario.Len), so a replay that never asks makes no pass.
func (s *source) Len() int64 { return s.scen.Len() }

func (s *source) less(a, b int32) bool {
	ta, tb := s.gens[a].at, s.gens[b].at
	return ta < tb || (ta == tb && a < b)
}

func (s *source) push(e int32) {
	s.heap = append(s.heap, e)
	i := len(s.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(s.heap[i], s.heap[p]) {
			break
		}
		s.heap[i], s.heap[p] = s.heap[p], s.heap[i]
		i = p
	}
}

func (s *source) down(i int) {
	n := len(s.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && s.less(s.heap[r], s.heap[l]) {
			m = r
		}
		if !s.less(s.heap[m], s.heap[i]) {
			return
		}
		s.heap[i], s.heap[m] = s.heap[m], s.heap[i]
		i = m
	}
}

// LastBound is the instant no arrival comes after, worked out from the
// entries without generating them, and whether the last arrival is exactly
// there (random traffic ends somewhere before its to).
func (s *source) LastBound() (algo.Instant, bool) { return s.bound, s.exact }

// lastBound is source.LastBound for the scenario.
func (s *Scenario) lastBound() (bound algo.Instant, exact bool) {
	if s.rec != nil {
		return s.rec.last, true
	}
	bound, exact, any := algo.Instant(math.MinInt64), true, false
	for i := range s.Traffic {
		t := &s.Traffic[i]
		last, lastExact := algo.Instant(0), true
		switch t.Shape {
		case Burst:
			if t.Count == 0 {
				continue
			}
			last = t.At
		case Spread:
			if t.Count == 0 {
				continue
			}
			last = t.From + algo.Instant((t.Count-1)*int64(t.To-t.From)/t.Count)
		case Stream:
			every := int64(t.Every / time.Millisecond)
			n := (int64(t.To-t.From) + every - 1) / every
			if n == 0 {
				continue
			}
			last = t.From + algo.Instant((n-1)*every)
		case Random:
			last, lastExact = t.To-1, false
		}
		switch {
		case !any || last > bound:
			bound, exact = last, lastExact
		case last == bound:
			exact = exact || lastExact
		}
		any = true
	}
	if !any {
		return s.Start, false
	}
	return bound, exact
}

// numbering numbers every client the scenario's traffic names, so that an
// arrival carries its client's number and the engine need not hash the
// name (sim.Arrival.Number). Random entries of one prefix share the names
// <prefix>-1 … <prefix>-N (N the most of any of them) and take N numbers
// in a row; a client named outright takes the number of the random client
// of that name, if there is one, or one of its own. A name is split at its
// last "-", and random names have no leading zeros, so no two names share
// a number and no name has two. numbers[i] is entry i's client's number,
// or for a random entry that of <prefix>-1.
func (s *Scenario) numbering() []int32 {
	numbers := make([]int32, len(s.Traffic))
	base, size := map[string]int32{}, map[string]int{}
	var prefixes []string
	for i := range s.Traffic {
		t := &s.Traffic[i]
		if t.Shape != Random {
			continue
		}
		if _, ok := size[t.Client]; !ok {
			prefixes = append(prefixes, t.Client)
		}
		size[t.Client] = max(size[t.Client], t.Clients)
	}
	next := int32(0)
	for _, p := range prefixes {
		base[p] = next
		next += int32(size[p])
	}
	own := map[string]int32{}
	for i := range s.Traffic {
		t := &s.Traffic[i]
		if t.Shape == Random {
			numbers[i] = base[t.Client]
			continue
		}
		if cut := strings.LastIndexByte(t.Client, '-'); cut >= 0 {
			p, k := t.Client[:cut], t.Client[cut+1:]
			if n, err := strconv.Atoi(k); err == nil && strconv.Itoa(n) == k && n >= 1 && n <= size[p] {
				numbers[i] = base[p] + int32(n-1)
				continue
			}
		}
		n, ok := own[t.Client]
		if !ok {
			n = next
			own[t.Client] = n
			next++
		}
		numbers[i] = n
	}
	return numbers
}
