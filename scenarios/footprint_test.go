package scenarios

import (
	"errors"
	"strings"
	"testing"

	"windowlab/sim"
)

// The README's extremes: what fits in windowlab's memory budget replays and
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
				for _, want := range []string{"big.yaml: ", "MiB", "1,024 MiB", "1,000,000 clients", "168h window", "shorter window"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: the refusal %q does not say %q", c.name, msg, want)
					}
				}
			}
		}
	}
}
