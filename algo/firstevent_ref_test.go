package algo

import (
	"math/big"
	"time"
)

// The reference's sliding counter with windows from the client's first
// request (WindowFirstEvent), recounted from its calls: the chain of
// window starts is walked call by call as HAProxy's update_freq_ctr_period
// walks it, and each counted request is counted in the window its call
// fell in.

// firstEventChain walks the client's calls, then (withT) a call at t, and
// numbers the windows they fell in from 0: ids[i] is call i's window,
// starts[k] where window k starts and chained[k] whether it followed
// window k − 1 back to back. The first call's window starts at its instant
// rounded down to an even ms; a later call at or after start + W moves to
// start + W, rounded down to even, unless it is also at or after that + W,
// when it starts anew at its own instant, rounded down to even. (With an
// odd W, two windows in a row can start at one instant.)
func (r *ref) firstEventChain(client string, t Instant, withT bool) (ids []int, starts []Instant, chained []bool) {
	// even is v rounded down to an even number, by the definition.
	even := func(v int64) int64 { return v - ((v%2)+2)%2 }
	var start int64
	step := func(at Instant) {
		u := int64(at)
		back := false
		switch n := len(starts); {
		case n == 0:
			start = even(u)
		case u-start < r.w: // the same window
			ids = append(ids, n-1)
			return
		case u-(start+r.w) >= r.w: // two windows or more: anew
			start = even(u)
		default: // the next, back to back
			start, back = even(start+r.w), true
		}
		ids = append(ids, len(starts))
		starts = append(starts, Instant(start))
		chained = append(chained, back)
	}
	for _, a := range r.calls {
		if a.client == client {
			step(a.at)
		}
	}
	if withT {
		step(t)
	}
	return ids, starts, chained
}

// countedIn counts the client's counted requests by the window their call
// fell in, ids[i] being its i-th call's.
func (r *ref) countedIn(client string, ids []int) map[int]int64 {
	in := map[int]int64{}
	i := 0
	for k, a := range r.calls {
		if a.client == client {
			if r.counts[k] {
				in[ids[i]]++
			}
			i++
		}
	}
	return in
}

// decideFirstEvent fills in the sliding counter's evidence and verdict for
// a request from client at t, windows from the client's first request.
func (r *ref) decideFirstEvent(d *Decision, client string, t Instant) {
	ids, starts, chained := r.firstEventChain(client, t, true)
	k := ids[len(ids)-1]
	in := r.countedIn(client, ids)
	d.Count = in[k]
	if chained[k] {
		d.Previous = in[k-1]
	}
	start := starts[k]
	elapsed := int64(t - start)
	d.WindowStart = start
	d.Elapsed = time.Duration(elapsed) * time.Millisecond
	est := big.NewRat(d.Previous*(r.w-elapsed), r.w)
	est.Add(est, big.NewRat(d.Count, 1))
	d.Allowed = r.admits(r.round(est))
}

// memoryFirstEvent is memory for those windows: a client's counters matter
// until two windows have passed since its window's start; with expiry off,
// two per client and every window with a count that fell out of use.
func (r *ref) memoryFirstEvent(t Instant) (clients, entries int64) {
	for client, last := range r.lastCall {
		ids, starts, chained := r.firstEventChain(client, last, false)
		k := ids[len(ids)-1]
		if !r.noExpiry {
			if int64(t-starts[k]) < 2*r.w {
				clients++
				entries += 2
			}
			continue
		}
		clients++
		entries += 2
		for id, count := range r.countedIn(client, ids) {
			if count > 0 && id != k && (!chained[k] || id != k-1) {
				entries++
			}
		}
	}
	return clients, entries
}
