package room

import (
	"strings"
	"testing"
	"time"

	"windowlab/algo"
)

// Check takes what a view makes, up to the room's budget, and refuses
// one addition or one request more, and what no view makes; counting a
// stream's requests, never making them (a stream of 2^62 ms would take
// exabytes).
func TestTrafficCheck(t *testing.T) {
	noon := algo.Clock(12, 0, 0, 0)
	lesson := []algo.Algorithm{{Kind: algo.KindFixedWindow}}
	of := func(added ...Addition) *Traffic {
		return &Traffic{Scenario: "play", Name: "play", Config: algo.Config{Limit: 100, Window: time.Minute}, Algorithms: lesson, Added: added}
	}
	burst := Addition{Client: "a", At: noon, Count: 100}
	ones := make([]Addition, MaxAdditions)
	for i := range ones {
		ones[i] = Addition{Client: "a", At: noon, Count: 1}
	}
	for _, c := range []struct {
		t    *Traffic
		want string // "" takes it
	}{
		{nil, ""},
		{of(), ""},
		{of(burst, Addition{Client: "a", From: noon, To: noon + 1000, Every: 20 * time.Millisecond}), ""},
		{of(ones...), ""},
		{of(append(ones, burst)...), "a room carries at most 1000"},
		{of(Addition{Client: "a", At: noon, Count: MaxRequests}), ""},
		{of(Addition{Client: "a", At: noon, Count: MaxRequests}, Addition{Client: "a", At: noon, Count: 1}), "more than 50000000"},
		{of(Addition{Client: "a", From: noon, To: noon + MaxRequests, Every: time.Millisecond}), ""},
		{of(Addition{Client: "a", From: noon, To: noon + MaxRequests + 1, Every: time.Millisecond}), "more than 50000000"},
		{of(Addition{Client: "a", From: 0, To: 1 << 62, Every: time.Millisecond}), "more than 50000000"},
		{of(Addition{Client: "a", From: -1 << 62, To: 1 << 62, Every: time.Millisecond}), "not whole milliseconds over a span"},
		{of(Addition{Client: "a", At: noon, Count: -5}), "a burst of -5 requests"},
		{of(Addition{Client: "a", From: noon, To: noon, Every: time.Millisecond}), "over a span"},
		{of(Addition{Client: "a", From: noon, To: noon + 5, Every: time.Microsecond}), "whole milliseconds"},
		{of(Addition{Client: "a", From: noon, To: noon + 5, Every: 1500 * time.Microsecond}), "whole milliseconds"},
		{&Traffic{Scenario: "play", Added: []Addition{burst}}, "0 limiters"},
	} {
		err := c.t.Check()
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			n := 0
			if c.t != nil {
				n = len(c.t.Added)
			}
			t.Errorf("%d additions: %v, want %q", n, err, c.want)
		}
	}
}
