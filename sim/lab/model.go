package lab

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// Model is the synthetic traffic the lab generates, a documented and seeded
// stand-in for Cloudflare's real traffic:
//
//   - Each source s draws its rate r_s, in limits per window, from a
//     heavy-tailed distribution: Pareto with shape Alpha, or log-normal with
//     spread Sigma, either scaled so that the median source sends Median
//     limits per window. Most sources sit far below the limit; the tail
//     crosses it.
//   - The requested total is divided among the sources in proportion to
//     their rates (largest remainders, exactly), and the run lasts as long as
//     the sources need to send it at those rates: D = total / (limit · Σ r_s)
//     windows. So --requests changes how long the traffic runs, not how
//     busy each source is.
//   - A source's n requests arrive at n independent uniform instants in
//     [0, D) (a Poisson process conditioned on its count), whole
//     milliseconds, in order.
//   - With bursts (On > 0), each source alternates on and off periods of
//     exponential lengths with means On and Off, starting in a random phase,
//     and sends only while on: the same n requests, squeezed into its on
//     time, at a higher rate.
//
// Every draw comes from a PCG seeded by (seed, source, purpose), so a
// source's traffic does not depend on the others, on the order in which the
// sources are processed, or on how many workers there are.
type Model struct {
	Rates  Distribution
	Alpha  float64 // Pareto shape (tail index): P(r > x) ∝ x^−Alpha
	Sigma  float64 // log-normal: standard deviation of ln r
	Median float64 // the median source's rate, in limits per window
	// On and Off are the mean on and off periods of bursts; On = 0 means a
	// steady Poisson stream.
	On, Off time.Duration
}

// Distribution is the family the sources' rates are drawn from.
type Distribution uint8

const (
	Pareto Distribution = iota
	LogNormal
)

func (d Distribution) String() string {
	switch d {
	case Pareto:
		return "pareto"
	case LogNormal:
		return "lognormal"
	}
	return fmt.Sprintf("distribution(%d)", uint8(d))
}

// ParseDistribution is the inverse of Distribution.String.
func ParseDistribution(s string) (Distribution, bool) {
	for _, d := range []Distribution{Pareto, LogNormal} {
		if d.String() == s {
			return d, true
		}
	}
	return 0, false
}

// DefaultModel is the model the command runs unless told otherwise.
var DefaultModel = Model{Rates: Pareto, Alpha: 1.5, Sigma: 1.5, Median: 0.02}

// String describes the model in one line, parameters included.
func (m Model) String() string {
	var s string
	switch m.Rates {
	case Pareto:
		s = fmt.Sprintf("Pareto rates (α = %g)", m.Alpha)
	case LogNormal:
		s = fmt.Sprintf("log-normal rates (σ = %g)", m.Sigma)
	default:
		s = m.Rates.String()
	}
	// The median is a parameter, echoed to four significant digits as
	// given, not a measured share rounded for reading.
	s += fmt.Sprintf(", median source at %.4g%% of the limit, Poisson arrivals", m.Median*100)
	if m.On > 0 {
		s += fmt.Sprintf(", on/off bursts (mean on %s, off %s)", human.Duration(m.On), human.Duration(m.Off))
	} else {
		s += ", no bursts"
	}
	return s
}

// Bounds of the model's parameters.
const (
	MinAlpha, MaxAlpha   = 1.01, 10.0 // at most 1 the mean rate is infinite
	MinSigma, MaxSigma   = 0.0, 5.0
	MinMedian, MaxMedian = 1e-6, 100.0
	MaxPeriod            = 24 * time.Hour
)

func (m Model) validate() error {
	switch m.Rates {
	case Pareto:
		if !(m.Alpha >= MinAlpha && m.Alpha <= MaxAlpha) {
			return algo.Problem("alpha", "%g is out of range: the Pareto shape must be from %g to %g", m.Alpha, MinAlpha, MaxAlpha)
		}
	case LogNormal:
		if !(m.Sigma >= MinSigma && m.Sigma <= MaxSigma) {
			return algo.Problem("sigma", "%g is out of range: it must be from %g to %g", m.Sigma, MinSigma, MaxSigma)
		}
	default:
		return algo.Problem("model", "%v is not a model; use pareto or lognormal", m.Rates)
	}
	if !(m.Median >= MinMedian && m.Median <= MaxMedian) {
		return algo.Problem("median", "%g is out of range: the median source's rate, in limits per window, must be from %g to %g", m.Median, MinMedian, MaxMedian)
	}
	if m.On < 0 || m.Off < 0 || m.On > MaxPeriod || m.Off > MaxPeriod || (m.On == 0) != (m.Off == 0) ||
		(m.On > 0 && (m.On < time.Millisecond || m.Off < time.Millisecond)) {
		return algo.Problem("bursts", "on %s, off %s: both must be from 1ms to %s, or both 0 for no bursts", human.Duration(m.On), human.Duration(m.Off), human.Duration(MaxPeriod))
	}
	return nil
}

// The purposes a source's random streams are drawn for.
const (
	streamRate uint64 = iota + 1
	streamArrivals
	streamBursts
)

// sourcePCG seeds the generator of one source's stream: independent of
// every other source's, so sources can be generated in any order.
func sourcePCG(seed uint64, source int, stream uint64) rand.PCG {
	return *rand.NewPCG(splitmix(seed^stream<<56), splitmix(splitmix(seed)^uint64(source)<<8^stream))
}

// splitmix is SplitMix64's finaliser: nearby inputs give unrelated outputs.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// rate draws source s's rate, in limits per window.
func (m Model) rate(seed uint64, s int) float64 {
	pcg := sourcePCG(seed, s, streamRate)
	r := rand.New(&pcg)
	switch m.Rates {
	case LogNormal:
		return m.Median * math.Exp(m.Sigma*r.NormFloat64())
	default:
		// Median at x_m·2^(1/α); 1 − U is in (0, 1], so the power is finite.
		xm := m.Median / math.Pow(2, 1/m.Alpha)
		return xm * math.Pow(1-r.Float64(), -1/m.Alpha)
	}
}

// plan is what every source's traffic is generated from.
type plan struct {
	model    Model
	seed     uint64
	counts   []int64 // requests per source
	rates    []float64
	duration int64 // D, in ms: every arrival is in [0, D)
}

// newPlan draws every source's rate and divides total among them; false
// when stop asked it to give up first (ten million sources take seconds).
func newPlan(m Model, seed uint64, sources int, total int64, limit int64, windowMs int64, stop *atomic.Bool) (plan, bool) {
	p := plan{model: m, seed: seed, rates: make([]float64, sources)}
	var sum float64
	for s := range p.rates {
		if s%progressEvery == progressEvery-1 && stop.Load() {
			return p, false
		}
		p.rates[s] = m.rate(seed, s)
		sum += p.rates[s]
	}
	p.counts = apportion(p.rates, total)
	// D windows, at limit·Σr requests a window, hold the total.
	p.duration = max(1, int64(math.Round(float64(total)/(float64(limit)*sum)*float64(windowMs))))
	return p, true
}

// apportion divides total among the sources in proportion to their rates,
// exactly: quotas of integer weights in 128 bits, then one more to the
// largest remainders (ties to the lower source).
func apportion(rates []float64, total int64) []int64 {
	top := slices.Max(rates)
	weights := make([]uint64, len(rates))
	var sum uint64
	for i, r := range rates {
		weights[i] = uint64(r / top * (1 << 40)) // at most 2^40 each, 2^64 / 2^40 sources at most
		sum += weights[i]
	}
	counts := make([]int64, len(rates))
	rems := make([]uint64, len(rates))
	var given int64
	for i, w := range weights {
		hi, lo := bits.Mul64(uint64(total), w)
		q, r := bits.Div64(hi, lo, sum)
		counts[i], rems[i] = int64(q), r
		given += int64(q)
	}
	for _, i := range largest(rems, int(total-given)) {
		counts[i]++
	}
	return counts
}

// largest returns the indices of the k largest of rems, ties to the lower
// index: a quickselect, linear where a sort of ten million took seconds.
// The set it returns is the same whatever the pivots, since no two (value,
// index) pairs are equal.
func largest(rems []uint64, k int) []int32 {
	order := make([]int32, len(rems))
	for i := range order {
		order[i] = int32(i)
	}
	before := func(a, b int32) bool { return rems[a] > rems[b] || (rems[a] == rems[b] && a < b) }
	lo, hi := 0, len(order) // order[:lo] belong to the k, order[hi:] do not
	for hi-lo > 1 && lo < k && k < hi {
		// Median of three as the pivot, then a Lomuto partition of [lo, hi).
		mid := lo + (hi-lo)/2
		a, b, c := order[lo], order[mid], order[hi-1]
		pivot := b
		switch {
		case before(a, b) == before(b, c):
			pivot = b
		case before(b, a) == before(a, c):
			pivot = a
		default:
			pivot = c
		}
		store := lo
		for i := lo; i < hi; i++ {
			if before(order[i], pivot) {
				order[i], order[store] = order[store], order[i]
				store++
			}
		}
		// order[lo:store] come before the pivot; place it next.
		for i := store; i < hi; i++ {
			if order[i] == pivot {
				order[i], order[store] = order[store], order[i]
				break
			}
		}
		switch {
		case store+1 <= k:
			lo = store + 1
		default:
			hi = store
		}
	}
	return order[:k]
}

// arrivals generates one source's n instants in order, in one pass and
// without keeping them. n uniform instants on an axis of length L, sorted,
// are L·S_i/S for the partial sums S_i of n + 1 exponential spacings and
// their total S. Rather than summing the spacings once to know S and
// replaying them, the spacings are drawn a block at a time: a block's k
// spacings E_1 … E_k, with G their sum, and the m − k spacings still to come
// summed at once as one Gamma(m − k) draw Y (a sum of m − k exponentials).
// (E_1, …, E_k, Y)/(G + Y) is then distributed as the first k spacings of m
// over their total, and the rest given them is the same problem on what is
// left of the axis; so the block's instants are a + (L − a)·S_i/(G + Y), and
// the next block starts at its last. Exact in distribution, one exponential
// draw a request and one gamma draw a block, and only a block in memory.
type arrivals struct {
	pcg    rand.PCG
	rng    *rand.Rand
	m      int64   // spacings not yet drawn: the instants still to come, plus one
	a      float64 // where the spacings still to come start on the axis
	length float64 // the axis: [0, length)
	end    algo.Instant
	burst  bursts
	i, k   int                   // out[i:k] are the block's instants still to emit
	sums   [arrivalBlock]float64 // the block's partial sums of spacings
	out    [arrivalBlock]algo.Instant
}

// arrivalBlock is how many spacings a block draws: a gamma draw costs a few
// exponential ones, so it is spread over many requests.
const arrivalBlock = 128

func newArrivals() *arrivals {
	a := &arrivals{}
	a.rng = rand.New(&a.pcg)
	a.burst.rng = rand.New(&a.burst.pcg)
	return a
}

// reset positions the generator at the start of source s's n requests;
// false when stop asked it to give up first (working out a bursty source's
// time on walks its periods).
func (a *arrivals) reset(p *plan, s int, n int64, stop *atomic.Bool) bool {
	a.pcg = sourcePCG(p.seed, s, streamArrivals)
	length := float64(p.duration)
	bursty := p.model.On > 0
	if bursty {
		a.burst.reset(p, s)
		on, ok := a.burst.onTime(length, stop)
		if !ok {
			return false
		}
		if on > 0 {
			length = on
		} else {
			bursty = false // never on inside the run: send steadily instead
		}
	}
	a.burst.active = bursty
	a.m, a.a, a.length, a.end = n+1, 0, length, algo.Instant(p.duration-1)
	a.i, a.k = 0, 0
	return true
}

// next returns the next instant; call it exactly n times in all, with take.
func (a *arrivals) next() algo.Instant {
	return a.take(1)[0]
}

// take returns the next instants, from 1 to at most max of them; valid until
// the next call.
func (a *arrivals) take(max int) []algo.Instant {
	if a.i == a.k {
		a.block()
	}
	i := a.i
	a.i = min(a.k, i+max)
	return a.out[i:a.i]
}

// block draws the next block of spacings and works out its instants.
func (a *arrivals) block() {
	k := int(min(a.m, arrivalBlock))
	var g float64
	sums := a.sums[:k]
	pcg := a.pcg // in a local while the spacings are drawn
	for i := range sums {
		// An exponential of mean 1 (exp), its common case written out here.
		u := pcg.Uint64()
		j, l := uint32(u), uint8(u>>32)
		if j < zigK[l] {
			g += float64(j) * zigW[l]
		} else {
			a.pcg = pcg
			g += a.expSlow(j, l)
			pcg = a.pcg
		}
		sums[i] = g
	}
	a.pcg = pcg
	points := k
	total := g
	if a.m > int64(k) {
		total += gammaInt(a.rng, a.m-int64(k))
	} else {
		points-- // the last spacing of all ends the axis: no instant
	}
	// Rounding may not carry a past the end: then the rest are at its end.
	scale := max(a.length-a.a, 0) / total
	base, end, out := a.a, a.end, a.out[:points]
	if a.burst.active {
		for i := range out {
			out[i] = min(algo.Instant(a.burst.real(base+sums[i]*scale)), end)
		}
	} else {
		for i := range out {
			out[i] = min(algo.Instant(base+sums[i]*scale), end)
		}
	}
	a.a = base + sums[points-1]*scale
	a.m -= int64(k)
	a.i, a.k = 0, points
}

// exp draws an exponential of mean 1, as rand.Rand.ExpFloat64 does (the
// ziggurat of Marsaglia and Tsang, 2000) but on the PCG itself, without the
// interface call a draw: the common case inline, the rest out of line.
func (a *arrivals) exp() float64 {
	u := a.pcg.Uint64()
	return a.expSlow(uint32(u), uint8(u>>32))
}

// expSlow finishes the draw of exp whose first 40 bits were j and i.
func (a *arrivals) expSlow(j uint32, i uint8) float64 {
	for {
		x := float64(j) * zigW[i]
		if j < zigK[i] {
			return x
		}
		if i == 0 { // the tail beyond the last layer: zigR plus an exponential
			return zigR - math.Log(a.uniform())
		}
		if zigF[i]+a.uniform()*(zigF[i-1]-zigF[i]) < math.Exp(-x) {
			return x
		}
		u := a.pcg.Uint64()
		j, i = uint32(u), uint8(u>>32)
	}
}

// uniform draws from [0, 1), as rand.Rand.Float64 does.
func (a *arrivals) uniform() float64 {
	return float64(a.pcg.Uint64()<<11>>11) / (1 << 53)
}

// The ziggurat's 256 layers for the exponential: a draw in layer i whose
// 32 bits j are below zigK[i] is j·zigW[i], at once; zigF[i] is the density
// at the layer's edge; zigR is where the tail begins.
const zigR = 7.69711747013104972

var zigK [256]uint32
var zigW, zigF [256]float64

func init() {
	// Marsaglia and Tsang's setup (zigset), the layers of equal area v.
	const m, v = 1 << 32, 3.949659822581572e-3
	d, t := zigR, zigR
	q := v / math.Exp(-d)
	zigK[0], zigK[1] = uint32(d/q*m), 0
	zigW[0], zigW[255] = q/m, d/m
	zigF[0], zigF[255] = 1, math.Exp(-d)
	for i := 254; i >= 1; i-- {
		d = -math.Log(v/d + math.Exp(-d))
		zigK[i+1] = uint32(d / t * m)
		t = d
		zigF[i] = math.Exp(-d)
		zigW[i] = d / m
	}
}

// gammaInt draws from the Gamma distribution of shape n ≥ 1 and scale 1,
// the sum of n exponentials: Marsaglia and Tsang's method (2000), exact
// rejection from a transformed normal.
func gammaInt(r *rand.Rand, n int64) float64 {
	d := float64(n) - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := r.Float64()
		if x2 := x * x; u < 1-0.0331*x2*x2 || math.Log(u) < 0.5*x2+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// bursts maps a position on a source's on-time axis to real time, walking
// its on and off periods lazily; the periods are drawn from their own
// stream, so the same periods come back on every walk.
type bursts struct {
	pcg, start rand.PCG
	rng        *rand.Rand
	on, off    float64 // mean periods, ms
	startsOff  bool
	active     bool
	realStart  float64 // real start of the current on period
	axisStart  float64 // its start on the on-time axis
	length     float64 // its length
}

func (b *bursts) reset(p *plan, s int) {
	b.pcg = sourcePCG(p.seed, s, streamBursts)
	b.on, b.off = float64(p.model.On/time.Millisecond), float64(p.model.Off/time.Millisecond)
	// Random phase: off first with the share of time spent off.
	b.startsOff = b.rng.Float64()*(b.on+b.off) >= b.on
	b.start = b.pcg
}

// rewind goes back to the first on period.
func (b *bursts) rewind() {
	b.pcg = b.start
	b.realStart, b.axisStart = 0, 0
	if b.startsOff {
		b.realStart = b.off * b.rng.ExpFloat64()
	}
	b.length = b.on * b.rng.ExpFloat64()
}

// advance moves to the next on period.
func (b *bursts) advance() {
	b.realStart += b.length + b.off*b.rng.ExpFloat64()
	b.axisStart += b.length
	b.length = b.on * b.rng.ExpFloat64()
}

// onTime is the source's time on inside [0, d), leaving the walk rewound;
// false when stop asked it to give up first.
func (b *bursts) onTime(d float64, stop *atomic.Bool) (float64, bool) {
	var on float64
	i := 0
	for b.rewind(); b.realStart < d; b.advance() {
		if i++; i%progressEvery == 0 && stop.Load() {
			return 0, false
		}
		on += min(b.length, d-b.realStart)
	}
	b.rewind()
	return on, true
}

// real maps x on the on-time axis (non-decreasing from call to call) to
// real time.
func (b *bursts) real(x float64) float64 {
	for x >= b.axisStart+b.length {
		b.advance()
	}
	return b.realStart + (x - b.axisStart)
}

// maxPeriods bounds the on/off periods a run may walk: a few a request,
// since walking one costs about what deciding a request does (and periods
// far shorter than a source's gap between requests hold none of them, so
// they make no bursts), plus a floor for small runs.
func maxPeriods(requests int64, sources int) float64 {
	return periodsPerRequest*float64(requests) + float64(sources) + 1<<20
}

const periodsPerRequest = 4

// periodsProblem refuses bursts so short that walking their periods would
// take far longer than deciding the requests (1ms/1ms ran at 8.4k requests
// a second where no bursts run at millions): a bound on ON+OFF that
// depends on the run's length, so it is checked once the rates are drawn.
func (p *plan) periodsProblem(requests int64) error {
	if p.model.On <= 0 {
		return nil
	}
	cycle := float64((p.model.On + p.model.Off) / time.Millisecond)
	sources := float64(len(p.rates))
	periods := sources * float64(p.duration) / cycle
	most := maxPeriods(requests, len(p.rates))
	if periods <= most {
		return nil
	}
	shortest := time.Duration(math.Ceil(sources*float64(p.duration)/most)) * time.Millisecond
	return algo.Problem("bursts", "%s/%s: the traffic runs %s, so periods this short make about %s on and off periods, more than %d for each of the %s requests; give periods of %s or more together (ON+OFF), or off",
		human.Duration(p.model.On), human.Duration(p.model.Off), human.Duration((time.Duration(p.duration) * time.Millisecond).Round(time.Second)),
		human.Int(int64(min(periods, 1e18))), periodsPerRequest, human.Int(requests), human.Duration(shortest))
}

// ParseBursts reads the bursts option: "off" (or "" or "0") for none, or
// ON/OFF mean periods in Go duration syntax, like "10s/50s".
func ParseBursts(s string) (on, off time.Duration, err error) {
	if s == "" || s == "off" || s == "0" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if ok {
		on, err = time.ParseDuration(a)
		if err == nil {
			off, err = time.ParseDuration(b)
		}
	}
	if !ok || err != nil {
		return 0, 0, fmt.Errorf("%q is not on/off periods; use ON/OFF durations like 10s/50s, or off", s)
	}
	return on, off, nil
}
