package render

import (
	"fmt"
	"strings"
	"testing"

	"windowlab/sim"
)

// nginxDelays is nginx limit_req at 5r/s, burst=4, delay=1, beside its
// nodelay form: alice's burst of 7 at 12:00:00 has three requests delayed
// (200, 400, 600 ms) under the delaying limit and none under nodelay.
const nginxDelays = `limit: 5
window: 1s
burst: 4
delay: 1
algorithms: [token-bucket/nginx, token-bucket/nginx-nodelay]
traffic:
  - {at: "12:00:00", count: 7, client: alice}
captions:
  - {at: "12:00:00", text: "alice's burst"}
`

// A delaying limiter's delayed requests have their own mark, ◔, read
// without colour: in the timeline's cells and legend, in the recent
// requests, and on the lane's last request with the delay. A scenario without one keeps its legend
// (TestGoldenTimeline's goldens hold it).
func TestDelayedRequestsHaveTheirOwnMark(t *testing.T) {
	for _, w := range []int{80, 140} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			sc := parse(nginxDelays)
			e, err := sc.EngineWith(sim.Options{History: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			e.RunToEnd()
			held, _ := e.Last()
			c := Common{Width: w, Height: 40, Styles: NewStyles(false, false)}
			s := Take(e, Focus{Client: "alice"}, &held, "")
			s.Timeline = NewZoom(e.Window()).CellsAt(e.History(), s.Now, w, len(s.Algorithms), -1)
			lines := strings.Split(plain(Timeline{C: c, Snap: &s}.Render()), "\n")
			if !strings.Contains(lines[0], DelayedGlyph+" delayed") {
				t.Errorf("the legend does not name %s: %q", DelayedGlyph, lines[0])
			}
			rows := map[string]string{}
			for _, l := range lines[3:] {
				rows[strings.Fields(l)[0]] = l
			}
			s.Recent = RecentRows(e.History(), e.Clients(), 10)
			recent := plain(Recent{C: c, Snap: &s}.Render(10))
			if !strings.Contains(recent, "nginx "+DelayedGlyph+"   nginx-nodelay ✓") || !strings.Contains(recent, "nginx ✗   nginx-nodelay ✗") {
				t.Errorf("the recent requests should mark the delayed run %s, the nodelay one ✓:\n%s", DelayedGlyph, recent)
			}
			// The cell holds denied requests too: ± wins; step back to
			// the fifth request, the last delayed one, for ◔ alone.
			if !strings.Contains(rows["nginx"], "±") {
				t.Errorf("nginx's row:\n%s", strings.Join(lines, "\n"))
			}
			e.SeekIndex(5)
			held, _ = e.Last()
			s = Take(e, Focus{Client: "alice"}, &held, "")
			s.Timeline = NewZoom(e.Window()).CellsAt(e.History(), s.Now, w, len(s.Algorithms), -1)
			lines = strings.Split(plain(Timeline{C: c, Snap: &s}.Render()), "\n")
			rows = map[string]string{}
			for _, l := range lines[3:] {
				rows[strings.Fields(l)[0]] = l
			}
			if !strings.Contains(rows["nginx"], DelayedGlyph) || strings.Contains(rows["nginx-n…"], DelayedGlyph) {
				t.Errorf("only the delaying limiter's cell should show %s:\n%s", DelayedGlyph, strings.Join(lines, "\n"))
			}
			lanes := plain(Lanes{C: c, Snap: &s, Question: -1}.render(40))
			if !strings.Contains(lanes, DelayedGlyph+" excess 4 of burst 4 → allow, delayed 600ms") || !strings.Contains(lanes, DelayedGlyph+" 3 delayed") {
				t.Errorf("the lane should show the delay of the last request and the delayed count:\n%s", lanes)
			}
		})
	}
}
