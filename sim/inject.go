package sim

import (
	"errors"
	"fmt"
	"slices"

	"windowlab/algo"
)

// Traffic added at the clock: a student presses a key and a request arrives
// now. Inject adds arrivals to the engine's stream without replaying it: the
// decided arrivals stay decided, and the added ones are merged ahead of the
// source's later arrivals, so stepping forward decides them as it decides
// any other. The merged stream is the one a scenario file gives when the
// same arrivals are appended to its traffic list: by instant, and at one
// instant the source's arrivals first, then the added ones in the order
// they were added. Checkpoints share the added arrivals, so stepping back
// and forward replays them exactly.

// ErrInjectPast is Inject's error for an arrival before the clock.
var ErrInjectPast = errors.New("an added request cannot come before the clock")

// Added is Count requests of one client at one instant: what one key adds,
// kept as one entry however large the burst.
type Added struct {
	At     algo.Instant
	Client string
	Count  int64
}

// added is the runs added to one engine, shared by its source and every
// checkpoint's copy of it, sorted by (instant, order added).
type added struct {
	items []addedRun
	seq   int64 // the next run's order
	total int64 // requests in all runs
}

type addedRun struct {
	a   Arrival
	n   int64 // requests
	seq int64
}

// pos is a position in the added runs: run i, request k of it.
type pos struct {
	i int
	k int64
}

func (p pos) before(q pos) bool { return p.i < q.i || (p.i == q.i && p.k < q.k) }

// mergeSource merges a source with the added arrivals.
type mergeSource struct {
	base     Source
	look     [2]Arrival // base arrivals read ahead, look[0] first
	nlook    int
	baseDone bool
	added    *added
	ai       pos  // the next added request
	fromAdd  bool // the last arrival Next returned was an added one
	returned bool // Next's last call returned an arrival (unread may undo it)
}

func (s *mergeSource) head() (Arrival, bool) {
	if s.nlook == 0 && !s.baseDone {
		if a, ok := s.base.Next(); ok {
			s.look[0], s.nlook = a, 1
		} else {
			s.baseDone = true
		}
	}
	return s.look[0], s.nlook > 0
}

// Next returns the earlier of the source's and the added next arrivals,
// the source's at the same instant.
func (s *mergeSource) Next() (Arrival, bool) {
	b, hasB := s.head()
	if s.ai.i < len(s.added.items) {
		if r := &s.added.items[s.ai.i]; !hasB || r.a.At < b.At {
			if s.ai.k++; s.ai.k == r.n {
				s.ai = pos{s.ai.i + 1, 0}
			}
			s.fromAdd, s.returned = true, true
			return r.a, true
		}
	}
	if !hasB {
		s.returned = false
		return Arrival{}, false
	}
	s.look[0] = s.look[1]
	s.nlook--
	s.fromAdd, s.returned = false, true
	return b, true
}

// unread puts back the arrival Next last returned.
func (s *mergeSource) unread(a Arrival) {
	switch {
	case !s.returned:
		return
	case s.fromAdd:
		s.ai = s.ai.back(s.added)
	default:
		s.look[1], s.look[0] = s.look[0], a
		s.nlook++
	}
	s.returned = false
}

func (s *mergeSource) Clone() Source {
	c := *s
	c.base = s.base.Clone()
	return &c
}

// back is the position before p.
func (p pos) back(a *added) pos {
	if p.k > 0 {
		return pos{p.i, p.k - 1}
	}
	return pos{p.i - 1, a.items[p.i-1].n - 1}
}

func (s *mergeSource) Len() int64 { return s.base.Len() + s.added.total }

// decidedAdded is the position in the added runs of the engine position
// whose next arrival (hasNext) this source last returned: what lies before
// it is decided.
func (s *mergeSource) decidedAdded(hasNext bool) pos {
	if hasNext && s.fromAdd && s.returned {
		return s.ai.back(s.added)
	}
	return s.ai
}

// lastBound is the source's LastBound with the added arrivals.
func (s *mergeSource) lastBound(b Bounded) (algo.Instant, bool) {
	t, exact := b.LastBound()
	if n := len(s.added.items); n > 0 {
		if a := s.added.items[n-1].a.At; a >= t {
			return a, true
		}
	}
	return t, exact
}

// bounded is the start's source as a Bounded, when its source is one.
func (e *Engine) bounded() (func() (algo.Instant, bool), bool) {
	src := e.checkpoints[0].src
	if m, ok := src.(*mergeSource); ok {
		b, ok := m.base.(Bounded)
		if !ok {
			return nil, false
		}
		return func() (algo.Instant, bool) { return m.lastBound(b) }, true
	}
	b, ok := src.(Bounded)
	if !ok {
		return nil, false
	}
	return b.LastBound, true
}

// merged is the engine's source as a mergeSource, made so on the first
// injection (with every checkpoint's), so that an engine nobody adds to
// reads its source directly.
func (e *Engine) merged() *mergeSource {
	if m, ok := e.src.(*mergeSource); ok {
		return m
	}
	shared := &added{}
	wrap := func(src Source) *mergeSource { return &mergeSource{base: src, added: shared, returned: true} }
	for i := range e.checkpoints {
		cp := &e.checkpoints[i]
		m := wrap(cp.src)
		m.returned = cp.hasNext
		cp.src = m
	}
	e.fillNames() // a merge reads its source whole (not Named)
	m := wrap(e.src)
	m.returned = e.hasNext
	e.src, e.named = m, nil
	return m
}

// reposition changes the added arrivals by change, keeping the engine's
// next arrival and every checkpoint's right: each puts its next back first
// and reads it again after. change must leave every arrival before each
// position as it was.
func (e *Engine) reposition(change func()) {
	type at struct {
		src     *mergeSource
		next    *Arrival
		hasNext *bool
	}
	all := []at{{e.src.(*mergeSource), &e.next, &e.hasNext}}
	for i := range e.checkpoints {
		cp := &e.checkpoints[i]
		all = append(all, at{cp.src.(*mergeSource), &cp.next, &cp.hasNext})
	}
	for _, p := range all {
		if *p.hasNext {
			p.src.unread(*p.next)
		}
	}
	change()
	for _, p := range all {
		*p.next, *p.hasNext = p.src.Next()
	}
	e.total, e.hasLastArrival = -1, false
}

// Inject adds runs of requests to the stream at or after the clock, in
// order of instant, each merged ahead of the source's arrivals after its
// instant (and behind those at it, and behind what was added before).
// Nothing is decided: stepping or seeking decides them, one decision per
// limiter each. Checkpoints past the clock (left by stepping back) are
// dropped, since they did not see the added requests; those before it stay
// exact.
func (e *Engine) Inject(runs []Added) error {
	for i, r := range runs {
		switch {
		case r.Count < 1:
			return fmt.Errorf("an added run of %d requests: give at least one", r.Count)
		case i == 0 && r.At < e.now:
			return fmt.Errorf("%w: %s is before %s", ErrInjectPast, r.At, e.now)
		case i > 0 && r.At < runs[i-1].At:
			return fmt.Errorf("added requests out of order: %s after %s", r.At, runs[i-1].At)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	m := e.merged()
	e.dropCheckpointsAfter(e.n)
	e.reposition(func() {
		for _, r := range runs {
			items := m.added.items
			i, _ := slices.BinarySearchFunc(items, r.At, func(x addedRun, t algo.Instant) int {
				if x.a.At <= t {
					return -1
				}
				return 1
			})
			run := addedRun{a: Arrival{At: r.At, Client: r.Client}, n: r.Count, seq: m.added.seq}
			m.added.items = slices.Insert(items, i, run)
			m.added.seq++
			m.added.total += r.Count
		}
	})
	return nil
}

// Injected is how many runs Inject has added, less those Uninject took
// away, and the requests they hold.
func (e *Engine) Injected() (runs int, requests int64) {
	if m, ok := e.src.(*mergeSource); ok {
		return len(m.added.items), m.added.total
	}
	return 0, 0
}

// Uninject takes away the last n runs Inject added and puts the engine
// where it would stand without them: the same clock, and every other
// arrival it had decided decided again, exactly, from the last checkpoint
// before the first of them.
func (e *Engine) Uninject(n int) error {
	if n <= 0 {
		return nil
	}
	m, ok := e.src.(*mergeSource)
	if !ok || n > len(m.added.items) {
		runs, _ := e.Injected()
		return fmt.Errorf("there are %d added runs, not %d to take away", runs, n)
	}
	cut := m.added.seq - int64(n)
	first := pos{len(m.added.items), 0}
	var decided, removed int64
	live := m.decidedAdded(e.hasNext)
	for i, x := range m.added.items {
		if x.seq < cut {
			continue
		}
		if i < first.i {
			first = pos{i, 0}
		}
		removed += x.n
		switch {
		case i < live.i:
			decided += x.n
		case i == live.i:
			decided += live.k
		}
	}
	target, now := e.n-decided, e.now
	// The last checkpoint that decided none of them.
	j := len(e.checkpoints) - 1
	for j > 0 && first.before(e.checkpoints[j].src.(*mergeSource).decidedAdded(e.checkpoints[j].hasNext)) {
		j--
	}
	e.dropCheckpointsAfter(e.checkpoints[j].n)
	e.checkpoints = e.checkpoints[:j+1]
	e.reposition(func() {
		m.added.items = slices.DeleteFunc(m.added.items, func(x addedRun) bool { return x.seq >= cut })
		m.added.seq, m.added.total = cut, m.added.total-removed
	})
	e.restore(&e.checkpoints[j])
	e.SeekIndex(target)
	e.now = max(e.now, now)
	return nil
}

// dropCheckpointsAfter drops the checkpoints past position n.
func (e *Engine) dropCheckpointsAfter(n int64) {
	k := len(e.checkpoints)
	for k > 1 && e.checkpoints[k-1].n > n {
		k--
	}
	clear(e.checkpoints[k:])
	e.checkpoints = e.checkpoints[:k]
	e.budgetSpent = false
}
