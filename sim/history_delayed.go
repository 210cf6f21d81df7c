package sim

import "sort"

// flaggedMark is an arrival some limiter flagged: admitted but delayed
// (nginx limit_req's third outcome, algo.Decision.Delay), or decided
// without its store (history_storeless.go). Its index, and in
// Mark.Allowed a bit for each limiter that flagged it. The history keeps
// them apart, in order, since they are few or none: a scenario without
// such a limiter holds nothing more.
type flaggedMark struct {
	index int64
	Mark
}

// flagged are the arrivals of a history one kind of flag marks, in order.
type flagged []flaggedMark

// add records that the arrival just added to h (add) was flagged by the
// limiters in m.Allowed; recorded before, it is the same then as now.
func (f *flagged) add(h *History, m Mark) {
	i := h.n - 1
	if n := len(*f); n > 0 && (*f)[n-1].index >= i {
		return
	}
	*f = append(*f, flaggedMark{i, m})
}

// count adds to out[k] how many of the arrivals from index from to before
// to limiter k flagged: of the client numbered id, or with id below 0 of
// every client.
func (f flagged) count(h *History, from, to int64, id int32, out []int64) {
	to = min(to, h.n)
	i := sort.Search(len(f), func(i int) bool { return f[i].index >= from })
	for ; i < len(f) && f[i].index < to; i++ {
		d := f[i]
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

// any reports whether a limiter flagged an arrival h holds now.
func (f flagged) any(h *History) bool { return len(f) > 0 && f[0].index < h.n }

// bits has bit k set when limiter k flagged any of the arrivals from
// index from to before to.
func (f flagged) bits(h *History, from, to int64) uint32 {
	to = min(to, h.n)
	var bits uint32
	i := sort.Search(len(f), func(i int) bool { return f[i].index >= from })
	for ; i < len(f) && f[i].index < to; i++ {
		bits |= f[i].Allowed
	}
	return bits
}

// addDelayed records that the arrival just added (add) was delayed by
// the limiters in m.Allowed.
func (h *History) addDelayed(m Mark) { h.delayed.add(h, m) }

// Delayed adds to out[k] how many of the arrivals from index from to
// before to limiter k delayed: of the client numbered id, or with id
// below 0 of every client.
func (h *History) Delayed(from, to int64, id int32, out []int64) {
	h.delayed.count(h, from, to, id, out)
}

// HasDelays reports whether any limiter delayed an arrival the history
// holds now.
func (h *History) HasDelays() bool { return h.delayed.any(h) }

// DelayedBits has bit k set when limiter k delayed any of the arrivals
// from index from to before to.
func (h *History) DelayedBits(from, to int64) uint32 { return h.delayed.bits(h, from, to) }
