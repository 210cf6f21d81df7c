package replay

import (
	"fmt"

	"windowlab/algo"
	"windowlab/human"
)

// WithBurst gives every setting's token bucket a capacity of burst tokens
// (0 keeps the limit, as without it); the error names --burst.
func WithBurst(settings []Setting, burst int64) ([]Setting, error) {
	if burst == 0 {
		return settings, nil
	}
	if burst < 1 || burst > algo.MaxLimit {
		return nil, fmt.Errorf("--burst %d: give the token bucket's capacity in tokens, a whole number from 1 to %s (without it, the limit)", burst, human.Int(algo.MaxLimit))
	}
	out := make([]Setting, len(settings))
	for i, s := range settings {
		s.Config.Burst = burst
		for _, a := range s.Algorithms { // a preset's own bounds: Spring's burstCapacity ≥ replenishRate
			if _, err := a.New(s.Config); err != nil {
				return nil, fmt.Errorf("--burst %d for %s at %s: %w", burst, a, SettingText(s.Config, a), err)
			}
		}
		out[i] = s
	}
	return out, nil
}

// WithDelay gives every setting nginx limit_req's delay=N (token-bucket/nginx;
// 0, nginx's default, delays every request in excess); the error names --delay.
func WithDelay(settings []Setting, delay int64) ([]Setting, error) {
	if delay < 0 || delay > algo.MaxLimit {
		return nil, fmt.Errorf("--delay %d: give nginx limit_req's delay=N, a whole number of requests from 0 (the default: every request in excess is delayed) to %s", delay, human.Int(algo.MaxLimit))
	}
	out := make([]Setting, len(settings))
	for i, s := range settings {
		s.Config.Delay = delay
		out[i] = s
	}
	return out, nil
}
