package algo

import "time"

// exactUnits sets the bucket's units for exact.go's buckets. redis-cell
// keeps its level in ns: a token is its emission interval T ns, 10⁶ gained
// a ms. Spring keeps the lesson's units (a token is W ms of limit a ms)
// but gains them a whole second at a time, as Redis TIME's seconds pass.
func (l *TokenBucket) exactUnits() {
	switch l.cfg.Rules.Bucket {
	case BucketRedisCell:
		t := redisCellInterval(l.cfg)
		l.w, l.rate, l.full = t, int64(time.Millisecond), l.cfg.Capacity()*t
	case BucketSpring:
		l.step = 1000
	default:
		return
	}
	l.shown = Rules{Bucket: l.cfg.Rules.Bucket}
}

// steps is the ms of refill between a and t > a for a bucket that gains
// only on whole steps of l.step ms since the epoch.
func (l *TokenBucket) steps(a, t Instant) uint64 {
	return uint64(floorDiv(int64(t), l.step)-floorDiv(int64(a), l.step)) * uint64(l.step)
}

// tokenUnit is the units one token of d's bucket is, and the units it
// gains a ms: W ms and the limit, or redis-cell's T ns and 10⁶.
func (d Decision) tokenUnit() (unit, perMs int64) {
	if d.Rules.Bucket == BucketRedisCell {
		return int64(d.Window) / d.Limit, int64(time.Millisecond)
	}
	return int64(d.Window / time.Millisecond), d.Limit
}

// nextSpringToken is NextToken for Spring's bucket, need units short of a
// token, which it gains limit·1000 a whole second.
func (d Decision) nextSpringToken(need int64) time.Duration {
	k := (need + 1000*d.Limit - 1) / (1000 * d.Limit)
	return time.Duration((floorDiv(int64(d.At), 1000)+k)*1000-int64(d.At)) * time.Millisecond
}
