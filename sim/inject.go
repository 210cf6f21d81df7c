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

// added is the arrivals added to one engine, shared by its source and every
// checkpoint's copy of it, sorted by (instant, order added).
type added struct {
	items []addedArrival
	seq   int64 // the next arrival's order
}

type addedArrival struct {
	a   Arrival
	seq int64
}

// mergeSource merges a source with the added arrivals.
type mergeSource struct {
	base     Source
	look     [2]Arrival // base arrivals read ahead, look[0] first
	nlook    int
	baseDone bool
	added    *added
	ai       int  // the next added arrival's index
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
	if s.ai < len(s.added.items) {
		if x := s.added.items[s.ai].a; !hasB || x.At < b.At {
			s.ai++
			s.fromAdd, s.returned = true, true
			return x, true
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
		s.ai--
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

func (s *mergeSource) Len() int64 { return s.base.Len() + int64(len(s.added.items)) }

// decidedAdded is how many added arrivals lie before the engine position
// whose next arrival (hasNext) this source last returned.
func (s *mergeSource) decidedAdded(hasNext bool) int {
	if hasNext && s.fromAdd && s.returned {
		return s.ai - 1
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
	m := wrap(e.src)
	m.returned = e.hasNext
	e.src = m
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

// Inject adds arrivals to the stream at or after the clock, in order of
// instant, each merged ahead of the source's arrivals after its instant
// (and behind those at it, and behind what was added before). Nothing is
// decided: stepping or seeking decides them, one decision per limiter each.
// Checkpoints past the clock (left by stepping back) are dropped, since
// they did not see the added arrivals; those before it stay exact.
func (e *Engine) Inject(arrivals []Arrival) error {
	if len(arrivals) == 0 {
		return nil
	}
	if arrivals[0].At < e.now {
		return fmt.Errorf("%w: %s is before %s", ErrInjectPast, arrivals[0].At, e.now)
	}
	for i := 1; i < len(arrivals); i++ {
		if arrivals[i].At < arrivals[i-1].At {
			return fmt.Errorf("added requests out of order: %s after %s", arrivals[i].At, arrivals[i-1].At)
		}
	}
	m := e.merged()
	e.dropCheckpointsAfter(e.n)
	e.reposition(func() {
		for _, a := range arrivals {
			a.Number = 0 // the source's numbering does not know the added clients
			items := m.added.items
			i, _ := slices.BinarySearchFunc(items, a.At, func(x addedArrival, t algo.Instant) int {
				if x.a.At <= t {
					return -1
				}
				return 1
			})
			m.added.items = slices.Insert(items, i, addedArrival{a: a, seq: m.added.seq})
			m.added.seq++
		}
	})
	return nil
}

// Injected is how many arrivals Inject has added, less those Uninject took
// away.
func (e *Engine) Injected() int {
	if m, ok := e.src.(*mergeSource); ok {
		return len(m.added.items)
	}
	return 0
}

// Uninject takes away the last n arrivals Inject added and puts the engine
// where it would stand without them: the same clock, and every other
// arrival it had decided decided again, exactly, from the last checkpoint
// before the first of them.
func (e *Engine) Uninject(n int) error {
	if n <= 0 {
		return nil
	}
	m, ok := e.src.(*mergeSource)
	if !ok || n > len(m.added.items) {
		return fmt.Errorf("there are %d added requests, not %d to take away", e.Injected(), n)
	}
	cut := m.added.seq - int64(n)
	first, decided := len(m.added.items), 0
	liveDecided := m.decidedAdded(e.hasNext)
	for i, x := range m.added.items {
		if x.seq >= cut {
			first = min(first, i)
			if i < liveDecided {
				decided++
			}
		}
	}
	target, now := e.n-int64(decided), e.now
	// The last checkpoint that decided none of them.
	j := len(e.checkpoints) - 1
	for j > 0 && e.checkpoints[j].src.(*mergeSource).decidedAdded(e.checkpoints[j].hasNext) > first {
		j--
	}
	e.checkpoints = e.checkpoints[:j+1]
	e.budgetSpent = false
	e.reposition(func() {
		m.added.items = slices.DeleteFunc(m.added.items, func(x addedArrival) bool { return x.seq >= cut })
		m.added.seq = cut
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
