package sim

import "windowlab/algo"

// checkpoint is everything needed to resume at position n.
type checkpoint struct {
	n        int64
	src      Source // positioned after next
	next     Arrival
	hasNext  bool
	limiters []algo.Limiter
	stats    []Stats
	admitted *admitted
	last     Record
	hasLast  bool
	bytes    int64 // what its copies of the state hold
}

func (e *Engine) snapshot() checkpoint {
	e.fillNames() // a checkpoint's arrivals are read without the engine's source
	cp := checkpoint{
		n:        e.n,
		src:      e.src.Clone(),
		next:     e.next,
		hasNext:  e.hasNext,
		limiters: make([]algo.Limiter, len(e.limiters)),
		stats:    append([]Stats(nil), e.stats...),
		admitted: e.admitted.clone(),
		hasLast:  e.hasLast,
		last:     e.last.clone(),
	}
	for i, l := range e.limiters {
		cp.limiters[i] = l.Clone()
	}
	return cp
}

func (e *Engine) addCheckpoint() {
	if e.budgetSpent {
		return
	}
	// What a copy would hold, known before making it: a state too big to
	// keep is never copied, not even for a moment.
	var bytes int64
	for _, l := range e.limiters {
		bytes += l.Memory().Bytes
	}
	bytes += e.admitted.bytes()
	if e.checkpointBytes()+bytes > e.budget {
		// Over the budget: keep the earlier, smaller checkpoints and add no
		// more; stepping back past them replays further instead.
		e.budgetSpent = true
		return
	}
	cp := e.snapshot()
	cp.bytes = bytes
	e.checkpoints = append(e.checkpoints, cp)
	if len(e.checkpoints) <= maxCheckpoints {
		return
	}
	e.every *= 2
	kept := e.checkpoints[:1]
	for _, cp := range e.checkpoints[1:] {
		if cp.n%e.every == 0 {
			kept = append(kept, cp)
		}
	}
	clear(e.checkpoints[len(kept):])
	e.checkpoints = kept
}

func (e *Engine) checkpointBytes() int64 {
	var n int64
	for _, cp := range e.checkpoints {
		n += cp.bytes
	}
	return n
}

// jump moves to the latest checkpoint that ok accepts (the start always
// qualifies): always when back is set, since the engine can only step
// forward, and otherwise only when that checkpoint lies ahead, to skip
// replaying what was replayed before.
func (e *Engine) jump(back bool, ok func(*checkpoint) bool) {
	i := len(e.checkpoints) - 1
	for i > 0 && !ok(&e.checkpoints[i]) {
		i--
	}
	if back || e.checkpoints[i].n > e.n {
		e.restore(&e.checkpoints[i])
	}
}

// restore resumes from cp, which stays untouched for later restores.
func (e *Engine) restore(cp *checkpoint) {
	e.n = cp.n
	e.src = cp.src.Clone()
	e.named, _ = e.src.(Named)
	for j := range e.limiters {
		e.limiters[j] = cp.limiters[j].Clone()
	}
	e.useIDs()
	if e.trio != nil { // ForwardOnly: the start is the one checkpoint
		e.trio = newTrioRun(e.limiters, e.opts, e.names)
	}
	e.admitted = cp.admitted.clone()
	copy(e.stats, cp.stats)
	e.hasLast = cp.hasLast
	e.last.Index, e.last.Arrival, e.last.WithoutStore = cp.last.Index, cp.last.Arrival, cp.last.WithoutStore
	copy(e.last.Decisions, cp.last.Decisions)
	if e.opts.History {
		e.history.setLen(e.n)
	}
	e.now = e.opts.Start
	if e.hasLast {
		e.now = e.last.Arrival.At
	}
	e.next, e.hasNext = cp.next, cp.hasNext
}

func (r Record) clone() Record {
	r.Decisions = append([]algo.Decision(nil), r.Decisions...)
	return r
}
