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
func SettingText(cfg algo.Config, a algo.Algorithm) string {
	s := fmt.Sprintf("%s per %s", human.Int(cfg.Limit), human.Duration(cfg.Window))
	if b := Burst(cfg, a); b != 0 {
		s += " burst " + human.Int(b)
	}
	return s
}
