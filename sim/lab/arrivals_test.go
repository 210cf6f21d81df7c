package lab

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"
)

// The generator draws each source's n instants in one pass, a block of
// spacings at a time with the rest summed by one gamma draw (arrivals). These
// tests hold it to the law it must follow, n sorted independent uniforms, at
// fixed seeds, and show on purpose-made wrong generators that the same checks
// would catch a method that is only nearly right.

// axis is the length of a source's axis, in ms, for the tests of the
// continuous law: long enough that whole milliseconds are as good as real
// numbers (a float64 holds every integer below 2^53).
const axis = 1 << 52

// sortedUniforms is the lab's generator as a function of the source and
// its count: n instants of source s on [0, 1).
func sortedUniforms(seed uint64, s int, n int64) []float64 {
	p := plan{model: DefaultModel, seed: seed, duration: axis}
	a := testArrivals
	a.reset(&p, s, n, new(atomic.Bool))
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(a.next()) / axis
	}
	return out
}

var testArrivals = newArrivals()

// generator draws n sorted instants on [0, 1) for a source.
type generator func(seed uint64, s int, n int64) []float64

// wrongGenerators are plausible mistakes, each nearly right.
var wrongGenerators = map[string]generator{
	// One pass, normalising by the expected total of the spacings rather
	// than the drawn one.
	"normalised by the expected total": func(seed uint64, s int, n int64) []float64 {
		r := rand.New(rand.NewPCG(seed, uint64(s)))
		out := make([]float64, n)
		var sum float64
		for i := range out {
			sum += r.ExpFloat64()
			out[i] = min(sum/float64(n+1), math.Nextafter(1, 0))
		}
		return out
	},
	// The block method with the rest taken at its mean instead of drawn.
	"the rest at its mean": blocks(func(_ *rand.Rand, shape int64) float64 { return float64(shape) }),
	// The block method forgetting the spacing after the last instant.
	"n spacings, not n + 1": func(seed uint64, s int, n int64) []float64 {
		out := blocks(gammaInt)(seed, s, n+1)
		return out[1:]
	},
	// The count per block as expected rather than drawn: the axis cut in
	// equal parts, each with its share of the instants, sorted uniforms in each.
	"the count per part fixed": func(seed uint64, s int, n int64) []float64 {
		r := rand.New(rand.NewPCG(seed, uint64(s)))
		const parts = 4
		out := make([]float64, 0, n)
		for p := range int64(parts) {
			k := n*(p+1)/parts - n*p/parts
			part := make([]float64, k)
			for i := range part {
				part[i] = (float64(p) + r.Float64()) / parts
			}
			slices.Sort(part)
			out = append(out, part...)
		}
		return out
	},
}

// blocks is the lab's block method with the rest summed by rest, for the
// wrong generators; the lab's own gammaInt gives the right law.
func blocks(rest func(r *rand.Rand, shape int64) float64) generator {
	return func(seed uint64, s int, n int64) []float64 {
		r := rand.New(rand.NewPCG(seed, uint64(s)))
		out := make([]float64, 0, n)
		a, m := 0.0, n+1
		for m > 1 {
			k := min(m, arrivalBlock)
			sums := make([]float64, k)
			var g float64
			for i := range sums {
				g += r.ExpFloat64()
				sums[i] = g
			}
			total := g
			if m > k {
				total += rest(r, m-k)
			} else {
				sums = sums[:k-1]
			}
			for _, x := range sums {
				out = append(out, a+(1-a)*x/total)
			}
			a = out[len(out)-1]
			m -= k
		}
		return out
	}
}

// The counts the law is checked at: single instants, a few, one block and
// its edges, several blocks, and many.
var lawCounts = []int64{1, 2, 3, 7, arrivalBlock - 1, arrivalBlock, arrivalBlock + 1,
	arrivalBlock * 3 / 2, 2*arrivalBlock + 5, 3 * arrivalBlock, 1000}

// rosenblatt maps a source's sorted instants on [0, 1) to what, under the
// law of n sorted uniforms, are n independent uniforms: given the instant
// before at a, the next is the least of the r left, uniform on (a, 1), so
// P(next ≤ y) = 1 − ((1 − y)/(1 − a))^r. Every instant is tested given all
// those before it, so a wrong joint law shows, not only wrong marginals.
func rosenblatt(x []float64) []float64 {
	u := make([]float64, len(x))
	a := 0.0
	for i, y := range x {
		r := float64(len(x) - i)
		u[i] = -math.Expm1(r * math.Log1p(-(y-a)/(1-a)))
		a = y
	}
	return u
}

// orderStatistics maps the instants at ranks that straddle the blocks'
// edges to uniforms by their marginal law: the i-th of n sorted uniforms is
// Beta(i, n + 1 − i).
func orderStatistics(x []float64) []float64 {
	n := len(x)
	var u []float64
	for _, i := range []int{1, arrivalBlock - 1, arrivalBlock, arrivalBlock + 1, 2 * arrivalBlock, n} {
		if i > n || (i == n && n <= 2*arrivalBlock) {
			continue
		}
		u = append(u, betaCDF(float64(i), float64(n+1-i), x[i-1]))
	}
	return u
}

// betaCDF is P(Beta(a, b) ≤ x), the regularised incomplete beta function
// by its continued fraction (Numerical Recipes, 6.4).
func betaCDF(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	guard := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/guard(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 1000; m++ {
		aa := m * (b - m) * x / ((a - 1 + 2*m) * (a + 2*m))
		d = 1 / guard(1+aa*d)
		c = guard(1 + aa/c)
		h *= d * c
		aa = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 1 + 2*m))
		d = 1 / guard(1+aa*d)
		c = guard(1 + aa/c)
		h *= d * c
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return h
}

// ksUniform is the Kolmogorov–Smirnov test of u against the uniform law on
// [0, 1): the p-value of its largest distance, by the asymptotic law with
// Stephens's correction for the sample size. The distance is taken at 2^16
// even steps, which errs by at most 2^−16, far below what it tests.
func ksUniform(u []float64) float64 {
	const bins = 1 << 16
	counts := make([]int, bins)
	for _, v := range u {
		counts[min(int(v*bins), bins-1)]++
	}
	n := float64(len(u))
	var d float64
	seen := 0
	for i, c := range counts {
		seen += c
		d = max(d, math.Abs(float64(seen)/n-float64(i+1)/bins))
	}
	lambda := (math.Sqrt(n) + 0.12 + 0.11/math.Sqrt(n)) * d
	var p float64
	for k := 1.0; k <= 100; k++ {
		p += 2 * math.Pow(-1, k-1) * math.Exp(-2*k*k*lambda*lambda)
	}
	return max(0, min(p, 1))
}

// lawPValues runs gen over many sources at every count of lawCounts and
// returns the p-values of the two tests.
func lawPValues(gen generator, seed uint64) (joint, marginal float64) {
	var us, ms []float64
	sources := 0
	for _, n := range lawCounts {
		reps := max(200, int(20_000/n))
		for range reps {
			x := gen(seed, sources, n)
			sources++
			us = append(us, rosenblatt(x)...)
			ms = append(ms, orderStatistics(x)...)
		}
	}
	return ksUniform(us), ksUniform(ms)
}

// The lab's instants follow the law of sorted independent uniforms; each
// wrong generator fails one of the same two tests by far.
func TestArrivalsAreSortedUniforms(t *testing.T) {
	const pass, fail = 1e-3, 1e-6
	for _, seed := range []uint64{1, 2} {
		joint, marginal := lawPValues(sortedUniforms, seed)
		if joint < pass || marginal < pass {
			t.Errorf("seed %d: p-values %.3g given the instants before, %.3g at the blocks' edges; want both ≥ %g", seed, joint, marginal, pass)
		}
	}
	for name, gen := range wrongGenerators {
		if joint, marginal := lawPValues(gen, 1); joint > fail && marginal > fail {
			t.Errorf("%s: p-values %.3g and %.3g, want one below %g: the test cannot tell it from the right law", name, joint, marginal, fail)
		}
	}
}

// Through the whole plan, whole milliseconds and all: the instants of each
// source, counted per window, fit the multinomial law of its requests spread
// uniformly over the traffic's span (a chi-square test over all sources at
// once), and every source sends exactly the requests it was apportioned.
func TestArrivalsPerWindow(t *testing.T) {
	o := DefaultOptions
	o.Sources, o.Requests, o.Seed = 2000, 400_000, 7
	p, _ := newPlan(o.Model, o.Seed, o.Sources, o.Requests, o.Limit, o.Window.Milliseconds(), new(atomic.Bool))
	w := o.Window.Milliseconds()
	bins := int(p.duration / w) // whole windows; the partial one at the end is left out
	if bins < 10 {
		t.Fatalf("the traffic spans %d windows", bins)
	}
	a := newArrivals()
	counts := make([]int64, bins)
	var chi2 float64
	df := 0
	for s := range o.Sources {
		n := p.counts[s]
		if n < 5*int64(bins) {
			continue // too few for the chi-square's expected counts
		}
		clear(counts)
		var inBins int64
		a.reset(&p, s, n, new(atomic.Bool))
		for range n {
			if b := int64(a.next()) / w; b < int64(bins) {
				counts[b]++
				inBins++
			}
		}
		// Given how many fell in whole windows, they are multinomial over them.
		want := float64(inBins) / float64(bins)
		for _, c := range counts {
			chi2 += (float64(c) - want) * (float64(c) - want) / want
		}
		df += bins - 1
	}
	t.Logf("chi-square %.0f on %d degrees of freedom", chi2, df)
	if df < 10_000 {
		t.Fatalf("only %d degrees of freedom: too few busy sources", df)
	}
	// The chi-square of df degrees is near normal, mean df, variance 2·df.
	if z := (chi2 - float64(df)) / math.Sqrt(2*float64(df)); math.Abs(z) > 4 {
		t.Errorf("chi-square %.0f on %d degrees of freedom: %.1f standard deviations off", chi2, df, z)
	}
}

// The lab's exponential is the standard library's ziggurat, on the PCG
// itself: from the same state, the same draws but for the last bits (its
// layers are float64 where the library's are float32) and the rare draw
// near a layer's edge.
func TestExpIsTheLibrarys(t *testing.T) {
	a := newArrivals()
	a.pcg = *rand.NewPCG(3, 4)
	lib := rand.New(rand.NewPCG(3, 4))
	differ := 0
	const n = 200_000
	for range n {
		x, y := a.exp(), lib.ExpFloat64()
		if math.Abs(x-y) > 1e-6*y {
			differ++
			a.pcg = *rand.NewPCG(uint64(differ), 4) // back in step
			lib = rand.New(rand.NewPCG(uint64(differ), 4))
		}
	}
	if differ > n/10_000 {
		t.Errorf("%d of %d draws differ from the library's", differ, n)
	}
}
