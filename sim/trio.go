package sim

import "windowlab/algo"

// trioRun is an engine's limiters decided a setting at a time by
// algo.Trio, for Options.FiguresOnly: the lesson's three limiters of one
// configuration, or (Options.AnyLimits, a sweep's pass) of several that
// differ in their limit only, each setting's three one after another.
type trioRun struct {
	trios []*algo.Trio
	of    []trioPlace // each engine limiter's place
	d     algo.TrioDecision
}

// trioPlace is a limiter's Trio and its index in it (algo.TrioKinds).
type trioPlace struct{ trio, k int }

// newTrioRun is the Trios of limiters, numbering their clients by names,
// when opts allow them and every three limiters in turn are the lesson's
// three of one configuration, each once, in any order; nil otherwise.
func newTrioRun(limiters []algo.Limiter, opts Options, names *algo.Names) *trioRun {
	if !opts.FiguresOnly || !opts.ForwardOnly || opts.History || len(limiters) == 0 || len(limiters)%3 != 0 {
		return nil
	}
	var r trioRun
	for g := 0; g < len(limiters); g += 3 {
		cfg := limiters[g].Config()
		seen := 0
		for _, l := range limiters[g : g+3] {
			k := -1
			for j, kind := range algo.TrioKinds {
				if algo.Of(l) == (algo.Algorithm{Kind: kind}) {
					k = j
				}
			}
			if k < 0 || seen&(1<<k) != 0 || l.Config() != cfg {
				return nil
			}
			seen |= 1 << k
			r.of = append(r.of, trioPlace{len(r.trios), k})
		}
		t, ok := algo.NewTrio(cfg)
		if !ok || !t.UseNames(names) {
			return nil
		}
		r.trios = append(r.trios, t)
	}
	return &r
}

// peak is the most the engine's limiter i held after any request
// (Stats.PeakMemory), which its Trio keeps.
func (r *trioRun) peak(i int) algo.Memory {
	p := r.of[i]
	return r.trios[p.trio].Peak(p.k)
}

// memoryAt is what the engine's limiter i holds live at t.
func (r *trioRun) memoryAt(t algo.Instant, i int) algo.Memory {
	p := r.of[i]
	return r.trios[p.trio].MemoryAt(t, p.k)
}

// stepTrio is step for an engine its Trios decide (Options.FiguresOnly):
// the same figures, from one record a client a setting (and the admitted
// record, as step keeps it), and of the last record's Decisions only
// Allowed.
func (e *Engine) stepTrio() {
	a := e.next
	e.now = a.At
	id := e.clientID(a)
	r := e.trio
	touched := e.admitted.touch(id)
	for _, t := range r.trios {
		touched += t.Touch(id)
	}
	e.touched += touched
	var tracked uint32
	for g, t := range r.trios {
		t.Allow(a.At, id, &r.d)
		for i := 3 * g; i < 3*g+3; i++ {
			k := r.of[i].k
			s := &e.stats[i]
			allowed := r.d.Allowed[k]
			e.last.Decisions[i].Allowed = allowed
			if allowed {
				s.Allowed++
				if slot := e.slot[i]; slot >= 0 {
					tracked |= 1 << slot
				} else if n := r.d.LogCount; n > s.MaxInWindow { // the log's own count is its figure
					s.MaxInWindow, s.MaxInWindowClient = n, e.name(a)
					s.MaxInWindowFirst, s.MaxInWindowLast = t.LogOldest(id), a.At
				}
			} else {
				s.Denied++
			}
		}
	}
	if tracked != 0 {
		e.recordAdmitted(a, id, tracked)
	}
	e.last.Index, e.last.Arrival, e.hasLast = e.n, a, true
	e.n++
	e.fetch()
}
