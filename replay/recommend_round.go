package replay

import (
	"slices"
)

// Round limits are the ones a person writes in a config: 1, 2 and 5 times
// a power of ten. --recommend replays them beside the peaks' percentiles,
// and names for each limiter the smallest round limit meeting the share.

// roundLimits are the round limits from lo to hi, smallest first.
func roundLimits(lo, hi int64) []int64 {
	var out []int64
	for p := int64(1); p <= hi; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if v := m * p; v >= lo && v <= hi {
				out = append(out, v)
			}
		}
		if p > hi/10 {
			break
		}
	}
	return out
}

// roundUp is the smallest round limit at or above n ≥ 1.
func roundUp(n int64) int64 {
	for p := int64(1); ; p *= 10 {
		for _, m := range []int64{1, 2, 5} {
			if m*p >= n {
				return m * p
			}
		}
	}
}

// isRound reports whether n is a round limit.
func isRound(n int64) bool { return n >= 1 && roundUp(n) == n }

// roundCandidates are the round limits the report replays: those from the
// sliding peaks' median to their max, and the first at or above each
// limiter's pick.
func (r *Recommendation) roundCandidates(percentiles []int64) []int64 {
	out := roundLimits(max(percentiles[0], 1), percentiles[len(percentiles)-1])
	for _, p := range r.Picks {
		if p != nil && p.At != nil {
			out = append(out, roundUp(p.At.Limit))
		}
	}
	return out
}

// pickRound sets each pick's Round: the smallest round limit at or above
// it whose replay, among the candidates, denies at most the share.
func (r *Recommendation) pickRound() {
	for _, p := range r.Picks {
		if p == nil || p.At == nil {
			continue
		}
		var rounds []Denial
		for _, d := range r.Candidates {
			if d.Algorithm == p.Algorithm && isRound(d.Limit) && d.Limit >= p.At.Limit && r.Share.Meets(d.Clients, r.Clients) {
				rounds = append(rounds, d)
			}
		}
		if len(rounds) > 0 {
			d := slices.MinFunc(rounds, func(a, b Denial) int { return int(a.Limit - b.Limit) })
			p.Round = &d
		}
	}
}

// limitText is d's limit as the report writes it: "20 per 1m", with a
// token bucket's burst when it is not the limit ("20 per 1m burst 5").
func (r *Recommendation) limitText(d Denial) string {
	cfg := r.Config
	cfg.Limit = d.Limit
	return SettingText(cfg, d.Algorithm)
}
