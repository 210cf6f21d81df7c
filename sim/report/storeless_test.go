package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// storeDown is a limiter on a store that does not answer from the
// (from+1)th of its decisions on, under a policy: from there it decides
// as the policy says, without the store, and counts it (redisstore's
// limiters under --on-store-error allow or deny).
type storeDown struct {
	algo.Limiter
	from, n int
	allow   bool
	without int64
}

func (l *storeDown) Allow(t algo.Instant, client string) algo.Decision {
	d := l.Limiter.Allow(t, client)
	if l.n++; l.n > l.from {
		l.without++
		d.Allowed = l.allow
	}
	return d
}

func (l *storeDown) Clone() algo.Limiter {
	c := *l
	c.Limiter = l.Limiter.Clone()
	return &c
}

func (l *storeDown) DecidedWithoutStore() (int64, bool) { return l.without, true }

// The boundary burst with its store gone after the 150th request, under
// deny and under allow: the trace's last 50 requests are the policy's, in
// their own words and with no code, the first 150 the trace without a
// store, line for line; the JSON marks the same 50 without_store.
func TestTraceOfDecisionsWithoutTheStore(t *testing.T) {
	plainTrace := func(code bool) string {
		var out bytes.Buffer
		if err := text(&out, Header{Name: "b"}, boundaryBurst(t), true, code); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	for _, allow := range []bool{false, true} {
		for _, code := range []bool{false, true} {
			e := boundaryBurst(t)
			ls := e.Limiters()
			down := make([]algo.Limiter, len(ls))
			for i, l := range ls {
				down[i] = &storeDown{Limiter: l.Clone(), from: 150, allow: allow}
			}
			e, err := sim.New(sim.NewSliceSource(arrivalsOf(t)), down, sim.Options{ForwardOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := text(&out, Header{Name: "b"}, e, true, code); err != nil {
				t.Fatal(err)
			}
			got, want := out.String(), plainTrace(code)
			cut := strings.Index(want, "#151 ")
			if got[:cut] != want[:cut] {
				t.Fatalf("allow %v, code %v: the first 150 requests differ from the trace without a store", allow, code)
			}
			words := "◌ deny: decided without the store (--on-store-error deny): Redis did not answer"
			if allow {
				words = "◌ allow: decided without the store (--on-store-error allow): Redis did not answer"
			}
			trace, _, _ := strings.Cut(got[cut:], "\n\n")
			var lines int
			for l := range strings.Lines(trace) {
				if strings.HasPrefix(l, "#") {
					continue
				}
				lines++
				if !strings.HasSuffix(strings.TrimSuffix(l, "\n"), "  "+words) {
					t.Errorf("allow %v, code %v: after the store went, %q", allow, code, l)
				}
			}
			if lines != 50*len(ls) {
				t.Errorf("allow %v, code %v: %d decision lines after the store went, want %d", allow, code, lines, 50*len(ls))
			}
		}
	}
}

// arrivalsOf are the boundary burst's arrivals.
func arrivalsOf(t *testing.T) []sim.Arrival {
	var as []sim.Arrival
	e := boundaryBurst(t)
	for r, ok := e.Step(); ok; r, ok = e.Step() {
		as = append(as, r.Arrival)
	}
	return as
}

// run --json marks without_store exactly the decisions made without it
// (the 151st request's on), each the policy's verdict.
func TestJSONMarksDecisionsWithoutTheStore(t *testing.T) {
	var ls []algo.Limiter
	for _, k := range algo.Lesson {
		l, _ := algo.New(k, algo.Config{Limit: 100, Window: time.Minute})
		ls = append(ls, &storeDown{Limiter: l, from: 150, allow: true})
	}
	e, err := sim.New(sim.NewSliceSource(arrivalsOf(t)), ls, sim.Options{ForwardOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := JSON(&out, Header{Name: "b"}, e); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Requests []struct {
			Index     int64 `json:"index"`
			Decisions map[string]struct {
				Allowed      bool `json:"allowed"`
				WithoutStore bool `json:"without_store"`
			} `json:"decisions"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, q := range doc.Requests {
		for name, d := range q.Decisions {
			if d.WithoutStore != (q.Index >= 150) || (d.WithoutStore && !d.Allowed) {
				t.Errorf("#%d %s: without_store %v, allowed %v", q.Index+1, name, d.WithoutStore, d.Allowed)
			}
		}
	}
}
