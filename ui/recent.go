package ui

import (
	"fmt"
	"strings"

	"windowlab/sim"
)

// recentScan bounds how many marks one frame looks back through, so the
// panel costs the same however long a run of identical requests is.
const recentScan = 4096

// recentGroup is a run of consecutive requests at one instant from one
// client that every limiter decided alike.
type recentGroup struct {
	first, last int // 1-based request numbers
	mark        sim.Mark
	capped      bool // the run may start earlier than recentScan let us see
}

// recentGroups returns up to n groups ending at the last decided request,
// oldest first.
func recentGroups(h []sim.Mark, n int) []recentGroup {
	var gs []recentGroup
	floor := max(len(h)-recentScan, 0)
	for i := len(h) - 1; i >= floor && (len(gs) < n || gs[len(gs)-1].mark == h[i]); i-- {
		if k := len(gs) - 1; k >= 0 && gs[k].mark == h[i] {
			gs[k].first = i + 1
			continue
		}
		if len(gs) == n {
			break
		}
		gs = append(gs, recentGroup{first: i + 1, last: i + 1, mark: h[i]})
	}
	if k := len(gs) - 1; k >= 0 && gs[k].first-1 == floor && floor > 0 && h[floor-1] == gs[k].mark {
		gs[k].capped = true
	}
	for i, j := 0, len(gs)-1; i < j; i, j = i+1, j-1 {
		gs[i], gs[j] = gs[j], gs[i]
	}
	return gs
}

// recentRow is a recentGroup as the panel shows it, its client named.
type recentRow struct {
	recentGroup
	client string
}

// recentRows reads the last n groups from the engine's history, for the
// snapshot.
func recentRows(h []sim.Mark, clients []string, n int) []recentRow {
	if n <= 0 {
		return nil
	}
	gs := recentGroups(h, n)
	rows := make([]recentRow, len(gs))
	for i, g := range gs {
		rows[i] = recentRow{g, clients[g.mark.Client]}
	}
	return rows
}

// maxNameCells is the widest a client's name column grows; longer names are
// cut with an ellipsis, so the limiters' marks stay on screen.
const maxNameCells = 20

// recentPanel lists the last requests decided, newest last: who asked
// when, and what each limiter said; identical requests in a row share a
// line.
type recentPanel struct {
	c    common
	snap *snapshot
}

// render draws the panel in at most h lines.
func (p recentPanel) render(h int) []string {
	rows := p.snap.recent
	if h < 2 || len(rows) == 0 {
		return nil
	}
	rows = rows[max(len(rows)-(h-1), 0):]
	st := p.c.styles
	out := []string{st.title.Render("recent requests") + st.faint.Render(" · newest last")}
	numW, nameW, countW := 0, 0, 0
	nums := make([]string, len(rows))
	counts := make([]string, len(rows))
	for i, g := range rows {
		nums[i] = fmt.Sprintf("#%d", g.first)
		if g.last > g.first {
			nums[i] += fmt.Sprintf("–#%d", g.last)
		}
		counts[i] = fmt.Sprintf("×%d", g.last-g.first+1)
		if g.capped {
			counts[i] += "+"
		}
		numW = max(numW, len(nums[i]))
		countW = max(countW, len([]rune(counts[i])))
		nameW = max(nameW, p.c.cells.StringWidth(g.client))
	}
	nameW = min(nameW, maxNameCells)
	for i, g := range rows {
		var b strings.Builder
		b.WriteString(st.faint.Render(fmt.Sprintf("%-*s", numW, nums[i])))
		b.WriteString("  " + g.mark.At.String() + "  " + p.c.fit(g.client, nameW))
		b.WriteString("  " + st.faint.Render(fmt.Sprintf("%*s", countW, counts[i])))
		for k, a := range p.snap.algorithms {
			b.WriteString("   " + st.kind(int(a.Kind)).UnsetBold().Render(shortName(a)) + " " + mark(st, g.mark.Allowed&(1<<k) != 0))
		}
		out = append(out, b.String())
	}
	return out
}
