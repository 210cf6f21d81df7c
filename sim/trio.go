package sim

import "windowlab/algo"

// trioRun is an engine's limiters decided by an algo.Trio, for
// Options.FiguresOnly: the lesson's three limiters of one configuration,
// or (Options.AnyLimits, a sweep's pass) of several that differ in their
// limit only, from one record a client while they agree.
//
// The fixed windows' and the counters' "most in one window" needs a record
// of what each admitted in the last window (admitted), a cache miss and its
// upkeep at every request, a third of the deciding. But while a client's
// limiters agree on each of its requests (all allow it or all deny it),
// each one admitted exactly what the logs hold, and the log's count is
// their figure too. So a client's record is kept only from the first
// request its limiters disagree on (split), begun then from the log's
// timestamps in the window, and dropped once nothing any of them admitted
// to the client is left in the window.
type trioRun struct {
	trio  *algo.Trio
	of    []trioPlace         // each engine limiter's place
	d     []algo.TrioDecision // each member's, for the request decided
	split []uint64            // a bit a client: its limiters disagreed in the window, and admitted holds its record
}

// trioPlace is a limiter's member of the Trio (its configuration) and its
// index in it (algo.TrioKinds).
type trioPlace struct{ trio, k int }

// newTrioRun is the Trio of limiters, numbering its clients by names,
// when opts allow them and every three limiters in turn are the lesson's
// three of one configuration, each once, in any order; nil otherwise.
func newTrioRun(limiters []algo.Limiter, opts Options, names *algo.Names) *trioRun {
	if !opts.FiguresOnly || !opts.ForwardOnly || opts.History || len(limiters) == 0 || len(limiters)%3 != 0 {
		return nil
	}
	var r trioRun
	var configs []algo.Config
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
			r.of = append(r.of, trioPlace{len(configs), k})
		}
		configs = append(configs, cfg)
	}
	var ok bool
	if r.trio, ok = algo.NewTrio(configs...); !ok || !r.trio.UseNames(names) {
		return nil
	}
	r.d = make([]algo.TrioDecision, len(configs))
	return &r
}

// isSplit reports whether the client numbered id is split: its record of
// what its limiters admitted is kept.
func (r *trioRun) isSplit(id int32) bool {
	w := int(id >> 6)
	return w < len(r.split) && r.split[w]&(1<<(id&63)) != 0
}

// setSplit marks the client numbered id split or not.
func (r *trioRun) setSplit(id int32, split bool) {
	w := int(id >> 6)
	if w >= len(r.split) {
		r.split = append(r.split, make([]uint64, w+1-len(r.split))...)
	}
	if split {
		r.split[w] |= 1 << (id & 63)
	} else {
		r.split[w] &^= 1 << (id & 63)
	}
}

// agreed reports whether every limiter allowed the request just decided,
// or every one denied it.
func (r *trioRun) agreed() bool {
	all := r.d[0].Allowed[0]
	for _, d := range r.d {
		if d.Allowed != [3]bool{all, all, all} {
			return false
		}
	}
	return true
}

// settled reports whether a split client's limiters hold nothing they
// admitted before the request at t just decided: not the record, and no
// log a timestamp but this request's. Its record is then dropped, and
// what each limiter admits is again what the logs hold.
func (e *Engine) settled(id int32, t algo.Instant) bool {
	r := e.trio
	for g := range r.d {
		held := int64(0)
		if r.d[g].Allowed[1] {
			held = 1
		}
		if r.trio.LogLen(g, id) != held {
			return false
		}
	}
	return e.admitted.idle(id, t-e.admitted.window)
}

// beginSplit starts the record of the client numbered id at the request
// at t, on which its limiters disagree: what each admitted before it in
// the window, which, as they agreed until now, is what the first Trio's
// log holds (its timestamps but this request's), admitted by all.
func (e *Engine) beginSplit(id int32, t algo.Instant) {
	r := e.trio
	r.setSplit(id, true)
	var all uint32
	for _, slot := range e.slot {
		if slot >= 0 {
			all |= 1 << slot
		}
	}
	mine := int64(0)
	if r.d[0].Allowed[1] {
		mine = 1 // the log recorded this request: its newest run counts it
	}
	for at, n := range r.trio.LogRuns(0, id) {
		if at == t { // once: a run past maxTailN is two at one instant
			n, mine = n-mine, 0
		}
		for range n {
			e.admitted.record(id, at, all)
		}
	}
}

// peak is the most the engine's limiter i held after any request
// (Stats.PeakMemory), which its Trio keeps.
func (r *trioRun) peak(i int) algo.Memory {
	p := r.of[i]
	return r.trio.Peak(p.trio, p.k)
}

// memoryAt is what the engine's limiter i holds live at t.
func (r *trioRun) memoryAt(t algo.Instant, i int) algo.Memory {
	p := r.of[i]
	return r.trio.MemoryAt(t, p.trio, p.k)
}

// stepTrio is step for an engine its Trio decides (Options.FiguresOnly):
// the same figures, from one record a client a setting (and, for a split
// client, the admitted record, as step keeps it), and of the last
// record's Decisions only Allowed.
func (e *Engine) stepTrio() {
	a := e.next
	e.now = a.At
	id := e.clientID(a)
	r := e.trio
	split := r.isSplit(id)
	var touched byte
	if split {
		touched = e.admitted.touch(id)
	}
	touched += r.trio.Touch(id)
	e.touched += touched
	r.trio.Allow(a.At, id, r.d)
	if split && e.settled(id, a.At) {
		r.setSplit(id, false)
		split = false
	}
	if !split && !r.agreed() {
		e.beginSplit(id, a.At)
		split = true
	}
	var tracked uint32
	for i, p := range r.of {
		d := &r.d[p.trio]
		s := &e.stats[i]
		allowed := d.Allowed[p.k]
		e.last.Decisions[i].Allowed = allowed
		if !allowed {
			s.Denied++
			continue
		}
		s.Allowed++
		if slot := e.slot[i]; slot >= 0 && split {
			tracked |= 1 << slot
		} else if n := d.LogCount; n > s.MaxInWindow {
			// The log's own count is its figure, and an agreeing
			// client's fixed window's and counter's.
			s.MaxInWindow, s.MaxInWindowClient = n, e.name(a)
			s.MaxInWindowFirst, s.MaxInWindowLast = r.trio.LogOldest(p.trio, id), a.At
		}
	}
	if tracked != 0 {
		e.recordAdmitted(a, id, tracked)
	}
	e.last.Index, e.last.Arrival, e.hasLast = e.n, a, true
	e.n++
	e.fetch()
}
