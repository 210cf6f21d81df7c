package scenarios

import (
	"slices"
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/sim"
)

// presetsExample is Cloudflare's worked example: two requests at 12:01:15,
// the first the post's (allowed by the lesson's rule, denied by httprate),
// the second denied by all.
const presetsExample = `limit: 50
window: 1m
algorithms: [sliding-counter, sliding-counter/httprate]
traffic:
  - {at: "12:00:30", count: 42, client: alice}
  - {at: "12:01:14", count: 18, client: alice}
  - {at: "12:01:15", count: 1, client: bob}
  - {at: "12:01:15", count: 2, client: alice}
captions:
`

// A caption lands on the request it names: the nth at its instant, the
// last, the nth of its client, the first a limiter allows or denies.
func TestSeekCaptionLandsOnItsRequest(t *testing.T) {
	cases := []struct {
		caption string
		index   int64 // the request decided last at the moment, 0-based
		client  string
		ok      bool
		denied  bool
	}{
		{`{at: "12:01:15", request: 1, text: x}`, 60, "bob", true, false},
		{`{at: "12:01:15", request: 2, text: x}`, 61, "alice", true, false},
		{`{at: "12:01:15", request: last, text: x}`, 62, "alice", true, false},
		{`{at: "12:01:15", client: alice, text: x}`, 62, "alice", true, false},
		{`{at: "12:01:15", client: alice, request: first, text: x}`, 61, "alice", true, false},
		// Each client has its own counters: bob has none before, alice's
		// first sees 18 + 42 × 0.75 = 49.5 (httprate denies), her second 50.5.
		{`{at: "12:01:15", request: "first denied by sliding-counter", text: x}`, 62, "alice", true, true},
		{`{at: "12:01:15", request: "first denied by sliding-counter/httprate", text: x}`, 61, "alice", true, true},
		{`{at: "12:01:15", request: "2 allowed by sliding-counter", text: x}`, 61, "alice", true, false},
		{`{at: "12:01:15", request: "3 allowed by sliding-counter", text: x}`, 0, "", false, false},
		{`{at: "12:01:15", request: 4, text: x}`, 0, "", false, false},
		{`{at: "12:01:16", request: 1, text: x}`, 0, "", false, false},
	}
	for _, c := range cases {
		s := mustParse(t, "p.yaml", presetsExample+"  - "+c.caption+"\n")
		e, err := s.Engine(sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, from := range []func(){func() {}, e.RunToEnd} { // forward and back
			from()
			ok := s.SeekCaption(e, 0)
			if ok != c.ok {
				t.Errorf("%s: SeekCaption = %v, want %v", c.caption, ok, c.ok)
				continue
			}
			if !ok {
				continue
			}
			r, _ := e.Last()
			if r.Index != c.index || r.Arrival.Client != c.client || e.Now() != algo.Clock(12, 1, 15, 0) {
				t.Errorf("%s: landed after #%d (%s) at %v, want #%d (%s) at 12:01:15", c.caption, r.Index, r.Arrival.Client, e.Now(), c.index, c.client)
			}
			next, more := e.Next()
			if !s.AtCaption(0, r, seenAt(s, e), more && next.At == r.Arrival.At) {
				t.Errorf("%s: AtCaption is false where SeekCaption landed", c.caption)
			}
			if d := r.Decisions[len(r.Decisions)-1]; c.denied && d.Allowed && !strings.Contains(c.caption, "counter\"") {
				t.Errorf("%s: landed on a request httprate allowed", c.caption)
			}
		}
	}
}

// seenAt counts the requests decided at caption 0's instant that its pick
// counts, by replaying them: what the view reads from its history.
func seenAt(s *Scenario, e *sim.Engine) int64 {
	c := &s.Captions[0]
	n := e.Processed()
	f, _ := s.Engine(sim.Options{})
	var seen int64
	for f.Processed() < n {
		r, _ := f.Step()
		if r.Arrival.At == c.At && s.picks(c, r) {
			seen++
		}
	}
	return seen
}

// Shows are checked like expect, at the caption's moment, and a caption
// whose request is not there says so.
func TestCaptionClaimsAreVerified(t *testing.T) {
	s := mustParse(t, "p.yaml", presetsExample+`  - at: "12:01:15"
    request: 2
    text: The post's request.
    shows:
      - {algorithm: sliding-counter, last: {allowed: true, estimate: 49.5}}
      - {algorithm: sliding-counter/httprate, last: {allowed: true}, allowed: 62}
  - {at: "12:01:16", request: 1, text: Nobody comes.}
`)
	var got []string
	for _, f := range s.Verify() {
		got = append(got, f.String())
	}
	want := []string{
		"p.yaml:15:9: captions[0].shows[1].last.allowed: sliding-counter/httprate at 12:01:15: want true, got false",
		"p.yaml:15:9: captions[0].shows[1].allowed: sliding-counter/httprate at 12:01:15: want 62, got 61",
		"p.yaml:16:5: captions[1].request: at 12:01:16 there is no first request to speak of",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("failures:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if v := s.Verified(); v != "2 captions hold" {
		t.Errorf("Verified() = %q", v)
	}
}

// A caption ends at its until, else at the next caption, else a window on.
func TestCaptionEnds(t *testing.T) {
	s := mustParse(t, "p.yaml", presetsExample+`  - {at: "12:01:15", text: b}
  - {at: "12:00:30", text: a, until: "12:00:40"}
  - {at: "12:01:15", request: 2, text: c}
`)
	var texts []string
	for _, c := range s.Captions {
		texts = append(texts, c.Text)
	}
	if !slices.Equal(texts, []string{"a", "b", "c"}) {
		t.Fatalf("captions in order %v, want a, b, c: by instant, file order among equals", texts)
	}
	for i, want := range []algo.Instant{algo.Clock(12, 0, 40, 0), algo.Clock(12, 2, 15, 0), algo.Clock(12, 2, 15, 0)} {
		if got := s.CaptionEnd(i); got != want {
			t.Errorf("caption %d ends at %v, want %v", i, got, want)
		}
	}
}

// A caption's references are the engine's figures at its moment, formatted
// as the lanes print them.
func TestCaptionReferencesResolve(t *testing.T) {
	s := mustParse(t, "b.yaml", `limit: 100
window: 1m
traffic:
  - {at: "12:00:59", count: 100, client: client-1}
  - {at: "12:01:00", count: 100, client: client-1}
captions:
  - at: "12:01:00"
    request: last
    text: "{at}: {sliding-counter.explain}; {fixed-window.window} {fixed-window.verdict}s; the log holds {sliding-log.holds}; {limit} a {window}."
  - at: "12:01:59"
    text: "{sliding-counter.now.previous-window} = {sliding-counter.now.previous}, {sliding-counter.now.window} = {sliding-counter.now.current}, weight {sliding-counter.now.weight}"
`)
	want := []string{
		"12:01:00: 0 + 100 × 1 = 100 → deny (100 ≥ 100); 12:01:00–12:02:00 allows; the log holds 100 timestamps; 100 a 1m.",
		"12:00:00–12:01:00 = 100, 12:01:00–12:02:00 = 0, weight ≈0.017",
	}
	for i, w := range want {
		if got := s.Captions[i].Text; got != w {
			t.Errorf("captions[%d] reads\n  %q\nwant\n  %q", i, got, w)
		}
	}
}
