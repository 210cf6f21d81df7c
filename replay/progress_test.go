package replay

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The deciding's progress says the total and the time left while it
// decides, and its last line (drawn after done) only what was decided:
// --recommend's total is an estimate its passes may not reach, and
// "27,000,000 of 36,000,000 requests · 11s left in 31.98s" read as if the
// report were cut short.
func TestDecidingLastLineSaysWhatWasDecided(t *testing.T) {
	var decided atomic.Int64
	decided.Store(27_000_000)
	var during, last string
	drawn := make(chan struct{})
	work := Work(func(status func(time.Duration) (string, float64), done <-chan struct{}) {
		during, _ = status(30 * time.Second)
		close(drawn)
		<-done
		last, _ = status(32 * time.Second)
	})
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() { showDeciding(work, 36_000_000, &decided, done); close(finished) }()
	<-drawn
	close(done)
	<-finished
	if !strings.Contains(during, "left") || !strings.Contains(during, "of 36,000,000") {
		t.Errorf("while deciding, no time left shown: %q", during)
	}
	if last != "deciding: 27,000,000 requests, 0/s" {
		t.Errorf("last line %q: want the requests decided, no estimate and no time left", last)
	}
}
