package quiz

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim"
)

// Generate returns count new questions of the lesson's kinds with new
// numbers, the same for the same seed. Every answer is read from a replay
// of the question's own scenario: the generator picks the traffic and asks
// the engine, it never works an answer out itself.
func Generate(seed uint64, count int) ([]Item, error) {
	rng := rand.New(rand.NewPCG(seed, stream))
	kinds := []Kind{GenThrough, GenEstimate, GenWeight, GenVerdict}
	items := make([]Item, 0, count)
	made := map[Kind]int{}
	for i := 0; len(items) < count; i++ {
		if i > 100*count+100 {
			return items, fmt.Errorf("generated only %d of %d questions", len(items), count)
		}
		kind := kinds[len(items)%len(kinds)]
		it, ok, err := generate(rng, kind, len(items)+1, made[kind])
		if err != nil {
			return items, err
		}
		if ok {
			items = append(items, it)
			made[kind]++
		}
	}
	return items, nil
}

// Windows and limits the generator picks from: the lesson's minute most often.
var (
	genWindows = []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, time.Minute, time.Minute, 2 * time.Minute, 5 * time.Minute}
	genLimits  = []int64{10, 20, 30, 50, 60, 100}
)

// draft is a generated scenario before it is parsed: the same YAML a
// teacher would write.
type draft struct {
	limit  int64
	window time.Duration
	start  algo.Instant
	lines  []string // traffic entries
}

func (d *draft) burst(at algo.Instant, n int64) {
	d.lines = append(d.lines, fmt.Sprintf("  - {at: %q, count: %d}", at.Short(), n))
}

func (d *draft) parse(num int, title string) (*scenarios.Scenario, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "name: question-%d\ntitle: %q\n", num, title)
	fmt.Fprintf(&b, "limit: %d\nwindow: %s\nstart: %q\ntraffic:\n", d.limit, human.Duration(d.window), d.start.Short())
	b.WriteString(strings.Join(d.lines, "\n") + "\n")
	return scenarios.Parse(fmt.Sprintf("generated/question-%d.yaml", num), []byte(b.String()))
}

// perWindow is "per minute", "per 30 seconds".
func perWindow(w time.Duration) string {
	switch w {
	case time.Minute:
		return "per minute"
	case time.Hour:
		return "per hour"
	case time.Second:
		return "per second"
	}
	if w%time.Minute == 0 {
		return fmt.Sprintf("per %d minutes", w/time.Minute)
	}
	return fmt.Sprintf("per %d seconds", w/time.Second)
}

// windowWords is "calendar minutes", "10 s windows aligned to the clock (…)".
func windowWords(w time.Duration, edge algo.Instant) string {
	if w == time.Minute {
		return "one-minute windows (calendar minutes)"
	}
	return fmt.Sprintf("%s windows aligned to the clock (one of them starts at %s)", human.Spoken(w), edge.Short())
}

// aligned explains where the windows fall, for windows that are not the
// calendar minute everybody assumes.
func aligned(w time.Duration, edge algo.Instant) string {
	if w == time.Minute {
		return ""
	}
	return fmt.Sprintf(" Windows are %s long and aligned to the clock: one of them starts at %s.", human.Spoken(w), edge.Short())
}

func pickOf[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// between returns a whole number from lo to hi inclusive.
func between(rng *rand.Rand, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + rng.Int64N(hi-lo+1)
}

// edgeIn picks a window edge in the working day.
func edgeIn(rng *rand.Rand, w time.Duration) algo.Instant {
	hour := algo.Clock(int(between(rng, 9, 16)), 0, 0, 0)
	per := int64(time.Hour / w)
	return hour + algo.Instant(between(rng, 1, per-1)*int64(w/time.Millisecond))
}

func sec(n int64) algo.Instant { return algo.Instant(n * 1000) }

// generate makes one question of kind; ok is false when the numbers drawn
// make a poor question (an answer with too many decimals, say), and the
// caller draws again.
// nth counts the questions of this kind made so far.
func generate(rng *rand.Rand, kind Kind, num, nth int) (Item, bool, error) {
	w := pickOf(rng, genWindows)
	limit := pickOf(rng, genLimits)
	g := question{rng: rng, it: Item{Kind: kind, From: "generated"}, d: &draft{limit: limit, window: w},
		w: w, ws: int64(w / time.Second), limit: limit, edge: edgeIn(rng, w), num: num}
	switch kind {
	case GenThrough:
		return g.through()
	case GenEstimate, GenVerdict, GenWeight:
		return g.counter(nth)
	}
	return g.it, false, fmt.Errorf("no generator for question kind %d", kind)
}

// question is one generated question in the making: the numbers drawn so
// far and the scenario being drafted.
type question struct {
	rng   *rand.Rand
	it    Item
	d     *draft
	w     time.Duration
	ws    int64 // the window in seconds
	limit int64
	edge  algo.Instant // a window edge the question turns on
	num   int
}

// through asks how many of two bursts around an edge get through.
func (g question) through() (Item, bool, error) {
	rng, it, d, w, ws, limit, edge, num := g.rng, g.it, g.d, g.w, g.ws, g.limit, g.edge, g.num
	k := algo.Algorithm{Kind: pickOf(rng, algo.Lesson)}
	before := between(rng, 1, ws/2)
	after := between(rng, 0, ws/2)
	t1, t2 := edge-sec(before), edge+sec(after)
	b1 := between(rng, limit/2, limit)
	b2 := between(rng, limit/2, limit+limit/4)
	d.start = t1 - sec(2)
	d.burst(t1, b1)
	d.burst(t2, b2)
	s, e, li, err := d.replay(num, fmt.Sprintf("Two bursts around %s", edge.Short()), k)
	if err != nil {
		return it, false, err
	}
	e.Seek(t1)
	first := e.Stats()[li].Allowed
	e.RunToEnd()
	total := e.Stats()[li].Allowed
	it.Scenario = s
	it.Ask = fmt.Sprintf("A %s allows %d requests %s. A client sends %d requests at %s and %d more at %s. How many get through?%s",
		strings.ToLower(k.Title()), limit, perWindow(w), b1, t1.Short(), b2, t2.Short(), aligned(w, edge))
	it.Answer = fmt.Sprint(total)
	// The last decision's arithmetic is the proof's (ProofAt), not repeated here.
	it.Explain = fmt.Sprintf("%d of the first burst and %d of the second are allowed: %d in all.", first, total-first, total)
	it.Hint = throughHint(k.Kind, w, limit, t1, t2)
	it.At, it.HasAt = t2, true
	it.Algorithm, it.HasAlgorithm = k, true
	return it, true, nil
}

// throughHint is the first step of counting two bursts through limiter
// kind: the windows they fall in, or what the second one looks back on.
func throughHint(kind algo.Kind, w time.Duration, limit int64, t1, t2 algo.Instant) string {
	switch kind {
	case algo.KindFixedWindow:
		return fmt.Sprintf("A fixed window counts each window on its own: the burst at %s falls in %s–%s and the one at %s in %s–%s, and each window allows %d.",
			t1.Short(), t1.Truncate(w).Short(), t1.Truncate(w).Add(w).Short(), t2.Short(), t2.Truncate(w).Short(), t2.Truncate(w).Add(w).Short(), limit)
	case algo.KindSlidingLog:
		holds := "still holds"
		if t1 <= t2.Add(-w) {
			holds = "no longer holds"
		}
		return fmt.Sprintf("The sliding log allows a request while fewer than %d were allowed in the %s before it: the %s before %s began at %s, so it %s the burst at %s.",
			limit, spanWords(w), spanWords(w), t2.Short(), t2.Add(-w).Short(), holds, t1.Short())
	}
	start := t2.Truncate(w)
	return fmt.Sprintf("The sliding counter allows a request while current + previous × weight < %d: at %s the weight is 1 − %s/%s, and previous is what the window %s–%s allowed of the burst at %s.",
		limit, t2.Short(), span(t2.Sub(start), w), span(w, w), start.Add(-w).Short(), start.Short(), t1.Short())
}

// spanWords names a window's span as a sentence does: "the minute before
// it", "the 10 s before it".
func spanWords(w time.Duration) string {
	switch w {
	case time.Second:
		return "second"
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	}
	return human.Spoken(w)
}

// counter asks about the sliding counter at a request: its estimate, its
// verdict or its overlap weight. nth counts the questions of this kind
// made so far.
func (g question) counter(nth int) (Item, bool, error) {
	rng, it, d, w, ws, limit, edge, num := g.rng, g.it, g.d, g.w, g.ws, g.limit, g.edge, g.num
	kind := it.Kind
	k := algo.Algorithm{Kind: algo.KindSlidingCounter}
	prevAt := edge - sec(between(rng, 1, ws-1))
	p := between(rng, limit/3, limit)
	elapsed := between(rng, 1, ws-1)
	at := edge + sec(elapsed)
	d.start = edge - sec(ws)
	d.burst(prevAt, p)
	if kind != GenWeight {
		gap := between(rng, 1, min(elapsed, 3))
		c := between(rng, limit/5, limit/2)
		if kind == GenVerdict {
			c = between(rng, limit/2, limit+limit/2)
		}
		d.burst(at-sec(gap), c)
	}
	d.burst(at, 1)
	s, e, li, err := d.replay(num, fmt.Sprintf("A request at %s", at.Short()), k)
	if err != nil {
		return it, false, err
	}
	e.RunToEnd()
	rec, _ := e.Last()
	dec := rec.Decisions[li]
	wn, wd := dec.WeightRat()
	weight := big.NewRat(wn, wd)
	it.Scenario = s
	it.At, it.HasAt = at, true
	it.Algorithm, it.HasAlgorithm = k, true
	overlap := fmt.Sprintf("%s is %s into the window %s–%s. The %d s before it start at %s and cover the last %d s of the previous window's %d: weight %s.",
		at.Short(), human.Spoken(dec.Elapsed), dec.WindowStart.Short(), dec.WindowEnd().Short(),
		ws, at.Add(-w).Short(), int64((w-dec.Elapsed)/time.Second), ws, human.Exact(weight))
	if !decimalPlaces(weight, 3) {
		return it, false, nil // a weight such as 131/300 makes arithmetic, not understanding
	}
	// What the estimate means, in words; its arithmetic is the proof's.
	verdict := fmt.Sprintf(" The estimate is %s, below the limit of %d, so the request is allowed.", human.DecimalRat(dec.EstimateBig()), limit)
	if !dec.Allowed {
		verdict = fmt.Sprintf(" The estimate is %s, not below the limit of %d, so the request is denied.", human.DecimalRat(dec.EstimateBig()), limit)
	}
	state := fmt.Sprintf("A sliding window counter allows %d requests %s. The previous window (%s–%s) counted %d requests and the current one has counted %d so far. A request arrives at %s.",
		limit, perWindow(w), dec.WindowStart.Add(-w).Short(), dec.WindowStart.Short(), dec.Previous, dec.Current(), at.Short())
	switch kind {
	case GenEstimate:
		est := dec.EstimateBig()
		if !decimalPlaces(est, 2) {
			return it, false, nil
		}
		it.Ask = state + " What estimate does the counter compare with the limit?"
		it.Answer = human.Exact(est)
		it.Explain = overlap + verdict
		it.Hint = fmt.Sprintf("The estimate is current + previous × weight: %d + %d × weight, where the weight is 1 − %s/%s, the share of the previous window still inside the last %s.",
			dec.Current(), dec.Previous, span(dec.Elapsed, w), span(w, w), spanWords(w))
	case GenVerdict:
		// Alternate the verdicts, so "allowed" is not always right.
		if want := nth%2 == 0; dec.Allowed != want {
			return it, false, nil
		}
		if !decimalPlaces(dec.EstimateBig(), 2) {
			return it, false, nil
		}
		it.Ask = state + " Is it allowed?"
		it.Choices = []string{"Allowed", "Denied"}
		it.Answer = "Denied"
		if dec.Allowed {
			it.Answer = "Allowed"
		}
		it.Explain = overlap + verdict
	case GenWeight:
		it.Ask = fmt.Sprintf("A sliding window counter counts requests in %s. A request arrives at %s. By what weight does the counter multiply the previous window's count? Give a decimal or a fraction.",
			windowWords(w, edge), at.Short())
		it.Answer = human.Exact(weight)
		it.Explain = overlap
		it.Hint = fmt.Sprintf("The weight is the share of the previous window still inside the %s before %s: 1 − elapsed/%s, where elapsed is how long before %s the window holding it started.",
			spanWords(w), at.Short(), span(w, w), at.Short())
	}
	return it, true, nil
}

// replay parses the draft and returns it with a fresh engine over it and
// the index of limiter k in it.
func (d *draft) replay(num int, title string, k algo.Algorithm) (*scenarios.Scenario, *sim.Engine, int, error) {
	s, err := d.parse(num, title)
	if err != nil {
		return nil, nil, 0, err
	}
	e, li, err := replay(s, k)
	return s, e, li, err
}

// replay returns a fresh engine over s and the index of limiter k in it.
func replay(s *scenarios.Scenario, k algo.Algorithm) (*sim.Engine, int, error) {
	e, err := s.Engine(sim.Options{ForwardOnly: true})
	if err != nil {
		return nil, 0, err
	}
	li := slices.Index(s.Algorithms, k)
	if li < 0 {
		return nil, 0, fmt.Errorf("%s: does not replay %s", s.File, k)
	}
	return e, li, nil
}

// decimalPlaces reports whether r is written exactly with at most n decimals.
func decimalPlaces(r *big.Rat, n int) bool {
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)))
	return scaled.IsInt()
}
