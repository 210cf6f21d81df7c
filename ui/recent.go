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

// recentView lists the last requests decided, newest last, in at most h
// lines: who asked when, and what each limiter said; identical requests in
// a row share a line.
func (m Model) recentView(h int) []string {
	hist := m.eng.History()
	if h < 2 || len(hist) == 0 {
		return nil
	}
	st := m.c.styles
	gs := recentGroups(hist, h-1)
	out := []string{st.title.Render("recent requests") + st.faint.Render(" · newest last")}
	clients := m.eng.Clients()
	numW, nameW, countW := 0, 0, 0
	nums := make([]string, len(gs))
	counts := make([]string, len(gs))
	for i, g := range gs {
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
		nameW = max(nameW, len(clients[g.mark.Client]))
	}
	ls := m.eng.Limiters()
	for i, g := range gs {
		var b strings.Builder
		b.WriteString(st.faint.Render(fmt.Sprintf("%-*s", numW, nums[i])))
		b.WriteString("  " + g.mark.At.String() + "  " + fmt.Sprintf("%-*s", nameW, clients[g.mark.Client]))
		b.WriteString("  " + st.faint.Render(fmt.Sprintf("%*s", countW, counts[i])))
		for k, l := range ls {
			b.WriteString("   " + st.kind(int(l.Kind())).UnsetBold().Render(shortName(l)) + " " + m.mark(g.mark.Allowed&(1<<k) != 0))
		}
		out = append(out, b.String())
	}
	return out
}
