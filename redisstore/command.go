package redisstore

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/algo"
)

// A decision's script call is built whole, as go-redis sends it (EVALSHA,
// the SHA1, the number of keys, the keys, the arguments), with what is the
// same for every call of a lane made once: the SHA1, its namespace under
// each of the store's tags and its expiry index there, its window and
// limit. A pipelined decision then allocates its key, a handful of
// arguments, go-redis's command and its answer (TestPipelinedDecisionAllocs).

// tagKeys is a lane's namespace under one of the store's tags and its
// expiry index there (boxed, as go-redis takes it).
type tagKeys struct {
	ns    string
	index any
}

// graceMS is Grace in ms, boxed once.
var graceMS any = int64(Grace / time.Millisecond)

// prepare makes what every call of the lane shares; again for a clone,
// whose namespace is its own.
func (l *Limiter) prepare() {
	l.at = make([]tagKeys, len(l.store.tags))
	for b := range l.at {
		ns := l.store.tags[b] + l.lns
		l.at[b] = tagKeys{ns: ns, index: ns + "expiry"}
	}
	l.sha = l.store.sha[l.script]
	l.boxed.w, l.boxed.limit = l.w, l.cfg.Limit
	if l.kind == algo.KindTokenBucket {
		l.boxed.full = strconv.FormatInt(l.cfg.Capacity()*l.w, 10)
	}
}

// evalsha is the command the script sha is called by, with keys then args.
func evalsha(sha any, keys []any, args ...any) []any {
	cmd := make([]any, 0, 3+len(keys)+len(args))
	cmd = append(cmd, "evalsha", sha, len(keys))
	cmd = append(cmd, keys...)
	return append(cmd, args...)
}

// command is the call of the limiter's script for a request from client
// at t, its keys under the store's tag b.
func (l *Limiter) command(t algo.Instant, client string, b int) []any {
	r := l.cfg.Rules
	ns, index := l.at[b].ns, l.at[b].index
	expiry := flag(!l.cfg.NoExpiry)
	at := int64(t)
	w, limit := l.boxed.w, l.boxed.limit
	switch l.kind {
	case algo.KindFixedWindow:
		if r.WindowStart == algo.WindowFirstRequest { // a fixed window's is the clock's, or the client's first request's
			key := ns + "f:" + client
			return []any{"evalsha", l.sha, 2, key, index,
				at, w, limit, flag(r.CountRejected), int(r.Compare), expiry, graceMS, "", key[len(ns):]}
		}
		var buf [20]byte
		start := strconv.AppendInt(buf[:0], int64(l.cfg.WindowStart(t)), 10)
		key := ns + "f:" + client + ":" + string(start)
		return []any{"evalsha", l.sha, 2, key, index,
			at, w, limit, flag(r.CountRejected), int(r.Compare), expiry, graceMS, key[len(key)-len(start):], key[len(ns):]}
	case algo.KindSlidingLog:
		*l.seq++
		key := ns + "l:" + client
		return []any{"evalsha", l.sha, 2, key, index,
			at, w, limit, flag(r.CountRejected), int(r.Compare), expiry, graceMS, *l.seq, key[len(ns):]}
	case algo.KindSegmentedWindow:
		seg := segments(l.cfg)
		start := seg.WindowStart(t)
		idx := (int64(start) - int64(seg.Offset/time.Millisecond)) / int64(seg.Window/time.Millisecond)
		key := ns + "s:" + client
		return []any{"evalsha", l.sha, 2, key, index,
			at, int64(seg.Window / time.Millisecond), l.cfg.SegmentCount(), limit, flag(r.CountRejected), int(r.Compare), expiry, graceMS,
			strconv.FormatInt(idx, 10), int64(start), key[len(ns):]}
	case algo.KindSlidingCounter:
		start := int64(l.cfg.WindowStart(t))
		idx := (start - l.o) / l.w
		cur := ns + "c:" + client + ":" + strconv.FormatInt(idx, 10)
		prev := ns + "c:" + client + ":" + strconv.FormatInt(idx-1, 10)
		return []any{"evalsha", l.sha, 3, cur, prev, index,
			at, w, limit, flag(r.CountRejected), int(r.Compare), expiry, graceMS, start, int(r.Rounding), cur[len(ns):]}
	}
	key := ns + "b:" + client
	return []any{"evalsha", l.sha, 2, key, index, at, w, limit, l.boxed.full, expiry, graceMS, key[len(ns):]}
}

// scriptCmd is a script's call as a go-redis command, its first key
// named so a cluster client routes it without looking for it.
func scriptCmd(ctx context.Context, cmd []any) *redis.Cmd {
	c := redis.NewCmd(ctx, cmd...)
	c.SetFirstKeyPos(3)
	return c
}

// eval runs a script's call through c and waits for its answer.
func eval(ctx context.Context, c redis.UniversalClient, cmd []any) (any, error) {
	rc := scriptCmd(ctx, cmd)
	_ = c.Process(ctx, rc)
	return rc.Result()
}
