package redisstore

import (
	"context"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// isNoScript reports whether err is a server's NOSCRIPT: its script cache
// was flushed (SCRIPT FLUSH, a restart, a replica promoted that never
// loaded them), and the call was not run.
func isNoScript(err error) bool { return err != nil && strings.HasPrefix(err.Error(), "NOSCRIPT") }

// reload loads every script again, on every node of a cluster (their
// SHA1s are those load found: the same sources).
func (s *Store) reload(ctx context.Context) error {
	for _, name := range scripts {
		src, err := Source(name)
		if err != nil {
			return err
		}
		if err := s.client.ScriptLoad(ctx, src).Err(); err != nil {
			return reason(err)
		}
	}
	return nil
}

// retryNoScript sends again, in their order, once the scripts are loaded
// again, the calls of a batch a server answered NOSCRIPT, and returns the
// batch's answers with theirs in place. Those calls were not run, so the
// others of their keys that were (on a node that still had the scripts)
// came first: any decision that then differs is checked, as every one is.
func (s *Store) retryNoScript(ctx context.Context, cmds []redis.Cmder) []redis.Cmder {
	var again []int
	for i, c := range cmds {
		if isNoScript(c.Err()) {
			again = append(again, i)
		}
	}
	if len(again) == 0 || s.reload(ctx) != nil {
		return cmds
	}
	p := s.client.Pipeline()
	for _, i := range again {
		p.Do(ctx, cmds[i].Args()...)
	}
	redo, _ := p.Exec(ctx)
	s.trips.Add(1)
	out := slices.Clone(cmds)
	for j, i := range again {
		if j < len(redo) {
			out[i] = redo[j]
		}
	}
	return out
}
