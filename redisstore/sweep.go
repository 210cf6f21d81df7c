package redisstore

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// sweep removes every key of the run through c, again until a SCAN finds
// none (a write given up on at its timeout may still land), and returns
// how many are left: -1 when c failed before it could tell.
func (s *Store) sweep(ctx context.Context, c redis.UniversalClient) (int64, error) {
	const rounds = 3
	for round := 0; ; round++ {
		var found atomic.Int64
		err := scanOn(ctx, c, s.Pattern(), func(node *redis.Client, keys []string) error {
			found.Add(int64(len(keys)))
			if round == rounds {
				return nil // the last round only counts
			}
			cctx, cancel := context.WithTimeout(ctx, Timeout)
			defer cancel()
			if s.cluster == nil {
				return reason(c.Unlink(cctx, keys...).Err())
			}
			p := node.Pipeline() // one key a command: the keys are in several slots
			for _, k := range keys {
				p.Unlink(cctx, k)
			}
			_, err := p.Exec(cctx)
			return reason(err)
		})
		if err != nil {
			return -1, err
		}
		if n := found.Load(); n == 0 || round == rounds {
			return n, nil
		}
	}
}

// settle sweeps again after a run that failed or was stopped (its
// context canceled): a batch that gave up on its answers may still be
// queued on Redis, on a connection of its own, and write its keys after
// the sweep (seen under the race detector on a cluster: a run stopped by
// SIGINT left 2,103 keys). With the store's connections closed, Redis
// runs what it had read of them. A run that ended cleanly had every
// answer and needs none of this.
func (s *Store) settle() (int64, error) {
	c := s.newClient()
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*Timeout)
	defer cancel()
	return s.resweep(ctx, c)
}

// resweep scans for the run's keys after a short wait, and again after a
// longer one, sweeping whenever a scan finds some, until two scans apart
// find none or ctx's deadline nears: what leaves nothing behind writes
// that land after a sweep.
func (s *Store) resweep(ctx context.Context, c redis.UniversalClient) (int64, error) {
	empty := 0
	for wait := 50 * time.Millisecond; empty < 2; wait = min(2*wait, 400*time.Millisecond) {
		if d, ok := ctx.Deadline(); ok && time.Until(d) < wait+100*time.Millisecond {
			break // the time left is for the scan that says what is left
		}
		time.Sleep(wait)
		var n atomic.Int64
		if err := scanOn(ctx, c, s.Pattern(), func(_ *redis.Client, keys []string) error { n.Add(int64(len(keys))); return nil }); err != nil {
			return -1, reason(err)
		}
		if n.Load() == 0 {
			empty++
			continue
		}
		empty = 0
		if left, err := s.sweep(ctx, c); err != nil || left != 0 {
			return left, err
		}
	}
	return s.count(ctx, c)
}

// count is how many keys of the run c finds now: -1 when it cannot tell.
func (s *Store) count(ctx context.Context, c redis.UniversalClient) (int64, error) {
	var n atomic.Int64
	if err := scanOn(ctx, c, s.Pattern(), func(_ *redis.Client, keys []string) error { n.Add(int64(len(keys))); return nil }); err != nil {
		return -1, reason(err)
	}
	return n.Load(), nil
}
