package sim

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"windowlab/algo"
)

func lessonLimiters(t testing.TB, limit int64, window time.Duration) []algo.Limiter {
	t.Helper()
	var ls []algo.Limiter
	for _, k := range algo.Lesson {
		l, err := algo.New(k, algo.Config{Limit: limit, Window: window})
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return ls
}

func burst(at algo.Instant, n int, client string) []Arrival {
	out := make([]Arrival, n)
	for i := range out {
		out[i] = Arrival{At: at, Client: client}
	}
	return out
}

func newEngine(t testing.TB, arrivals []Arrival, limit int64, window time.Duration, opts Options) *Engine {
	t.Helper()
	e, err := New(NewSliceSource(arrivals), lessonLimiters(t, limit, window), opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestBoundaryBurst(t *testing.T) {
	arrivals := append(burst(algo.Clock(12, 0, 59, 0), 100, "client-1"), burst(algo.Clock(12, 1, 0, 0), 100, "client-1")...)
	e := newEngine(t, arrivals, 100, time.Minute, Options{Start: algo.Clock(12, 0, 0, 0)})
	e.RunToEnd()
	want := map[algo.Kind][2]int64{
		algo.KindFixedWindow:    {200, 0},
		algo.KindSlidingLog:     {100, 100},
		algo.KindSlidingCounter: {100, 100},
	}
	for _, s := range e.Stats() {
		if got := [2]int64{s.Allowed, s.Denied}; got != want[s.Kind] {
			t.Errorf("%v: allowed, denied = %v, want %v", s.Kind, got, want[s.Kind])
		}
	}
	fixed := e.Stats()[0]
	if fixed.MaxInWindow != 200 || fixed.MaxInWindowFirst != algo.Clock(12, 0, 59, 0) || fixed.MaxInWindowLast != algo.Clock(12, 1, 0, 0) {
		t.Errorf("fixed window max in window = %d from %v to %v, want 200 from 12:00:59 to 12:01:00",
			fixed.MaxInWindow, fixed.MaxInWindowFirst, fixed.MaxInWindowLast)
	}
	if log := e.Stats()[1]; log.MaxInWindow != 100 {
		t.Errorf("sliding log max in window = %d, want 100", log.MaxInWindow)
	}
}

func TestSeekStopsAtInstant(t *testing.T) {
	arrivals := append(burst(algo.Clock(12, 0, 59, 0), 100, "client-1"), burst(algo.Clock(12, 1, 0, 0), 100, "client-1")...)
	e := newEngine(t, arrivals, 100, time.Minute, Options{})
	e.Seek(algo.Clock(12, 0, 59, 0))
	if e.Processed() != 100 || e.Now() != algo.Clock(12, 0, 59, 0) {
		t.Fatalf("after Seek(12:00:59): processed %d at %v, want 100 at 12:00:59", e.Processed(), e.Now())
	}
	e.Seek(algo.Clock(12, 0, 59, 999))
	if e.Processed() != 100 {
		t.Fatalf("Seek(12:00:59.999) decided %d, want 100", e.Processed())
	}
	e.NextEdge()
	if e.Now() != algo.Clock(12, 1, 0, 0) || e.Processed() != 200 {
		t.Fatalf("NextEdge: at %v with %d decided, want 12:01:00 with 200", e.Now(), e.Processed())
	}
	e.PrevEdge()
	if e.Now() != algo.Clock(12, 0, 0, 0) || e.Processed() != 0 {
		t.Fatalf("PrevEdge from an edge: at %v with %d decided, want 12:00:00 with 0", e.Now(), e.Processed())
	}
	e.Seek(algo.Clock(12, 0, 30, 0))
	e.PrevEdge()
	if e.Now() != algo.Clock(12, 0, 0, 0) {
		t.Fatalf("PrevEdge from 12:00:30 = %v, want 12:00:00", e.Now())
	}
	if !e.StepInstant() || e.Processed() != 100 {
		t.Fatalf("StepInstant decided %d, want the 100 at 12:00:59", e.Processed())
	}
}

// randomArrivals is a non-decreasing stream with many same-instant requests.
func randomArrivals(r *rand.Rand, n int, clients int) []Arrival {
	out := make([]Arrival, n)
	t := algo.Clock(12, 0, 0, 0)
	names := []string{"ann", "bob", "cy", "dee", "eve"}[:clients]
	for i := range out {
		if r.IntN(3) > 0 {
			t += algo.Instant(r.IntN(40))
		}
		out[i] = Arrival{At: t, Client: names[r.IntN(len(names))]}
	}
	return out
}

type snapshotView struct {
	N       int64
	Now     algo.Instant
	Last    Record
	HasLast bool
	Stats   []Stats
}

func view(e *Engine) snapshotView {
	r, ok := e.Last()
	return snapshotView{e.Processed(), e.Now(), r.clone(), ok, e.Stats()}
}

// Every position reached by jumping around equals the one reached by
// stepping straight there: state depends on the position, not the route.
func TestSeekingIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	arrivals := randomArrivals(r, 6000, 4) // several checkpoints apart
	straight := newEngine(t, arrivals, 7, 100*time.Millisecond, Options{History: true})
	var want []snapshotView
	var marks []Mark
	want = append(want, view(straight))
	for range arrivals {
		straight.Step()
		want = append(want, view(straight))
	}
	marks = straight.History().AppendMarks(marks)

	e := newEngine(t, arrivals, 7, 100*time.Millisecond, Options{History: true})
	for range 300 {
		n := r.Int64N(int64(len(arrivals)) + 1)
		switch r.IntN(3) {
		case 0:
			e.SeekIndex(n)
		case 1:
			e.SeekIndex(n)
			if e.StepBack() {
				n--
			}
		case 2:
			e.SeekIndex(n)
			e.Step()
			e.StepBack()
		}
		if got := view(e); !reflect.DeepEqual(got, want[n]) {
			t.Fatalf("at position %d after jumping:\n got %+v\nwant %+v", n, got, want[n])
		}
		if !slices.Equal(e.History().AppendMarks(nil), marks[:n]) {
			t.Fatalf("history at position %d differs from a straight run", n)
		}
	}
}

// A run split at any instant and resumed gives the same records.
func TestSplitAndResume(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	arrivals := randomArrivals(r, 2000, 3)
	whole := newEngine(t, arrivals, 5, 50*time.Millisecond, Options{})
	var want []bool
	for rec, ok := whole.Step(); ok; rec, ok = whole.Step() {
		for _, d := range rec.Decisions {
			want = append(want, d.Allowed)
		}
	}
	for range 20 {
		split := arrivals[r.IntN(len(arrivals))].At
		e := newEngine(t, arrivals, 5, 50*time.Millisecond, Options{})
		e.Seek(split - 1)
		e.Seek(split + 500)
		e.Seek(split - 200) // back across the split
		var got []bool
		e.SeekIndex(0)
		for rec, ok := e.Step(); ok; rec, ok = e.Step() {
			for _, d := range rec.Decisions {
				got = append(got, d.Allowed)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %v: decisions differ from an unbroken run", split)
		}
	}
}

func TestMemoryFallsWithTheClock(t *testing.T) {
	e := newEngine(t, burst(algo.Clock(12, 0, 10, 0), 5, "ann"), 10, time.Minute, Options{})
	e.RunToEnd()
	for _, s := range e.Stats() {
		if s.Memory.Clients != 1 {
			t.Fatalf("%v holds %d clients right after the burst, want 1", s.Kind, s.Memory.Clients)
		}
	}
	e.Seek(algo.Clock(12, 2, 0, 0)) // two windows on: nothing can matter any more
	for _, s := range e.Stats() {
		if s.Memory != (algo.Memory{}) {
			t.Errorf("%v still holds %+v two windows later", s.Kind, s.Memory)
		}
		if s.PeakMemory.Entries == 0 {
			t.Errorf("%v lost its peak memory", s.Kind)
		}
	}
}

func TestNewRejectsMixedConfigurations(t *testing.T) {
	a, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 1, Window: time.Second})
	b, _ := algo.New(algo.KindSlidingLog, algo.Config{Limit: 1, Window: time.Minute})
	if _, err := New(NewSliceSource(nil), []algo.Limiter{a, b}, Options{}); err == nil {
		t.Fatal("New accepted limiters with different windows")
	}
	if _, err := New(NewSliceSource(nil), nil, Options{}); err == nil {
		t.Fatal("New accepted no limiters")
	}
	c, _ := algo.New(algo.KindSlidingLog, algo.Config{Limit: 2, Window: time.Second})
	if _, err := New(NewSliceSource(nil), []algo.Limiter{a, c}, Options{}); err == nil {
		t.Fatal("New accepted limiters with different limits")
	}
	// Presets differ only in their rules, which are each limiter's own.
	upstash, _ := algo.ParseAlgorithm("sliding-counter/upstash")
	d, _ := upstash.New(algo.Config{Limit: 1, Window: time.Second, NoExpiry: true})
	f, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 1, Window: time.Second, NoExpiry: true})
	e, err := New(NewSliceSource(nil), []algo.Limiter{f, d}, Options{})
	if err != nil {
		t.Fatalf("New rejected a preset beside the lesson's rules: %v", err)
	}
	if want := (algo.Config{Limit: 1, Window: time.Second, NoExpiry: true}); e.Config() != want {
		t.Errorf("Config() = %+v, want %+v", e.Config(), want)
	}
}

func BenchmarkStep(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	arrivals := randomArrivals(r, 1<<16, 5)
	e := newEngine(b, arrivals, 50, time.Second, Options{})
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, ok := e.Step(); !ok {
			b.StopTimer()
			e.SeekIndex(0)
			b.StartTimer()
		}
	}
}

func BenchmarkSeekBack(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	arrivals := randomArrivals(r, 1_000_000, 5)
	e := newEngine(b, arrivals, 50, time.Second, Options{History: true})
	e.RunToEnd()
	b.ResetTimer()
	for i := range b.N {
		e.SeekIndex(int64(len(arrivals)) - 1 - int64(i*7919)%int64(len(arrivals)))
	}
}

// A replay whose state grows with every request (a limit nothing reaches)
// keeps its checkpoints within the byte budget, and stepping back from far
// along is still exact.
func TestCheckpointsKeepToTheirBudget(t *testing.T) {
	arrivals := make([]Arrival, 20_000)
	for i := range arrivals {
		arrivals[i] = Arrival{At: algo.Instant(i), Client: "ann"}
	}
	straight := newEngine(t, arrivals, 1_000_000, time.Hour, Options{})
	straight.SeekIndex(2_345)
	want := view(straight)

	const budget = 200_000 // bytes: a few checkpoints of a log of thousands of timestamps
	e := newEngine(t, arrivals, 1_000_000, time.Hour, Options{CheckpointBytes: budget})
	e.RunToEnd()
	if got := e.checkpointBytes(); got > budget {
		t.Fatalf("checkpoints hold %d bytes, budget %d", got, budget)
	}
	if len(e.checkpoints) < 2 {
		t.Fatalf("only %d checkpoints kept: the budget should thin them, not drop them all", len(e.checkpoints))
	}
	e.SeekIndex(2_345)
	if got := view(e); !reflect.DeepEqual(got, want) {
		t.Fatalf("after seeking back within a thinned set of checkpoints:\n got %+v\nwant %+v", got, want)
	}
}

// Long work stops when Options.Interrupt says so, leaves the engine at a
// position as good as any, and the same work resumed gives the same result.
func TestInterruptStopsLongWork(t *testing.T) {
	arrivals := burst(algo.Clock(12, 0, 0, 0), 100_000, "a")
	arrivals = append(arrivals, burst(algo.Clock(12, 5, 0, 0), 1, "a")...)
	stop := false
	asked := 0
	e := newEngine(t, arrivals, 10, time.Minute, Options{Interrupt: func(int64) bool { asked++; return stop }})
	ref := newEngine(t, arrivals, 10, time.Minute, Options{})
	ref.RunToEnd()

	stop = true
	if e.LastArrival(); !e.Interrupted() {
		t.Error("LastArrival ran to the end although asked to stop")
	}
	e.Seek(algo.Clock(12, 5, 0, 0))
	if !e.Interrupted() || e.Processed() == 0 || e.Processed() >= int64(len(arrivals)) {
		t.Fatalf("Seek interrupted at %d of %d (interrupted %v)", e.Processed(), len(arrivals), e.Interrupted())
	}
	if e.Now() != algo.Clock(12, 0, 0, 0) {
		t.Errorf("an interrupted seek leaves the clock at %v, not at the last decision", e.Now())
	}
	e.RunToEnd()
	if !e.Interrupted() {
		t.Error("RunToEnd ran to the end although asked to stop")
	}
	stop = false
	e.RunToEnd()
	if e.Interrupted() || !reflect.DeepEqual(e.Stats(), ref.Stats()) {
		t.Errorf("resumed: interrupted %v, stats %+v, want %+v", e.Interrupted(), e.Stats(), ref.Stats())
	}
	if got := e.LastArrival(); got != algo.Clock(12, 5, 0, 0) || e.Interrupted() {
		t.Errorf("LastArrival = %v after an interrupted try", got)
	}
	if asked == 0 {
		t.Error("Interrupt was never asked")
	}
}

func TestSeekBeforeLeavesTheInstantToCome(t *testing.T) {
	at := algo.Clock(12, 1, 0, 0)
	arrivals := append(burst(algo.Clock(12, 0, 59, 0), 3, "a"), burst(at, 2, "b")...)
	e := newEngine(t, arrivals, 100, time.Minute, Options{})
	for _, from := range []func(){func() {}, e.RunToEnd, func() { e.Seek(at - 500) }} {
		from()
		e.SeekBefore(at)
		if e.Processed() != 3 || e.Now() != at {
			t.Fatalf("SeekBefore(12:01:00): %d decided at %v, want 3 at 12:01:00", e.Processed(), e.Now())
		}
		if next, ok := e.Next(); !ok || next.At != at {
			t.Fatalf("SeekBefore(12:01:00): next arrival %v, want one at 12:01:00", next.At)
		}
		if r, _ := e.Step(); r.Arrival.At != at || r.Index != 3 || e.Now() != at {
			t.Fatalf("a step after SeekBefore decided #%d at %v, want #3 at 12:01:00", r.Index, r.Arrival.At)
		}
	}
}

// AnyLimits lets limits and bursts differ, nothing else; each limiter then
// decides and counts exactly as in an engine of its own setting.
func TestAnyLimitsSharesOnlyTheWindow(t *testing.T) {
	a, _ := algo.New(algo.KindFixedWindow, algo.Config{Limit: 1, Window: time.Second})
	b, _ := algo.New(algo.KindTokenBucket, algo.Config{Limit: 5, Burst: 9, Window: time.Second})
	if _, err := New(NewSliceSource(nil), []algo.Limiter{a, b}, Options{}); err == nil {
		t.Fatal("New accepted different limits without AnyLimits")
	}
	e, err := New(NewSliceSource(nil), []algo.Limiter{a, b}, Options{AnyLimits: true})
	if err != nil {
		t.Fatalf("AnyLimits refused different limits and bursts: %v", err)
	}
	if e.Config().Limit != 1 {
		t.Errorf("Config() = %+v, want the first limiter's", e.Config())
	}
	for _, c := range []algo.Config{
		{Limit: 2, Window: time.Minute},
		{Limit: 2, Window: time.Second, Offset: 500 * time.Millisecond},
		{Limit: 2, Window: time.Second, NoExpiry: true},
	} {
		d, _ := algo.New(algo.KindFixedWindow, c)
		if _, err := New(NewSliceSource(nil), []algo.Limiter{a, d}, Options{AnyLimits: true}); err == nil {
			t.Errorf("AnyLimits accepted %+v beside %+v", c, a.Config())
		}
	}

	r := rand.New(rand.NewPCG(7, 8))
	arrivals := randomArrivals(r, 20000, 5)
	limits := []int64{3, 20, 7}
	var all []algo.Limiter
	for _, lim := range limits {
		all = append(all, lessonLimiters(t, lim, 10*time.Second)...)
	}
	together, err := New(NewSliceSource(arrivals), all, Options{ForwardOnly: true, AnyLimits: true})
	if err != nil {
		t.Fatal(err)
	}
	together.RunToEnd()
	got := together.Stats()
	for i, lim := range limits {
		alone := newEngine(t, arrivals, lim, 10*time.Second, Options{ForwardOnly: true})
		alone.RunToEnd()
		n := len(algo.Lesson)
		if want := alone.Stats(); !reflect.DeepEqual(got[i*n:(i+1)*n], want) {
			t.Errorf("limit %d: together %+v\nalone %+v", lim, got[i*n:(i+1)*n], want)
		}
	}
}
