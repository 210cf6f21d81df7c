package sim

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"windowlab/algo"
	"windowlab/internal/long"
)

// The history agrees with a plain slice of marks under random arrivals
// (bursts, long runs, three limiters), steps back and forward again, in
// every query the view makes.
func TestHistoryAgainstASlice(t *testing.T) {
	steps := long.N(3000, 30_000)
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 9))
		h := newHistory(3)
		var ref, full []Mark // what the history holds now, and all it recorded
		at := algo.Instant(-2000)
		for step := range steps {
			switch op := r.IntN(10); {
			case op < 7:
				if r.IntN(3) > 0 {
					at += algo.Instant(r.IntN(300))
				}
				m := Mark{At: at, Client: int32(r.IntN(3)), Allowed: uint32(r.IntN(8))}
				if len(ref) > 0 && r.IntN(2) == 0 {
					m = ref[len(ref)-1]
				}
				if len(ref) < len(full) {
					m = full[len(ref)] // recorded before: the engine decides it again the same
				}
				for k := r.IntN(4) + 1; k > 0; k-- {
					if len(ref) < len(full) {
						m = full[len(ref)]
					}
					h.add(m)
					ref = append(ref, m)
					if len(ref) > len(full) {
						full = append(full, m)
					}
				}
			case op == 7:
				n := max(0, len(ref)-r.IntN(5))
				if r.IntN(10) == 0 {
					n = r.IntN(len(ref) + 1) // far back, as a rewind does
				}
				h.setLen(int64(n))
				ref = ref[:n]
				if r.IntN(2) == 0 {
					// forward again, to where it was recorded
					n2 := min(len(full), n+r.IntN(8))
					h.setLen(int64(n2))
					ref = full[:n2]
				}
			default:
				i, j := r.IntN(len(ref)+1), r.IntN(len(ref)+1)
				i, j = min(i, j), max(i, j)
				got := make([]int64, 3)
				h.Allowed(int64(i), int64(j), got)
				want := make([]int64, 3)
				for _, m := range ref[i:j] {
					for k := range want {
						if m.Allowed&(1<<k) != 0 {
							want[k]++
						}
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d: Allowed(%d, %d) = %v, want %v", seed, step, i, j, got, want)
				}
				var marks []Mark
				next := int64(i)
				for run := range h.Runs(int64(i), int64(j)) {
					if run.First != next || run.N <= 0 {
						t.Fatalf("seed %d step %d: Runs(%d, %d) yields a run at %d of %d, want one at %d", seed, step, i, j, run.First, run.N, next)
					}
					next += run.N
					for range run.N {
						marks = append(marks, run.Mark)
					}
				}
				if !slices.Equal(marks, ref[i:j]) {
					t.Fatalf("seed %d step %d: Runs(%d, %d) = %v, want %v", seed, step, i, j, marks, ref[i:j])
				}
				q := at - algo.Instant(r.IntN(3000))
				first := sort.Search(len(ref), func(i int) bool { return ref[i].At >= q })
				if got := h.FirstAtOrAfter(q); got != int64(first) {
					t.Fatalf("seed %d step %d: FirstAtOrAfter(%d) = %d, want %d", seed, step, q, got, first)
				}
				n := r.IntN(6) + 1
				if got, want := h.LastRuns(n), lastRuns(ref, n); !slices.Equal(got, want) {
					t.Fatalf("seed %d step %d: LastRuns(%d) = %v, want %v", seed, step, n, got, want)
				}
			}
			if h.Len() != int64(len(ref)) {
				t.Fatalf("seed %d step %d: Len %d, want %d", seed, step, h.Len(), len(ref))
			}
			if step%50 == 0 && !slices.Equal(h.AppendMarks(nil), ref) {
				t.Fatalf("seed %d step %d: the marks differ", seed, step)
			}
		}
	}
}

// lastRuns is LastRuns on a slice: the last n groups of equal marks.
func lastRuns(ref []Mark, n int) []Run {
	var runs []Run
	for i, m := range ref {
		if k := len(runs) - 1; k >= 0 && runs[k].Mark == m {
			runs[k].N++
			continue
		}
		runs = append(runs, Run{Mark: m, First: int64(i), N: 1})
	}
	return runs[max(len(runs)-n, 0):]
}

// A burst of fifty million requests at one instant is one run in the
// history; arrivals that all differ cost a few bytes each, not 16.
func TestHistoryIsCompact(t *testing.T) {
	h := newHistory(3)
	n := int64(long.N(5_000_000, 50_000_000))
	for range n {
		h.add(Mark{At: 43_200_000, Allowed: 7})
	}
	h.add(Mark{At: 43_200_000, Allowed: 0})
	if h.Len() != n+1 || h.Bytes() > 1024 {
		t.Errorf("%d arrivals in %d bytes, want %d in at most 1 KiB", h.Len(), h.Bytes(), n+1)
	}
	d := newHistory(3)
	const distinct = 1_000_000
	for i := range distinct {
		d.add(Mark{At: algo.Instant(i), Client: int32(i % 10_000), Allowed: uint32(i % 8)})
	}
	if per := float64(d.Bytes()) / distinct; per > 8 {
		t.Errorf("arrivals that all differ: %.1f bytes each, want at most 8", per)
	}
}
