package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"windowlab/algo"
)

// outage is a limiter on a store that does not answer from from to
// before to: there it admits without the store (a policy's decision) and
// counts it, as redisstore's limiters under --on-store-error do.
type outage struct {
	algo.Limiter
	from, to algo.Instant
	without  int64
	policy   bool
}

func (o *outage) Allow(t algo.Instant, client string) algo.Decision {
	if t >= o.from && t < o.to {
		o.without++
		d := o.Peek(t, client)
		d.Allowed = true
		return d
	}
	return o.Limiter.Allow(t, client)
}

func (o *outage) Clone() algo.Limiter {
	c := *o
	c.Limiter = o.Limiter.Clone()
	return &c
}

func (o *outage) DecidedWithoutStore() (int64, bool) { return o.without, o.policy }

// The engine marks each decision a limiter made without its store: on
// the record, in its figures and in the history, which counts them in
// any span as a brute force over the arrivals does; stepping back and
// forth gives the same; a limiter with no policy (never without its
// store) and an ordinary one are never marked.
func TestDecisionsWithoutTheStoreAreMarked(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var arrivals []Arrival
	at := algo.Clock(12, 0, 0, 0)
	for range 3000 {
		at += algo.Instant(rng.IntN(40))
		arrivals = append(arrivals, Arrival{At: at, Client: fmt.Sprintf("c%d", rng.IntN(5))})
	}
	from, to := arrivals[700].At, arrivals[1900].At
	cfg := algo.Config{Limit: 5, Window: time.Second}
	mk := func(policy bool) algo.Limiter {
		l, _ := algo.New(algo.KindFixedWindow, cfg)
		return &outage{Limiter: l, from: from, to: to, policy: policy}
	}
	plain, _ := algo.New(algo.KindSlidingLog, cfg)
	e, err := New(NewSliceSource(arrivals), []algo.Limiter{plain, mk(true), mk(false)}, Options{History: true, Start: algo.Clock(12, 0, 0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	without := func(i int) bool { return arrivals[i].At >= from && arrivals[i].At < to }
	want := int64(0)
	for i := range arrivals {
		r, _ := e.Step()
		wantBits := uint32(0)
		if without(i) {
			wantBits, want = 1<<1, want+1
		}
		if r.WithoutStore != wantBits {
			t.Fatalf("arrival %d at %s: marked %b, want %b", i, arrivals[i].At, r.WithoutStore, wantBits)
		}
	}
	check := func(when string) {
		t.Helper()
		st := e.Stats()
		if st[0].WithoutStore != 0 || st[1].WithoutStore != want || st[2].WithoutStore != 0 || want == 0 {
			t.Errorf("%s: counted %d, %d, %d without the store; want 0, %d, 0", when, st[0].WithoutStore, st[1].WithoutStore, st[2].WithoutStore, want)
		}
		h := e.History()
		if !h.HasWithoutStore() {
			t.Errorf("%s: the history holds none", when)
		}
		for range 200 {
			a := rng.Int64N(int64(len(arrivals)))
			b := a + rng.Int64N(int64(len(arrivals))-a+1)
			id := int32(rng.IntN(6)) - 1
			var brute int64
			for i := a; i < b; i++ {
				if without(int(i)) && (id < 0 || e.Clients()[id] == arrivals[i].Client) {
					brute++
				}
			}
			out := make([]int64, 3)
			h.WithoutStore(a, b, id, out)
			if out[0] != 0 || out[1] != brute || out[2] != 0 {
				t.Fatalf("%s: arrivals %d to %d of client %d: counted %v, want [0 %d 0]", when, a, b, id, out, brute)
			}
			if bits := h.WithoutStoreBits(a, b); id < 0 && bits != map[bool]uint32{true: 1 << 1}[brute > 0] {
				t.Fatalf("%s: arrivals %d to %d: bits %b with %d without the store", when, a, b, bits, brute)
			}
		}
	}
	check("at the end")
	e.SeekIndex(500)
	if e.History().HasWithoutStore() || e.Stats()[1].WithoutStore != 0 {
		t.Errorf("stepped back before the outage: the history still holds %v, counted %d", e.History().HasWithoutStore(), e.Stats()[1].WithoutStore)
	}
	e.SeekIndex(1000)
	if r, _ := e.Last(); r.WithoutStore != 1<<1 || e.Stats()[1].WithoutStore != 1000-700 {
		t.Errorf("stepped into the outage: last marked %b, counted %d, want 10 and 300", r.WithoutStore, e.Stats()[1].WithoutStore)
	}
	e.RunToEnd()
	check("run again to the end")
}

// A sliding log on a store under a policy admits, while the store does
// not answer, requests its log never holds: the most admitted in a
// window counts what was admitted (20 in one instant), not the log's
// count plus one.
func TestMostInAWindowCountsWhatAPolicyAdmitted(t *testing.T) {
	log, _ := algo.New(algo.KindSlidingLog, algo.Config{Limit: 5, Window: time.Second})
	at := algo.Clock(12, 0, 0, 0)
	down := &outage{Limiter: log, from: at, to: at + 1, policy: true}
	e, err := New(NewSliceSource(burst(at, 20, "alice")), []algo.Limiter{down}, Options{Start: at})
	if err != nil {
		t.Fatal(err)
	}
	e.RunToEnd()
	if s := e.Stats()[0]; s.Allowed != 20 || s.MaxInWindow != 20 {
		t.Errorf("allowed %d, most in a window %d; want 20 and 20", s.Allowed, s.MaxInWindow)
	}
}
