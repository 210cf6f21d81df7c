package lab

import (
	"container/heap"
	"fmt"
	"math"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// TooBigError is a lab whose judges would not fit windowlab's memory
// budget: the busiest sources, decided at once by the workers, would hold
// too many distinct instants in one window. It is found once the sources'
// rates are drawn, before any request is decided.
type TooBigError struct {
	Estimate int64 // bytes in all
	Instants int64 // distinct instants the busiest source holds in one window, at most
	Window   time.Duration
	Workers  int
}

func (e *TooBigError) Error() string {
	workers, fewer := "", ""
	if e.Workers > 1 {
		workers = fmt.Sprintf(", and %s decide sources at once", human.Noun{One: "worker", Many: "workers"}.Of(int64(e.Workers)))
		fewer = ", or fewer --workers"
	}
	return fmt.Sprintf("the lab would need about %s, more than the %s that windowlab's memory budget of %s leaves for its data: its busiest source holds up to %s distinct instants in one %s window%s; use a shorter --window, a lower --limit or --median%s",
		human.MiB(e.Estimate), human.MiB(algo.BudgetLive), human.MiB(algo.MemoryBudget), human.Int(e.Instants), human.Duration(e.Window), workers, fewer)
}

// footprint bounds what the lab holds at once: the plan's arrays (16 bytes
// a source, and 20 more while the requests are apportioned) and, for the
// busiest sources one per worker, what a judge keeps of a window: the
// ring of every request (unless the log holds them all) and the log's,
// runs of one instant of algo.RingRunBytes each, in rings up to twice the
// runs they hold, or past algo.RingMaxRuns the runs packed as varints (and
// a full ring while they move). It errs high.
func (p *plan) footprint(o Options) (bytes int64, busiest int64) {
	w := int64(o.Window / time.Millisecond)
	d := max(p.duration, 1)
	queues := 2.0
	if o.Rules.CountRejected {
		queues = 1
	}
	burst := 1.0
	if o.Model.On > 0 {
		burst = float64(o.Model.On+o.Model.Off) / float64(o.Model.On)
	}
	// The busiest sources, one per worker.
	top := &int64Heap{}
	for _, n := range p.counts {
		if top.Len() < o.Workers {
			heap.Push(top, n)
		} else if n > (*top)[0] {
			(*top)[0] = n
			heap.Fix(top, 0)
		}
	}
	f := float64(len(p.counts)) * 36
	for _, n := range *top {
		inWindow := float64(n)
		if d > w {
			inWindow = math.Min(float64(n), math.Ceil(float64(n)*float64(w)/float64(d)*burst)+16)
		}
		distinct := math.Max(1, math.Min(inWindow, float64(min(w, d))))
		if distinct <= algo.RingMaxRuns {
			f += 2 * queues * distinct * float64(algo.RingRunBytes)
		} else { // a full ring, spilled into varint runs
			run := algo.VarintLen(int64(float64(w)/distinct)) + algo.VarintLen(int64(inWindow/distinct))
			f += queues * (2*algo.RingMaxRuns*float64(algo.RingRunBytes) + 1.5*distinct*float64(run))
		}
		busiest = max(busiest, int64(distinct))
	}
	return int64(math.Min(f, math.MaxInt64/2)), busiest
}

type int64Heap []int64

func (h int64Heap) Len() int           { return len(h) }
func (h int64Heap) Less(i, j int) bool { return h[i] < h[j] }
func (h int64Heap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *int64Heap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *int64Heap) Pop() any          { old := *h; x := old[len(old)-1]; *h = old[:len(old)-1]; return x }
