package replay

import (
	"fmt"

	"windowlab/algo"
	"windowlab/human"
)

// Burst is the token bucket's capacity when a runs as one and it is not
// the limit (--burst, a scenario's burst:), else 0: what a report names
// beside the setting.
func Burst(cfg algo.Config, a algo.Algorithm) int64 {
	if a.Kind != algo.KindTokenBucket || cfg.Capacity() == cfg.Limit {
		return 0
	}
	return cfg.Capacity()
}

// SettingText is a row's setting as the reports write it: "60 per 1m", and
// "60 per 1m burst 10" for a token bucket whose capacity is not the limit.
// nginx's limit_req always names its burst=: 0, its default, is a bucket of
// one request, not of the limit.
func SettingText(cfg algo.Config, a algo.Algorithm) string {
	s := fmt.Sprintf("%s per %s", human.Int(cfg.Limit), human.Duration(cfg.Window))
	if nginx(a) {
		s += " burst " + human.Int(cfg.Burst)
	} else if b := Burst(cfg, a); b != 0 {
		s += " burst " + human.Int(b)
	}
	return s
}

// nginx reports whether a is nginx's limit_req, whose burst is its own
// setting (0 by default), not the bucket's capacity.
func nginx(a algo.Algorithm) bool {
	return a.Kind == algo.KindTokenBucket && (a.Rules.Bucket == algo.BucketNginx || a.Rules.Bucket == algo.BucketNginxNodelay)
}
