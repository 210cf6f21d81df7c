//go:build !linux

package nginxtest

import "time"

// ClockTick is how far the clock nginx decides on moves at a time: on
// systems other than Linux, windowlab assumes the coarsest common tick.
func ClockTick() time.Duration { return 10 * time.Millisecond }
