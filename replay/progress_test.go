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
	go func() { showDeciding(work, 36_000_000, Beside{Decided: &decided}, done); close(finished) }()
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

// Beside a reading, and after it, the progress counts a request once
// however many engines decide it (the settings, and --compare's and
// --denied's engine beside each): a sweep of 4 with --compare read 10M
// lines and said "12,000,000 decided" beside "10,000,000 lines", and
// "deciding: 11,205,888 of 20,000,000 requests" of a log of 10M.
func TestProgressCountsARequestOnce(t *testing.T) {
	var decided, size, read, lines atomic.Int64
	decided.Store(8 * 2_500_000)
	size.Store(1000)
	read.Store(500)
	lines.Store(3_000_000)
	beside := Beside{Decided: &decided, Engines: 8} // 4 settings, --compare's engine beside each
	var reading string
	work := Work(func(status func(time.Duration) (string, float64), done <-chan struct{}) {
		reading, _ = status(time.Second)
		<-done
	})
	done := make(chan struct{})
	close(done)
	showProgress(work, func(int64) string { return "reading p.log" }, &size, &read, &lines, beside, done)
	if !strings.Contains(reading, "3,000,000 lines") || !strings.HasSuffix(reading, " · 2,500,000 decided") {
		t.Errorf("reading with 8 engines: %q, want 2,500,000 decided", reading)
	}
	var deciding string
	drawn := make(chan struct{})
	work = Work(func(status func(time.Duration) (string, float64), done <-chan struct{}) {
		decided.Store(8 * 4_000_000)
		deciding, _ = status(2 * time.Second)
		close(drawn)
		<-done
	})
	done = make(chan struct{})
	finished := make(chan struct{})
	go func() { showDeciding(work, 10_000_000, beside, done); close(finished) }()
	<-drawn
	close(done)
	<-finished
	if !strings.HasPrefix(deciding, "deciding: 4,000,000 of 10,000,000 requests, 750,000/s") {
		t.Errorf("deciding with 8 engines: %q, want 4,000,000 of 10,000,000 at 750,000/s", deciding)
	}
}
