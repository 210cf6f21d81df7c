package cli

import (
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/challenge"
)

// counterMax is the sliding counter's most at the lesson's numbers: 100 in
// the last millisecond of one window, 100 just before the end of the next.
const counterMax = "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59.999\", count: 100, client: you}\n  - {at: \"12:01:59.998\", count: 100, client: you}\n"

// challenge lists the five, and --check prints each verdict with its exit
// status: 0 reached with the proof's figures, 1 not reached with the best
// so far and the hint, 2 for a file that lacks the limiter the challenge
// reads, an unknown challenge or a missing file.
func TestChallengeCommand(t *testing.T) {
	out, _, code := windowlab(t, "challenge")
	for _, want := range []string{"1  boundary-burst", "2  counter-max", "3  log-holds", "4  counter-stricter", "5  counter-looser"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("challenge: exit %d, lacks %q:\n%s", code, want, out)
		}
	}
	most := writeFile(t, "most.yaml", []byte(counterMax))
	near := writeFile(t, "near.yaml", []byte(strings.Replace(counterMax, "12:01:59.998", "12:01:59.400", 1)))
	logOnly := writeFile(t, "log.yaml", []byte(counterMax+"algorithms: [sliding-log]\n"))
	cases := []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"challenge", "--check", "2", most}, 0, []string{"reached", "200 through the sliding counter within 59.999s",
			"100 at 12:00:59.999", "100 at 12:01:59.998", "99 + 100 × ≈0.00003 = ≈99.003 → allow", "the even-spread assumption, broken on purpose"}},
		{[]string{"challenge", "--check", "counter-max", near}, 1, []string{"not reached, best so far: 199 of 200 within 60 s", "hint: "}},
		{[]string{"challenge", "--check", "1", most}, 0, []string{"200 through the fixed window", "twice the limit"}},
		{[]string{"challenge", "--check", "3", most}, 0, []string{"you sent 200 within 60 s", "at most 100", "exactly the limit"}},
		{[]string{"challenge", "--check", "4", most}, 1, []string{"denied none the log allowed (it allowed 100 the log denied)"}},
		{[]string{"challenge", "--check", "5", most}, 0, []string{"request 101 at 12:01:59.998", "deny (100 ≥ 100)"}},
		{[]string{"challenge", "--check", "2", logOnly}, 2, []string{"needs the lesson's sliding window counter"}},
		{[]string{"challenge", "--check", "6", most}, 2, []string{`no challenge "6"`}},
		{[]string{"challenge", "--check", "2"}, 2, []string{"needs a scenario file"}},
		{[]string{"challenge", "--check", "2", most + ".missing"}, 2, []string{"missing"}},
	}
	for _, c := range cases {
		out, errOut, code := windowlab(t, c.args...)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.args[1:], code, c.code, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out+errOut, w) {
				t.Errorf("%v: lacks %q:\n%s%s", c.args[1:], w, out, errOut)
			}
		}
	}
}

// challenge N with no scenario opens play's empty clock at the lesson's
// numbers, with the limiters every challenge reads.
func TestChallengeOpensTheEmptyClock(t *testing.T) {
	s, err := challengeScenario(t.Context(), stdio{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Config.Limit != 100 || s.Config.Window != time.Minute || s.Len() != 0 || s.Start != algo.Clock(12, 0, 0, 0) {
		t.Fatalf("the empty clock is %+v from %v with %d requests", s.Config, s.Start, s.Len())
	}
	for _, g := range challenge.Goals {
		if _, err := challenge.NewChecker(g, s.Config, s.Algorithms); err != nil {
			t.Errorf("%s: %v", g.Name, err)
		}
	}
}
