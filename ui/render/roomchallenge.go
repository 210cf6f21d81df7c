package render

import (
	"fmt"
	"strings"
	"time"

	"windowlab/human"
)

// RoomResults is the teacher's view of a challenge put to the room: each
// student's best, the best first, a bar of how close it came to the
// goal, ✓ for those who reached it. It is drawn as the quiz's tally is:
// whole in the teacher's dialog, and in a few lines above the lanes while
// the teacher is back in the view.
type RoomResults struct {
	C         Common
	Number    int
	Title     string
	Statement string
	Rows      []RoomResult // the best first
	Reached   int
	Students  int
	Ended     bool   // the teacher closed it: the results as they stood
	Keys      string // under the summary in the compact panel: "x shows them all"
}

// RoomResult is one student's line.
type RoomResult struct {
	Name         string // as the room has it: Render shows it through human.Visible
	Best, Target int64
	Reached      bool
	After        time.Duration // when reached: how long after the challenge opened
	Decided      int64
	Tried        bool // reported anything
}

// Render draws the results in at most h lines: the title and the count
// always, then the statement and the rows, the rows cut with "… and N
// more" when they do not fit.
func (r RoomResults) Render(h int) []string {
	c, st := r.C, r.C.Styles
	if h <= 0 {
		return nil
	}
	state := st.Selected.Render("open")
	if r.Ended {
		state = st.Faint.Render("ended")
	}
	title := st.Title.Render(fmt.Sprintf("challenge %d for the room", r.Number)) + st.Faint.Render(" · ") + st.Label.Render(r.Title)
	out := []string{c.Spread(title, state, c.Width, true)}
	trying := "still trying"
	if r.Ended {
		trying = "did not reach it"
	}
	summary := st.Label.Render(fmt.Sprintf("%d of %d reached", r.Reached, r.Students)) +
		st.Faint.Render(fmt.Sprintf(" · %d %s", max(r.Students-r.Reached, 0), trying))
	if r.Keys != "" {
		summary += st.Faint.Render(" · " + r.Keys)
	}
	out = append(out, c.Cells.Truncate(summary, c.Width, "…"))
	rows := r.rows()
	if r.Statement != "" && h-len(out)-len(rows) >= 2 {
		out = append(out, c.wrap(st.Caption, r.Statement, min(c.Width, 100))...)
	}
	if len(rows) == 0 {
		return cutTo(append(out, st.Faint.Render("no student in the room yet")), h)
	}
	room := h - len(out)
	if room <= 0 {
		return out[:h]
	}
	if len(rows) > room {
		more := len(rows) - room + 1
		rows = append(rows[:room-1], st.Faint.Render(fmt.Sprintf("… and %d more", more)))
	}
	return append(out, rows...)
}

// rows are the students' lines: rank, name, a bar of best ÷ target, the
// figure, and ✓ with when it was reached.
func (r RoomResults) rows() []string {
	c, st := r.C, r.C.Styles
	nameW := 4
	for _, row := range r.Rows {
		nameW = max(nameW, min(c.Cells.StringWidth(human.Visible(row.Name)), 24))
	}
	barW := max(min(c.Width-nameW-50, 30), 4)
	var out []string
	for i, row := range r.Rows {
		name := c.Cells.Truncate(human.Visible(row.Name), nameW, "…")
		name += strings.Repeat(" ", nameW-c.Cells.StringWidth(name))
		line := fmt.Sprintf("%3d  %s ", i+1, name)
		if !row.Tried {
			out = append(out, st.Label.UnsetBold().Render(line)+st.Faint.Render(strings.Repeat("·", barW)+" nothing yet"))
			continue
		}
		n := 0
		if row.Target > 0 {
			n = int(min(row.Best, row.Target) * int64(barW) / row.Target)
		}
		ink := st.Selected
		if row.Reached {
			ink = st.Allowed
		}
		bar := ink.Render(strings.Repeat("█", n)) + st.Faint.Render(strings.Repeat("·", barW-n))
		figure := st.Value.Render(human.Int(row.Best)) + st.Faint.Render(" of "+human.Int(row.Target))
		text := st.Label.UnsetBold().Render(line) + bar + " " + figure
		if row.Reached {
			text += st.Allowed.Render(" ✓ reached") + st.Faint.Render(" after "+human.Duration(max(row.After.Truncate(time.Second), time.Second)))
		}
		// How much traffic it took, where the line has room for it.
		if sent := st.Faint.Render(" · " + human.Noun{One: "request", Many: "requests"}.Of(row.Decided)); c.Cells.StringWidth(text+sent) <= c.Width {
			text += sent
		}
		out = append(out, c.Cells.Truncate(text, c.Width, "…"))
	}
	return out
}

// cutTo cuts lines to at most h.
func cutTo(lines []string, h int) []string {
	if len(lines) > h {
		return lines[:max(h, 0)]
	}
	return lines
}
