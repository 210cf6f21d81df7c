package scenarios

import (
	"errors"
	"strings"
	"testing"

	"windowlab/sim"
)

// The extremes of docs/memory.md: what fits in windowlab's memory budget replays and
// opens in the view; what cannot is refused before anything is generated,
// with the figure, the budget and what to change.
func TestMemoryBudget(t *testing.T) {
	const all = "algorithms: [fixed-window, sliding-log, sliding-counter, sliding-counter/httprate, sliding-counter/upstash, sliding-counter/cloudflare-2017, fixed-window/express-rate-limit, token-bucket]\n"
	report, view := sim.Options{ForwardOnly: true}, sim.Options{History: true}
	for _, c := range []struct {
		name, yaml   string
		report, view bool // fits
	}{
		{"a burst of 50M at one instant", "limit: 1000000000\nwindow: 168h\n" + all + "traffic:\n  - {at: \"12:00:00\", count: 50000000}\n", true, true},
		{"50M a millisecond apart, every limiter", "limit: 1000000000\nwindow: 168h\n" + all + "traffic:\n  - {from: \"00:00:00\", to: \"13:53:20\", every: 1ms}\n", true, true},
		{"50M spread over a day", "limit: 1000000000\nwindow: 168h\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59\", count: 50000000}\n", true, true},
		{"a million clients, a one-minute window", "limit: 100\nwindow: 1m\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59\", rate: 578/s, clients: 1000000, seed: 1}\n", true, true},
		{"a million clients, all inside one week's window", "limit: 1000000000\nwindow: 168h\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59\", rate: 578/s, clients: 1000000, seed: 1}\n", false, false},
		{"the lesson", "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59\", count: 100}\n  - {at: \"12:01:00\", count: 100}\n", true, true},
	} {
		s, err := Parse("big.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, o := range []struct {
			opts sim.Options
			fits bool
		}{{report, c.report}, {view, c.view}} {
			_, err := s.Engine(o.opts)
			var big *TooBigError
			if fits := !errors.As(err, &big); fits != o.fits {
				t.Errorf("%s, history %v: fits %v, want %v (%v)", c.name, o.opts.History, fits, o.fits, err)
				continue
			}
			if big != nil {
				msg := err.Error()
				for _, want := range []string{"big.yaml:4:5: traffic[0]: ", "MiB", "1,024 MiB", "1,000,000 clients", "168h window", "shorter window"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: the refusal %q does not say %q", c.name, msg, want)
					}
				}
			}
		}
	}
}

// A refusal points at the traffic entry that alone needs the most; check's
// replay (Verify) refuses rather than failing an expectation; and a file
// may fit a report but not the view, which keeps every decision.
func TestTooBigLocated(t *testing.T) {
	const week = "limit: 1000000000\nwindow: 168h\ntraffic:\n  - {at: \"11:00:00\", count: 3}\n"
	s, err := Parse("two.yaml", []byte(week+"  - {from: \"00:00:00\", to: \"23:59:59\", rate: 578/s, clients: 1000000, seed: 1}\n"+
		"expect:\n  - {algorithm: fixed-window, allowed: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Fits(sim.Options{ForwardOnly: true})
	var big *TooBigError
	if !errors.As(err, &big) || big.Line != 5 || big.Column != 5 || big.Field != "traffic[1]" ||
		!strings.HasPrefix(err.Error(), "two.yaml:5:5: traffic[1]: replaying the file would need about") || !strings.Contains(err.Error(), "this entry needing the most") {
		t.Errorf("Fits: %v, want a refusal at traffic[1], 5:5", err)
	}
	if fails, err := s.VerifyContext(t.Context()); fails != nil || !errors.As(err, &big) {
		t.Errorf("VerifyContext: failures %v, error %v; want no failure and the refusal", fails, err)
	}
	mid, err := Parse("mid.yaml", []byte(week+"  - {from: \"00:00:00\", to: \"23:59:59\", rate: 150/s, clients: 1000000, seed: 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if report, view := mid.Fits(sim.Options{ForwardOnly: true}), mid.Fits(sim.Options{History: true}); report != nil || view == nil {
		t.Errorf("150/s: report %v, view %v; want a report to fit and the view not", report, view)
	}
}
