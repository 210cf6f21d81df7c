package replay

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/algo"
)

// Share is a share of clients as an exact fraction Num/Den: what
// --deny-at-most gives.
type Share struct {
	Num, Den int64
	Text     string // as the user wrote it: "0.1%"
}

// DefaultDenyAtMost is --deny-at-most's default: one client in a thousand.
const DefaultDenyAtMost = "0.1%"

// ParseShare reads a percentage from 0% to 100%, with at most six
// decimals ("0.1%", "5%", "0.0005%"), as an exact fraction; the error
// names flag.
func ParseShare(flag, s string) (Share, error) {
	bad := fmt.Errorf("%s %q: give a share of clients as a percentage from 0%% to 100%%, such as 0.1%%", flag, s)
	num, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok || num == "" {
		return Share{}, bad
	}
	whole, frac, _ := strings.Cut(num, ".")
	if whole == "" || len(whole) > 3 || len(frac) > 6 || strings.Trim(whole+frac, "0123456789") != "" {
		return Share{}, bad
	}
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return Share{}, bad
	}
	den := int64(100)
	for range len(frac) {
		den *= 10
	}
	if n > den {
		return Share{}, bad
	}
	return Share{Num: n, Den: den, Text: strings.TrimSpace(s)}, nil
}

// Meets reports whether denied of clients is at most the share, exactly.
func (s Share) Meets(denied, clients int64) bool { return denied*s.Den <= s.Num*clients }

// Peaks are each client's most requests in one window, by the client's
// number in the log less one: Sliding in any half-open interval one window
// long, (t − W, t] as a sliding log counts; Aligned in one of the
// setting's aligned (calendar) windows, as a fixed window counts; Total
// all its requests.
type Peaks struct {
	Sliding, Aligned, Total []int64
}

// Of is v (Sliding or Aligned) of the clients with a request replayed: a
// client whose every line was left out (bad, or too late) has none.
func (p Peaks) Of(v []int64) []int64 {
	var out []int64
	for c, n := range p.Total {
		if n > 0 {
			out = append(out, v[c])
		}
	}
	return out
}

// peakBytes is what Peaks hold a client, and instantsBytes a request while
// they are found (its instant, grouped by client): Memory counts both.
const (
	peakBytes     = 3*8 + 8 // the three figures, and the client's start in the grouped instants
	instantsBytes = 8
)

// FindPeaks finds every client's peaks in the log at cfg's window and
// offset: its requests' instants grouped by client (a counting sort, 8
// bytes a request, which Memory counts), then two pointers over each
// client's, which the log gives in time order.
func FindPeaks(l *accesslog.Log, cfg algo.Config) Peaks {
	n := len(l.Clients())
	start := make([]int64, n+1)
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		start[a.Number]++ // numbered from 1: start[c+1] counts client c
	}
	for c := range n {
		start[c+1] += start[c]
	}
	at := make([]algo.Instant, start[n])
	next := slices.Clone(start[:n])
	src = l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		c := a.Number - 1
		at[next[c]] = a.At
		next[c]++
	}
	p := Peaks{Sliding: make([]int64, n), Aligned: make([]int64, n), Total: make([]int64, n)}
	w := cfg.Window.Milliseconds()
	for c := range n {
		p.Sliding[c], p.Aligned[c] = peaksOf(at[start[c]:start[c+1]], w, cfg.Offset.Milliseconds())
		p.Total[c] = start[c+1] - start[c]
	}
	return p
}

// peaksOf is one client's peaks over its instants, in time order, at a
// window of w ms whose aligned edges are at o plus multiples of w.
func peaksOf(at []algo.Instant, w, o int64) (sliding, aligned int64) {
	first := 0
	var inWindow, window int64
	for i, t := range at {
		for int64(t-at[first]) >= w { // at[first] ≤ t − W has left (t − W, t]
			first++
		}
		sliding = max(sliding, int64(i-first+1))
		if win := floorDiv(int64(t)-o, w); i == 0 || win != window {
			window, inWindow = win, 0
		}
		inWindow++
		aligned = max(aligned, inWindow)
	}
	return sliding, aligned
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// Percentile is the nearest-rank percentile num/den (0.999 is 999/1000) of
// the values, which it sorts: the smallest value at least that share of
// them is at or below.
func Percentile(sorted []int64, num, den int64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := (num*int64(len(sorted)) + den - 1) / den
	return sorted[max(rank, 1)-1]
}

// Denial is what one limiter at one limit denied over the whole log.
type Denial struct {
	Algorithm algo.Algorithm
	Limit     int64
	Clients   int64 // clients denied at least once
	Requests  int64 // requests denied
}

// prober replays the log at one setting of one limiter: its row, or nil
// when ctx ended first. The log kept replays it at once (probeKept); the
// log read again for each pass asks for it in the next pass (passes).
type prober func(ctx context.Context, s Setting) ([]Outcome, error)

// probeKept replays the log kept at a setting.
func probeKept(l *accesslog.Log, decided *atomic.Int64) prober {
	return func(ctx context.Context, s Setting) ([]Outcome, error) {
		return replaySetting(ctx, l.Source(), s, decided)
	}
}

// probe replays the log at one limiter and limit: nil when ctx ended first.
func probe(ctx context.Context, run prober, cfg algo.Config, a algo.Algorithm, limit int64) (*Denial, error) {
	cfg.Limit = limit
	if _, err := a.New(cfg); err != nil {
		return nil, fmt.Errorf("limit %d for %s: %w", limit, a, err)
	}
	rows, err := run(ctx, Setting{Config: cfg, Algorithms: []algo.Algorithm{a}})
	if err != nil || rows == nil {
		return nil, err
	}
	return &Denial{Algorithm: a, Limit: limit, Clients: int64(rows[0].affected), Requests: rows[0].stats.Denied}, nil
}

// Pick is the smallest limit found for one limiter: At denies at most the
// share of clients, Below (the limit one less, nil at 1) more.
type Pick struct {
	Algorithm algo.Algorithm
	At        *Denial // nil: no limit up to the busiest client's requests meets the share
	Below     *Denial
	// Round is the smallest round limit (1, 2, 5 × 10^k) at or above At
	// that denies at most the share (recommend_round.go); nil when At is.
	Round  *Denial
	Probes int // replays of the whole log the search took
}

// search finds the smallest limit at which a denies at most share of the
// log's clients, each limit decided by replaying the whole log with the
// engine: a binary search from 1 to the busiest client's sliding peak (or,
// if that is not enough, to its most requests: a limit that admits a
// client's every request in one window), which holds because a higher
// limit never denies more clients (a fixed window denies a client exactly
// when its aligned peak passes the limit, a sliding log when its sliding
// peak does; TestRecommendIsTheSmallest checks the counter's too, and
// the limit below the one found is replayed to show it does not meet the
// share). nil when ctx ended first.
func search(ctx context.Context, run prober, cfg algo.Config, a algo.Algorithm, share Share, p Peaks) (*Pick, error) {
	clients := int64(len(p.Of(p.Total)))
	pick := &Pick{Algorithm: a}
	seen := map[int64]*Denial{}
	at := func(limit int64) (*Denial, error) {
		if d, ok := seen[limit]; ok {
			return d, nil
		}
		d, err := probe(ctx, run, cfg, a, limit)
		if d != nil {
			pick.Probes++
			seen[limit] = d
		}
		return d, err
	}
	hi := max(slices.Max(p.Sliding), 1)
	d, err := at(hi)
	if d == nil {
		return nil, err
	}
	if !share.Meets(d.Clients, clients) {
		if hi = max(slices.Max(p.Total), hi); hi > d.Limit {
			if d, err = at(hi); d == nil {
				return nil, err
			}
		}
		if !share.Meets(d.Clients, clients) {
			return pick, nil
		}
	}
	lo := int64(0) // no limit below 1; every limit in (lo, hi] is not yet ruled out, hi meets
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		d, err := at(mid)
		if d == nil {
			return nil, err
		}
		if share.Meets(d.Clients, clients) {
			hi = mid
		} else {
			lo = mid
		}
	}
	pick.At = seen[hi]
	if lo > 0 {
		pick.Below = seen[lo]
	}
	return pick, nil
}

// Recommendation is what --recommend found in the log at one window.
type Recommendation struct {
	Config     algo.Config // the window and its offset
	Algorithms []algo.Algorithm
	Share      Share
	Clients    int64 // with a request replayed
	Requests   int64
	Peaks      Peaks
	Picks      []*Pick  // a limiter each, as --algorithms lists them
	Candidates []Denial // every limiter at each candidate limit
	Complete   bool     // false: ctx ended before every replay was done
}

// Recommend finds the log's peaks at s's window and, for each of s's
// limiters, the smallest limit denying at most share of the clients, then
// replays the candidate limits (the sliding peaks' p50, p90, p99, p99.9
// and max, and each limiter's pick) through every limiter. The limiters
// search side by side, one a core. What was done before ctx ended is kept.
func Recommend(ctx context.Context, l *accesslog.Log, s Setting, share Share, decided *atomic.Int64) (*Recommendation, error) {
	r := newRecommendation(l, s, share, FindPeaks(l, s.Config))
	sweepAll := func(ctx context.Context, settings []Setting) ([]Outcome, int, error) {
		return sweep(ctx, l.Source, settings, decided)
	}
	return r.finish(ctx, s, Workers(len(s.Algorithms)), probeKept(l, decided), nil, sweepAll)
}

// newRecommendation is what --recommend found before its searches: the
// log's peaks, and its clients with a request replayed.
func newRecommendation(l *accesslog.Log, s Setting, share Share, p Peaks) *Recommendation {
	r := &Recommendation{Config: s.Config, Algorithms: s.Algorithms, Share: share, Requests: l.Requests, Peaks: p}
	r.Clients = int64(len(r.Peaks.Of(r.Peaks.Total)))
	return r
}

// finish searches each limiter's pick, workers side by side, each probe
// by run (searched, when set, is told as each search ends), then replays
// the candidate limits by sweepAll.
func (r *Recommendation) finish(ctx context.Context, s Setting, workers int, run prober, searched func(), sweepAll func(context.Context, []Setting) ([]Outcome, int, error)) (*Recommendation, error) {
	r.Picks = make([]*Pick, len(s.Algorithms))
	errs := make([]error, len(s.Algorithms))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r.Picks[i], errs[i] = search(ctx, run, s.Config, s.Algorithms[i], r.Share, r.Peaks)
				if searched != nil {
					searched()
				}
			}
		}()
	}
	for i := range s.Algorithms {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return r, nil
	}
	var settings []Setting
	for _, limit := range r.CandidateLimits() {
		cfg := s.Config
		cfg.Limit = limit
		settings = append(settings, Setting{Config: cfg, Algorithms: s.Algorithms})
	}
	rows, whole, err := sweepAll(ctx, settings)
	if err != nil {
		return nil, err
	}
	for _, o := range rows {
		r.Candidates = append(r.Candidates, Denial{Algorithm: o.stats.Algorithm, Limit: o.setting.Config.Limit, Clients: int64(o.affected), Requests: o.stats.Denied})
	}
	r.Complete = whole == len(settings) && ctx.Err() == nil
	r.pickRound()
	return r, nil
}

// percentiles are the ones the report gives, as fractions, with their names.
var percentiles = []struct {
	name     string
	num, den int64
}{{"p50", 50, 100}, {"p90", 90, 100}, {"p99", 99, 100}, {"p99.9", 999, 1000}, {"max", 1, 1}}

// Percentiles are the peaks' p50, p90, p99, p99.9 and max, in that order.
func Percentiles(peaks []int64) []int64 {
	sorted := slices.Sorted(slices.Values(peaks))
	var out []int64
	for _, p := range percentiles {
		out = append(out, Percentile(sorted, p.num, p.den))
	}
	return out
}

// CandidateLimits are the limits the report replays every limiter at: the
// sliding peaks' percentiles, the round limits (1, 2, 5 × 10^k) from their
// median to their max and the first at or above each pick, and each
// limiter's pick, each once, at least 1, smallest first.
func (r *Recommendation) CandidateLimits() []int64 {
	out := Percentiles(r.Peaks.Of(r.Peaks.Sliding))
	out = append(out, r.roundCandidates(out)...)
	for _, p := range r.Picks {
		if p != nil && p.At != nil {
			out = append(out, p.At.Limit)
		}
	}
	for i := range out {
		out[i] = max(out[i], 1)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
