package replay

import (
	"fmt"
	"io"
	"iter"
	"strings"
	"time"
	"unicode/utf8"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/scenarios"
	"windowlab/sim/report"
)

// Describe says what was read: the lines, the format, the requests and
// their span, the clients, the time resolution, and the lines left out.
func Describe(w io.Writer, l *accesslog.Log, zone *time.Location) {
	lines := human.Noun{One: "line", Many: "lines"}
	// A name is kept whole, but several files' ("a … b (3 files)") only
	// each file's.
	name := human.Glue(l.Name)
	if len(l.Files) > 1 {
		name = l.Name
		for _, f := range l.Files {
			name = strings.ReplaceAll(name, f, human.Glue(f))
		}
	}
	head := fmt.Sprintf("%s: %s, %s; %s", name, human.Glue(lines.Of(l.Lines)), l.Format,
		human.Glue(requestsNoun.Of(l.Requests)))
	if l.Requests > 0 {
		head += fmt.Sprintf(" from %s to %s UTC, %s by %s", human.Glue(l.First().Short()), human.Glue(l.Last().Short()),
			human.Glue(human.Noun{One: "client", Many: "clients"}.Of(int64(len(l.Clients())))), l.Key)
	}
	io.WriteString(w, human.Wrap("", describeIndent, head, report.Width))
	// Each further line of the summary, wrapped under it.
	note := func(text string) { io.WriteString(w, human.Wrap("  ", describeIndent, text, report.Width)) }
	if len(l.Files) > 1 {
		var files []string
		for _, f := range l.Files {
			files = append(files, human.Glue(f))
		}
		note("read as one log, in this order: " + strings.Join(files, ", "))
	}
	for _, o := range l.Overlaps {
		note(fmt.Sprintf("%s overlaps the files before it: it begins at %s, before their last line at %s, "+
			"which one log's rotated files never do (the same lines given twice?): %s were too far back to replay",
			human.Glue(o.File), human.Glue(o.Begins.Short()), human.Glue(o.Newest.Short()), human.Glue(lines.Of(o.Late))))
	}
	if text := describeSlice(l.Slice); text != "" {
		note(text)
	}
	if r := l.Resolution(); r != "" {
		note(r)
	}
	if zone != nil && l.Requests > 0 {
		first, last := zoneName(zone, l.First()), zoneName(zone, l.Last())
		text := fmt.Sprintf("windows align to %s's calendar, %s at the first request", zone, first)
		if last != first {
			text += fmt.Sprintf("; it is %s by the last, and the windows keep %s throughout", last, first)
		}
		note(text)
	}
	problems := func(what human.Noun, n int64, ps []accesslog.Problem) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "  %s, not replayed:\n", what.Of(n))
		for _, p := range ps {
			file := l.Name
			if p.File != "" {
				file = p.File
			}
			io.WriteString(w, human.Wrap("    ", "      ", fmt.Sprintf("%s: %s", human.Glue(fmt.Sprintf("%s:%d", file, p.Line)), p.Why), report.Width))
		}
		if rest := n - int64(len(ps)); rest > 0 {
			fmt.Fprintf(w, "    … and %s more\n", human.Int(rest))
		}
	}
	problems(human.Noun{One: "bad line", Many: "bad lines"}, l.BadLines, l.Bad)
	problems(human.Noun{One: "line too far out of order (--reorder)", Many: "lines too far out of order (--reorder)"}, l.LateLines, l.Late)
	fmt.Fprintln(w)
}

// describeIndent begins every line a summary's line wraps onto.
const describeIndent = "    "

// describeSlice says what --from and --to kept and skipped, or "".
func describeSlice(s accesslog.Slice) string {
	if s.From == 0 && s.To == 0 {
		return ""
	}
	from, to := "the start", "the end"
	if s.From != 0 {
		from = human.Glue(s.From.Short() + " UTC")
	}
	if s.To != 0 {
		to = human.Glue(s.To.Short()+" UTC") + ", not included"
	}
	lines := human.Noun{One: "line", Many: "lines"}
	text := fmt.Sprintf("only the requests from %s up to %s (--from, --to); %s before and %s after skipped, not decided",
		from, to, human.Glue(lines.Of(s.Before)), human.Glue(lines.Of(s.After)))
	if s.Stopped {
		text += "; the reading stopped past its end and --reorder, the rest unread"
	}
	return text
}

// PrintSweep is the sweep's table: a row per limiter, under its setting,
// in columns as narrow as their figures, to fit report.Width as a
// terminal of 80 columns is.
func PrintSweep(w io.Writer, l *accesslog.Log, rows []Outcome) {
	if len(rows) == 0 {
		return
	}
	exposure := func(o Outcome) string {
		return fmt.Sprintf("%s (%s)", human.Int(o.stats.MaxInWindow), human.Times(o.stats.MaxInWindow, o.setting.Config.Limit))
	}
	lw, dw, cw, ew := len("limiter"), len("denied"), len("clients"), 0
	for _, o := range rows {
		lw = max(lw, len(rowIndent)+utf8.RuneCountInString(o.stats.Algorithm.Title()))
		dw = max(dw, len(human.Int(o.stats.Denied)))
		cw = max(cw, len(human.Int(int64(o.affected))))
		ew = max(ew, utf8.RuneCountInString(exposure(o)))
	}
	// Two spaces between the columns; one between the figures where two
	// would pass the width.
	gap := "  "
	if lw+dw+len("100.00%")+cw+ew+4*len(gap) > report.Width {
		gap = " "
	}
	row := "%-*s" + gap + "%*s" + gap + "%7s" + gap + "%*s  %s"
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(row, lw, "", dw, "", "", cw, "clients", ""), " "))
	fmt.Fprintf(w, row+"\n", lw, "limiter", dw, "denied", "share", cw, "denied", "most in one window")
	for i, o := range rows {
		st := o.stats
		if i == 0 || o.settingText() != rows[i-1].settingText() {
			fmt.Fprintln(w, o.settingText())
		}
		share := 0.0
		if total := st.Allowed + st.Denied; total > 0 {
			share = 100 * float64(st.Denied) / float64(total)
		}
		fmt.Fprintf(w, row+"\n", lw, rowIndent+st.Algorithm.Title(), dw, human.Int(st.Denied), fmt.Sprintf("%.2f%%", share), cw, human.Int(int64(o.affected)), exposure(o))
	}
	printChart(w, l, rows)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "most denied, per limiter and setting:")
	for _, o := range rows {
		if len(o.top) == 0 {
			continue
		}
		var names []string
		for _, d := range o.top {
			names = append(names, human.Glue(human.Visible(d.client)+" "+human.Int(d.n)))
		}
		// Broken only between clients, the dot ending the line: a key's
		// own spaces (ip+path) are glued like the count's.
		io.WriteString(w, human.Wrap("  "+o.label()+": ", "    ", strings.Join(names, human.NoBreak+"· "), report.Width))
	}
}

// label names a row of the sweep: "Sliding window log, 60 per 1m".
func (o Outcome) label() string {
	return o.stats.Algorithm.Title() + ", " + o.settingText()
}

// settingText is the row's setting, as its limiter reads it: "60 per 1m".
func (o Outcome) settingText() string { return SettingText(o.setting.Config, o.stats.Algorithm) }

// rowIndent begins a limiter's row of the sweep's table and chart, under
// its setting.
const rowIndent = "  "

// Runs are the log's requests as runs of one client at one instant.
func Runs(l *accesslog.Log) iter.Seq[scenarios.Run] {
	return func(yield func(scenarios.Run) bool) {
		src := l.Source()
		var cur scenarios.Run
		for a, ok := src.Next(); ok; a, ok = src.Next() {
			if cur.Count > 0 && a.At == cur.At && a.Client == cur.Client {
				cur.Count++
				continue
			}
			if cur.Count > 0 && !yield(cur) {
				return
			}
			cur = scenarios.Run{At: a.At, Client: a.Client, Count: 1}
		}
		if cur.Count > 0 {
			yield(cur)
		}
	}
}

// zoneName is zone's offset at t, as UTC+05:30.
func zoneName(zone *time.Location, t algo.Instant) string {
	return t.Time().In(zone).Format("UTC-07:00")
}
