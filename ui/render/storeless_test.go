package render

import (
	"fmt"
	"strings"
	"testing"

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
