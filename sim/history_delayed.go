package sim

import "sort"

// delayedMark is an arrival some limiter admitted but delayed (nginx
// limit_req's third outcome, algo.Decision.Delay): its index, and in
// Mark.Allowed a bit for each limiter that delayed it. The history keeps
// them apart, in order, since they are few or none: a scenario without a
// delaying limiter holds nothing more.
type delayedMark struct {
	index int64
	Mark
}

// addDelayed records that the arrival just added (add) was delayed by
// the limiters in m.Allowed; recorded before, it is the same then as now.
func (h *History) addDelayed(m Mark) {
	i := h.n - 1
	if n := len(h.delayed); n > 0 && h.delayed[n-1].index >= i {
		return
	}
	h.delayed = append(h.delayed, delayedMark{i, m})
}

// Delayed adds to out[k] how many of the arrivals from index from to
// before to limiter k delayed: of the client numbered id, or with id
// below 0 of every client.
func (h *History) Delayed(from, to int64, id int32, out []int64) {
	to = min(to, h.n)
	i := sort.Search(len(h.delayed), func(i int) bool { return h.delayed[i].index >= from })
	for ; i < len(h.delayed) && h.delayed[i].index < to; i++ {
		d := h.delayed[i]
		if id >= 0 && d.Client != id {
			continue
		}
		for k := range out {
			if d.Allowed&(1<<k) != 0 {
				out[k]++
			}
		}
	}
}

// HasDelays reports whether any limiter delayed an arrival the history
// holds now.
func (h *History) HasDelays() bool { return len(h.delayed) > 0 && h.delayed[0].index < h.n }

// DelayedBits has bit k set when limiter k delayed any of the arrivals
// from index from to before to.
func (h *History) DelayedBits(from, to int64) uint32 {
	to = min(to, h.n)
	var bits uint32
	i := sort.Search(len(h.delayed), func(i int) bool { return h.delayed[i].index >= from })
	for ; i < len(h.delayed) && h.delayed[i].index < to; i++ {
		bits |= h.delayed[i].Allowed
	}
	return bits
}
