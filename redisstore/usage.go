package redisstore

import (
	"github.com/redis/go-redis/v9"

	"windowlab/algo"
)

// Usage is what a lane's keys hold on Redis at an instant, as Redis
// itself counts it.
type Usage struct {
	Keys  int64 // the limiter's keys
	Bytes int64 // their MEMORY USAGE, summed
	// IndexBytes is the MEMORY USAGE of the lane's expiry index: windowlab's
	// own bookkeeping for its virtual clock, which a production limiter
	// (on Redis's own clock) does without.
	IndexBytes int64
}

// sweepBatch is the most keys one sweep script removes.
const sweepBatch = 10_000

// Usage brings the lane's keys to the instant t, removing every key dead
// at t and (the sliding log) every timestamp that has left the window, as
// the in-process limiter's MemoryAt counts, and sums MEMORY USAGE over
// what is left. Nothing it removes can affect a decision at t or later.
func (l *Limiter) Usage(t algo.Instant) (Usage, error) {
	s := l.store
	s.Flush()
	if err := s.Err(); err != nil {
		return Usage{}, err
	}
	t = max(t, l.last)
	var u Usage
	for b, used := range l.used {
		if used {
			if err := l.usageAt(b, t, &u); err != nil {
				return Usage{}, err
			}
		}
	}
	return u, nil
}

// usageAt is Usage for the lane's keys under the store's tag b, added to u.
func (l *Limiter) usageAt(b int, t algo.Instant, u *Usage) error {
	s := l.store
	ns, index := l.nsAt(b), l.expiryKey(b)
	if !l.cfg.NoExpiry {
		for {
			ctx, cancel := s.ctx()
			n, err := s.client.EvalSha(ctx, s.sha["sweep"].(string), []string{index}, int64(t), ns, sweepBatch).Int64()
			cancel()
			if err != nil {
				return &Error{URL: s.url, Reason: reason(err).Error()}
			}
			if n < sweepBatch {
				break
			}
		}
		if l.kind == algo.KindSlidingLog {
			for off := int64(0); ; off += sweepBatch {
				ctx, cancel := s.ctx()
				n, err := s.client.EvalSha(ctx, s.sha["trim"].(string), []string{index}, int64(t), l.w, ns, off, sweepBatch).Int64()
				cancel()
				if err != nil {
					return &Error{URL: s.url, Reason: reason(err).Error()}
				}
				if n < sweepBatch {
					break
				}
			}
		}
	}
	return s.scanTag(b, ns+"*", func(node *redis.Client, keys []string) error {
		ctx, cancel := s.ctx()
		defer cancel()
		p := node.Pipeline() // the node that holds the tag's slot
		for _, k := range keys {
			p.MemoryUsage(ctx, k, 0) // SAMPLES 0: every member and field, not a sample
		}
		cmds, err := p.Exec(ctx)
		if err != nil {
			return reason(err)
		}
		for i, c := range cmds {
			n := c.(*redis.IntCmd).Val()
			if keys[i] == index {
				u.IndexBytes += n
				continue
			}
			u.Keys++
			u.Bytes += n
		}
		return nil
	})
}
