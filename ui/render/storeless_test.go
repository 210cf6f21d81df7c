package render

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// storeDown is a limiter on a store that does not answer from from to
// before to, under a policy: there it decides as the policy says, without
// the store, and counts it (redisstore's limiters under --on-store-error).
type storeDown struct {
	algo.Limiter
	from, to algo.Instant
	allow    bool
	without  int64
}

func (l *storeDown) Allow(t algo.Instant, client string) algo.Decision {
	d := l.Limiter.Allow(t, client) // the in-process twin still counts it
	if t >= l.from && t < l.to {
		l.without++
		d.Allowed = l.allow
	}
	return d
}

func (l *storeDown) Clone() algo.Limiter {
	c := *l
	c.Limiter = l.Limiter.Clone()
	return &c
}

func (l *storeDown) DecidedWithoutStore() (int64, bool) { return l.without, true }

// threeBursts are three bursts of five a second apart, over the limit of 3.
const threeBursts = `limit: 3
window: 1s
algorithms: [fixed-window, sliding-log]
traffic:
  - {at: "12:00:00", count: 5, client: alice}
  - {at: "12:00:01", count: 5, client: alice}
  - {at: "12:00:02", count: 5, client: alice}
`

// Requests decided without the store (a Redis that did not answer, under
// --on-store-error allow or deny) have their own mark, ◌, read without
// colour: in the timeline's cells (the second second's, for both lanes)
// and in its legend, which names it only when there are some, in the
// recent requests, and on the lane's last request and its counts.
func TestDecisionsWithoutTheStoreHaveTheirOwnMark(t *testing.T) {
	for _, allow := range []bool{true, false} {
		for _, w := range []int{80, 140} {
			t.Run(fmt.Sprint(allow, w), func(t *testing.T) {
				down := func(ls []algo.Limiter) ([]algo.Limiter, error) {
					out := make([]algo.Limiter, len(ls))
					for i, l := range ls {
						out[i] = &storeDown{Limiter: l, from: algo.Clock(12, 0, 1, 0), to: algo.Clock(12, 0, 2, 0), allow: allow}
					}
					return out, nil
				}
				e, err := parse(threeBursts).EngineWith(sim.Options{History: true}, down)
				if err != nil {
					t.Fatal(err)
				}
				c := Common{Width: w, Height: 40, Styles: NewStyles(false, false)}
				view := func() (Snapshot, []string, map[string]string) {
					held, _ := e.Last()
					s := Take(e, Focus{Client: "alice"}, &held, "")
					s.Timeline = NewZoom(e.Window()).CellsAt(e.History(), s.Now, w, len(s.Algorithms), -1)
					lines := strings.Split(plain(Timeline{C: c, Snap: &s}.Render()), "\n")
					rows := map[string]string{}
					for _, l := range lines[3:] {
						rows[strings.Fields(l)[0]] = l
					}
					return s, lines, rows
				}
				e.SeekIndex(5) // the first burst: the store answered every one
				_, lines, _ := view()
				if strings.Contains(strings.Join(lines, "\n"), StorelessGlyph) {
					t.Errorf("no decision without the store yet, but %s shows:\n%s", StorelessGlyph, strings.Join(lines, "\n"))
				}
				e.SeekIndex(8) // three of the second burst, decided without the store
				s, lines, rows := view()
				if !strings.Contains(lines[0], StorelessGlyph+" decided without the store") && !strings.Contains(lines[0], StorelessGlyph+" no store") {
					t.Errorf("the legend does not name %s: %q", StorelessGlyph, lines[0])
				}
				for _, name := range []string{"fixed", "log"} {
					row := rows[name]
					if strings.Count(row, StorelessGlyph) != 1 {
						t.Errorf("%s's row should mark one cell %s:\n%s", name, StorelessGlyph, strings.Join(lines, "\n"))
					}
				}
				verdict := "allow"
				if !allow {
					verdict = "deny"
				}
				lanes := plain(Lanes{C: c, Snap: &s, Question: -1}.render(40))
				if !strings.Contains(lanes, StorelessGlyph+" "+verdict+", decided without the store") || !strings.Contains(lanes, StorelessGlyph+" 3 without the store") {
					t.Errorf("the lanes should say the last request was decided without the store, and how many were:\n%s", lanes)
				}
				s.Recent = RecentRows(e.History(), e.Clients(), 10)
				recent := plain(Recent{C: c, Snap: &s}.Render(10))
				if !strings.Contains(recent, "fixed "+StorelessGlyph+"   log "+StorelessGlyph) {
					t.Errorf("the recent requests should mark the run decided without the store:\n%s", recent)
				}
				e.RunToEnd() // the store answers again: the third burst is the tally's
				_, lines, rows = view()
				if strings.Count(rows["fixed"], StorelessGlyph) != 1 || !strings.Contains(lines[0], StorelessGlyph) {
					t.Errorf("after the outage its cell keeps its mark, the others none:\n%s", strings.Join(lines, "\n"))
				}
			})
		}
	}
}

func (l *storeDown) OnStoreError() string {
	if l.allow {
		return "allow"
	}
	return "deny"
}

// A caption whose moment has decisions made without the store (the
// second burst's, Redis down from 12:00:01 to 12:00:02) says how many of
// its requests were the policy's, under its words, so that they never
// contradict the ◌ marks; a caption whose requests the store decided (the
// first burst's, the third's) has no such line. Counted here from the
// fake store's own window, not from the history.
func TestCaptionSaysWhichDecisionsTheStoreDidNotMake(t *testing.T) {
	for _, allow := range []bool{true, false} {
		policy := "deny"
		if allow {
			policy = "allow"
		}
		for _, w := range []int{80, 140, 40} {
			t.Run(fmt.Sprint(policy, w), func(t *testing.T) {
				from, to := algo.Clock(12, 0, 1, 0), algo.Clock(12, 0, 2, 0)
				down := func(ls []algo.Limiter) ([]algo.Limiter, error) {
					out := make([]algo.Limiter, len(ls))
					for i, l := range ls {
						out[i] = &storeDown{Limiter: l, from: from, to: to, allow: allow}
					}
					return out, nil
				}
				e, err := parse(threeBursts).EngineWith(sim.Options{History: true}, down)
				if err != nil {
					t.Fatal(err)
				}
				c := Common{Width: w, Height: 40, Styles: NewStyles(false, false)}
				const words = "Both limiters deny the last two of the burst."
				caption := func(at algo.Instant) string {
					s := Take(e, Focus{Client: "alice"}, nil, words)
					s.Storeless = NoteWithoutStore(e, at, at.Add(time.Second))
					return plain(Caption(c, &s, true, false))
				}
				note := func(lines string) string { // the note, unwrapped
					_, after, ok := strings.Cut(lines, StorelessGlyph)
					if !ok {
						return ""
					}
					return StorelessGlyph + " " + strings.Join(strings.Fields(after), " ")
				}
				e.SeekIndex(5) // the first burst, every one decided on the store
				if got := caption(algo.Clock(12, 0, 0, 0)); strings.Contains(got, StorelessGlyph) {
					t.Errorf("the store decided the first burst, yet:\n%s", got)
				}
				for _, n := range []int64{8, 10} { // three of the second burst, then all five
					e.SeekIndex(n)
					decided := min(max(n-5, 0), 5) // the second burst is arrivals 5 to 9
					got := caption(from)
					if !strings.HasPrefix(got, "» Both limiters deny") || strings.Index(got, "burst.") > strings.Index(got, StorelessGlyph) {
						t.Errorf("the caption's words first:\n%s", got)
					}
					want := fmt.Sprintf("%s Redis did not answer: all %d requests since 12:00:01 were the policy's (%s), not the limiters'", StorelessGlyph, decided, policy)
					if note(got) != want {
						t.Errorf("after %d requests:\n got %q\nwant %q\n%s", n, note(got), want, got)
					}
					for _, l := range strings.Split(got, "\n") {
						if c.Cells.StringWidth(l) > w {
							t.Errorf("%d cells wide, wider than %d: %q", c.Cells.StringWidth(l), w, l)
						}
					}
				}
				e.RunToEnd() // the third burst: the store answers again
				if got := caption(algo.Clock(12, 0, 2, 0)); strings.Contains(got, StorelessGlyph) {
					t.Errorf("the store decided the third burst, yet:\n%s", got)
				}
			})
		}
	}
}

// A lane decided in process (a fleet's, which no store holds) never
// decides without the store: the note counts the lanes on the store only,
// not "0–5 (lane by lane)".
func TestCaptionNoteCountsTheLanesOnTheStore(t *testing.T) {
	down := func(ls []algo.Limiter) ([]algo.Limiter, error) {
		out := append([]algo.Limiter(nil), ls...)
		out[0] = &storeDown{Limiter: ls[0], from: algo.Clock(12, 0, 1, 0), to: algo.Clock(12, 0, 2, 0), allow: true}
		return out, nil
	}
	e, err := parse(threeBursts).EngineWith(sim.Options{History: true}, down)
	if err != nil {
		t.Fatal(err)
	}
	e.SeekIndex(10)
	n := NoteWithoutStore(e, algo.Clock(12, 0, 1, 0), algo.Clock(12, 0, 2, 0))
	want := StorelessNote{Since: algo.Clock(12, 0, 1, 0), Of: 5, Min: 5, Max: 5, Policy: "allow"}
	if n != want {
		t.Errorf("got %+v, want %+v", n, want)
	}
}
