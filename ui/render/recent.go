package render

import (
	"fmt"
	"strings"

	"windowlab/human"
	"windowlab/sim"
)

// recentRow is a run of consecutive requests at one instant from one
// client that every limiter decided alike, as the panel shows it.
type RecentRow struct {
	first, last int64 // 1-based request numbers
	mark        sim.Mark
	delayed     uint32 // bit k: limiter k delayed some of them (nginx limit_req)
	storeless   uint32 // bit k: limiter k decided some of them without its store
	client      string // as shown (human.Visible)
}

// recentRows reads the last n runs from the engine's history, for the
// snapshot: exact however long a run is, since the history stores runs.
func RecentRows(h *sim.History, clients []string, n int) []RecentRow {
	runs := h.LastRuns(n)
	rows := make([]RecentRow, len(runs))
	for i, r := range runs {
		rows[i] = RecentRow{first: r.First + 1, last: r.First + r.N, mark: r.Mark, client: human.Visible(clients[r.Client]),
			delayed: h.DelayedBits(r.First, r.First+r.N), storeless: h.WithoutStoreBits(r.First, r.First+r.N)}
	}
	return rows
}

// maxNameCells is the widest a client's name column grows; longer names are
// cut with an ellipsis, so the limiters' marks stay on screen.
const maxNameCells = 20

// recentPanel lists the last requests decided, newest last: who asked
// when, and what each limiter said; identical requests in a row share a
// line.
type Recent struct {
	C    Common
	Snap *Snapshot
}

// render draws the panel in at most h lines.
func (p Recent) Render(h int) []string {
	rows := p.Snap.Recent
	if h < 2 || len(rows) == 0 {
		return nil
	}
	rows = rows[max(len(rows)-(h-1), 0):]
	st := p.C.Styles
	out := []string{st.Title.Render("recent requests") + st.Faint.Render(" · newest last")}
	numW, nameW, countW := 0, 0, 0
	nums := make([]string, len(rows))
	counts := make([]string, len(rows))
	for i, g := range rows {
		nums[i] = fmt.Sprintf("#%d", g.first)
		if g.last > g.first {
			nums[i] += fmt.Sprintf("–#%d", g.last)
		}
		counts[i] = "×" + human.Int(g.last-g.first+1)
		numW = max(numW, len(nums[i]))
		countW = max(countW, len([]rune(counts[i])))
		nameW = max(nameW, p.C.Cells.StringWidth(g.client))
	}
	nameW = min(nameW, maxNameCells)
	for i, g := range rows {
		var b strings.Builder
		b.WriteString(st.Faint.Render(fmt.Sprintf("%-*s", numW, nums[i])))
		b.WriteString("  " + g.mark.At.String() + "  " + p.C.Fit(g.client, nameW))
		b.WriteString("  " + st.Faint.Render(fmt.Sprintf("%*s", countW, counts[i])))
		for k, a := range p.Snap.Algorithms {
			m := mark(st, g.mark.Allowed&(1<<k) != 0)
			if g.delayed&(1<<k) != 0 {
				m = st.Allowed.Render(DelayedGlyph) // allowed, some of them delayed
			}
			if g.storeless&(1<<k) != 0 {
				m = storelessMark(st, g.mark.Allowed&(1<<k) != 0) // some of them decided without the store
			}
			b.WriteString("   " + st.kindPlain(int(a.Kind)).Render(ShortName(a)) + " " + m)
		}
		out = append(out, b.String())
	}
	return out
}
