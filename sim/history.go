package sim

import (
	"encoding/binary"
	"iter"
	"sort"
	"unsafe"

	"windowlab/algo"
)

// History is the record of every decided arrival (Options.History), for
// timelines: the instant, the client and what each limiter said. It stores
// runs, not arrivals: consecutive arrivals with the same mark are one run,
// so a burst of fifty million at one instant from one client costs a few
// bytes, and runs are packed as varints (gap from the run before, client,
// decisions, count), about 4 to 6 bytes a run when every arrival differs,
// against 16 for a Mark. Every 64th run starts a block that records where
// it is and how many arrivals before it each limiter allowed, so counting
// the allowed in any span of arrivals, or finding the first arrival at an
// instant, is a binary search and a scan of at most two blocks.
//
// History is a pure function of how many arrivals were decided: stepping
// back shortens it without forgetting what it recorded past there.
type History struct {
	limiters  int
	data      []byte
	blocks    []histBlock
	cum       []int64 // cum[b*limiters+k]: arrivals before block b that limiter k allowed
	runs      int     // runs encoded in the last block
	lastAt    algo.Instant
	encoded   int64   // arrivals in encoded runs
	encCum    []int64 // of them, how many each limiter allowed
	tail      Mark    // the newest run, not encoded yet
	tailN     int64
	n         int64   // arrivals the history holds now, at most encoded + tailN
	delayed   flagged // the arrivals some limiter delayed (history_delayed.go)
	storeless flagged // the arrivals some limiter decided without its store (history_storeless.go)
}

// histBlock is where a block's first run is.
type histBlock struct {
	off   int
	prev  algo.Instant // the instant the first run's gap counts from
	at    algo.Instant // the first run's instant
	index int64        // arrivals before the first run
}

const histBlockRuns = 64

// Run is a span of consecutive arrivals with the same mark.
type Run struct {
	Mark
	First int64 // 0-based index of its first arrival
	N     int64 // how many arrivals
}

func newHistory(limiters int) *History {
	return &History{limiters: limiters, encCum: make([]int64, limiters)}
}

// Len is how many arrivals the history holds.
func (h *History) Len() int64 { return h.n }

// recorded is how many arrivals were ever recorded.
func (h *History) recorded() int64 { return h.encoded + h.tailN }

// Bytes is the memory the history holds, spare room included.
func (h *History) Bytes() int64 {
	return int64(cap(h.data)) + int64(cap(h.blocks))*int64(unsafe.Sizeof(histBlock{})) + int64(cap(h.cum))*8
}

// add records the next decided arrival.
func (h *History) add(m Mark) {
	if h.n < h.recorded() {
		h.n++ // recorded before, the same then as now
		return
	}
	h.n++
	if h.tailN > 0 && m == h.tail {
		h.tailN++
		return
	}
	if h.tailN > 0 {
		h.encode(h.tail, h.tailN)
	}
	h.tail, h.tailN = m, 1
}

func (h *History) encode(m Mark, count int64) {
	if len(h.data) == 0 {
		h.lastAt = m.At
	}
	if len(h.blocks) == 0 || h.runs == histBlockRuns {
		h.blocks = append(h.blocks, histBlock{off: len(h.data), prev: h.lastAt, at: m.At, index: h.encoded})
		h.cum = append(h.cum, h.encCum...)
		h.runs = 0
	}
	h.data = binary.AppendUvarint(h.data, uint64(m.At-h.lastAt))
	h.data = binary.AppendUvarint(h.data, uint64(m.Client))
	h.data = binary.AppendUvarint(h.data, uint64(m.Allowed))
	h.data = binary.AppendUvarint(h.data, uint64(count-1))
	h.runs++
	h.lastAt = m.At
	h.encoded += count
	for k := range h.encCum {
		if m.Allowed&(1<<k) != 0 {
			h.encCum[k] += count
		}
	}
}

// histIter walks the runs from a block's start, then the tail.
type histIter struct {
	h     *History
	off   int
	prev  algo.Instant
	index int64
	done  bool
}

func (h *History) from(b int) histIter {
	if b < 0 || len(h.blocks) == 0 {
		return histIter{h: h, prev: h.firstPrev()}
	}
	bl := h.blocks[b]
	return histIter{h: h, off: bl.off, prev: bl.prev, index: bl.index}
}

func (h *History) firstPrev() algo.Instant {
	if len(h.blocks) > 0 {
		return h.blocks[0].prev
	}
	return 0
}

// next is the next run; false after the last.
func (it *histIter) next() (r Run, ok bool) {
	h := it.h
	if it.off < len(h.data) {
		b := h.data[it.off:]
		gap, k := binary.Uvarint(b)
		client, k2 := binary.Uvarint(b[k:])
		allowed, k3 := binary.Uvarint(b[k+k2:])
		count, k4 := binary.Uvarint(b[k+k2+k3:])
		it.off += k + k2 + k3 + k4
		it.prev += algo.Instant(gap)
		r = Run{Mark: Mark{At: it.prev, Client: int32(client), Allowed: uint32(allowed)}, First: it.index, N: int64(count) + 1}
		it.index += r.N
		return r, true
	}
	if it.done || h.tailN == 0 {
		return Run{}, false
	}
	it.done = true
	return Run{Mark: h.tail, First: h.encoded, N: h.tailN}, true
}

// blockOf is the last block whose first run starts at or before arrival i
// (−1 when none).
func (h *History) blockOf(i int64) int {
	return sort.Search(len(h.blocks), func(b int) bool { return h.blocks[b].index > i }) - 1
}

// allowedBefore adds to out[k] how many of the first i arrivals limiter k
// allowed.
func (h *History) allowedBefore(i int64, out []int64) {
	i = min(i, h.n)
	if i >= h.encoded {
		for k := range out {
			out[k] += h.encCum[k]
			if h.tail.Allowed&(1<<k) != 0 {
				out[k] += i - h.encoded
			}
		}
		return
	}
	b := h.blockOf(i)
	if b >= 0 {
		for k := range out {
			out[k] += h.cum[b*h.limiters+k]
		}
	}
	it := h.from(b)
	for {
		r, ok := it.next()
		if !ok || r.First >= i {
			return
		}
		take := min(r.N, i-r.First)
		for k := range out {
			if r.Allowed&(1<<k) != 0 {
				out[k] += take
			}
		}
	}
}

// Allowed adds to out[k] how many of arrivals [i, j) limiter k allowed.
func (h *History) Allowed(i, j int64, out []int64) {
	if j <= i {
		return
	}
	before := make([]int64, len(out))
	h.allowedBefore(i, before)
	h.allowedBefore(j, out)
	for k := range out {
		out[k] -= before[k]
	}
}

// FirstAtOrAfter is the index of the first arrival at or after t (Len when
// none is).
func (h *History) FirstAtOrAfter(t algo.Instant) int64 {
	b := sort.Search(len(h.blocks), func(b int) bool { return h.blocks[b].at >= t }) - 1
	it := h.from(b)
	for {
		r, ok := it.next()
		if !ok || r.First >= h.n {
			return h.n
		}
		if r.At >= t {
			return r.First
		}
	}
}

// LastRuns returns up to n runs ending with the newest arrival, oldest
// first. Runs are whole: add joins equal marks, so two runs side by side
// never share one, and a block begins where a run does.
func (h *History) LastRuns(n int) []Run {
	if n <= 0 || h.n == 0 {
		return nil
	}
	end := h.blockOf(h.n - 1)
	for back := 0; ; back = max(1, 2*back) {
		b := max(end-back, -1)
		var runs []Run
		it := h.from(b)
		for {
			r, ok := it.next()
			if !ok || r.First >= h.n {
				break
			}
			r.N = min(r.N, h.n-r.First)
			runs = append(runs, r)
		}
		if len(runs) >= n || b < 0 {
			return runs[max(len(runs)-n, 0):]
		}
	}
}

// Runs yields the runs of arrivals [i, j), oldest first, cut to that span:
// the first and last may be parts of longer runs.
func (h *History) Runs(i, j int64) iter.Seq[Run] {
	return func(yield func(Run) bool) {
		j = min(j, h.n)
		if i >= j {
			return
		}
		it := h.from(h.blockOf(i))
		for {
			r, ok := it.next()
			if !ok || r.First >= j {
				return
			}
			end := min(r.First+r.N, j)
			if end <= i {
				continue
			}
			r.First = max(r.First, i)
			r.N = end - r.First
			if !yield(r) {
				return
			}
		}
	}
}

// setLen moves the history to the first n arrivals, n at most as many as
// were ever recorded. It keeps what lies beyond: history is a pure function
// of how many arrivals were decided, so when the engine steps forward again
// (or jumps to a checkpoint ahead) those records are the same.
func (h *History) setLen(n int64) { h.n = n }

// AppendMarks appends every arrival's mark to dst, oldest first: for tests
// and small histories.
func (h *History) AppendMarks(dst []Mark) []Mark {
	it := h.from(-1)
	for {
		r, ok := it.next()
		if !ok || r.First >= h.n {
			return dst
		}
		for range min(r.N, h.n-r.First) {
			dst = append(dst, r.Mark)
		}
	}
}
