package replay

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
	"windowlab/sim/report"
)

// Agreement is how one limiter at one setting decided the log's requests
// against the server's own decisions (--compare): counted as the
// requests are decided, with the first few disagreements kept.
type Agreement struct {
	setting   Setting
	Algorithm algo.Algorithm
	Compared  int64 // requests whose line held the server's decision
	Agree     int64
	Missing   int64 // requests whose line held none
	// NearFlip counts the compared requests within 1 ms of flipping:
	// decided otherwise had it come 1 ms earlier or later (the state as
	// it was, asked without recording). A server's clock may differ from
	// its log's by that much; a disagreement among them may be the
	// clock's. Not counted on a --store.
	NearFlip int64
	First    []Disagreement
}

// Disagreement is one request the model decided otherwise than the server.
type Disagreement struct {
	Line   int64
	At     algo.Instant
	Client string
	Server accesslog.Verdict
	Model  algo.Decision
}

// keepDisagreements is how many disagreements a setting names.
const keepDisagreements = 5

// Compare replays the log, read with accesslog.Options.Compare, at each
// setting in turn and counts, for each limiter, the decisions that agree
// with the server's; nil when ctx ended first. windowlab replay decides
// them as the log is read (DecideAllWhileReading); this, on a log kept
// whole, is what the tests hold that to.
func Compare(ctx context.Context, l *accesslog.Log, settings []Setting, decided *atomic.Int64) ([]Agreement, error) {
	var out []Agreement
	for _, s := range settings {
		marks := l.Marks()
		if marks == nil {
			return nil, fmt.Errorf("the log was read without --compare")
		}
		rows, err := compareSetting(ctx, l.Source(), marks, s, decided)
		if err != nil || rows == nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// compareSetting is one setting's agreements, its requests read from src
// and the server's decisions from marks, in the same order; nil when ctx
// ended first.
func compareSetting(ctx context.Context, src sim.Source, marks *accesslog.Marks, s Setting, decided *atomic.Int64) ([]Agreement, error) {
	rows, _, err := checkSetting(ctx, src, marks, s, decided, false)
	return rows, err
}

// checkSetting decides the requests of src at s once, for --compare's
// agreements with the server's decisions read from marks (nil: none
// asked) and --denied's counts (when denied): one engine for both, which
// need the same decisions. Each is nil when not asked, both when ctx ended
// first.
func checkSetting(ctx context.Context, src sim.Source, marks *accesslog.Marks, s Setting, decided *atomic.Int64, denied bool) ([]Agreement, *deniedCounts, error) {
	e, err := Engine(ctx, src, s, nil)
	if err != nil {
		return nil, nil, err
	}
	var rows []Agreement
	if marks != nil {
		rows = make([]Agreement, len(s.Algorithms))
		for k, a := range s.Algorithms {
			rows[k] = Agreement{setting: s, Algorithm: a}
		}
	}
	var dc *deniedCounts
	if denied {
		dc = &deniedCounts{s: s, k: len(s.Algorithms)}
	}
	for n := int64(1); ; n++ {
		var flips uint64
		if marks != nil {
			flips = nearFlips(e, s)
		}
		r, ok := e.Step()
		if !ok {
			if decided != nil {
				decided.Add((n - 1) % 4096)
			}
			break
		}
		if n%4096 == 0 {
			if decided != nil {
				decided.Add(4096)
			}
			if ctx.Err() != nil {
				return nil, nil, nil
			}
		}
		if marks != nil {
			agree(rows, r, marks, flips)
		}
		if dc != nil {
			dc.add(r)
		}
	}
	return rows, dc, nil
}

// agree counts, in each limiter's row, whether its decision of r agrees
// with the server's, read from marks; flips marks the limiters near a
// flip (nearFlips).
func agree(rows []Agreement, r sim.Record, marks *accesslog.Marks, flips uint64) {
	line, v, _ := marks.Next()
	for k, d := range r.Decisions {
		row := &rows[k]
		if v == accesslog.VerdictMissing {
			row.Missing++
			continue
		}
		row.Compared++
		if flips&(1<<k) != 0 {
			row.NearFlip++
		}
		if d.Allowed == (v == accesslog.VerdictAllowed) {
			row.Agree++
		} else if len(row.First) < keepDisagreements {
			row.First = append(row.First, Disagreement{Line: line, At: r.Arrival.At, Client: r.Arrival.Client, Server: v, Model: d})
		}
	}
}

// nearFlips marks, bit k for limiter k, the limiters that would decide the
// engine's next request otherwise had it come 1 ms earlier or later: the
// limiter's state asked (Peek) without recording. None on a store, and
// none past the first 64 limiters.
func nearFlips(e *sim.Engine, s Setting) uint64 {
	a, ok := e.Next()
	if !ok || s.Store != nil {
		return 0
	}
	var flips uint64
	for k, l := range e.Limiters() {
		if k < 64 && l.Peek(a.At-1, a.Client).Allowed != l.Peek(a.At+1, a.Client).Allowed {
			flips |= 1 << k
		}
	}
	return flips
}

// label names the row: "Sliding window log, 60 per 1m".
func (a Agreement) label() string {
	return a.Algorithm.Title() + ", " + SettingText(a.setting.Config, a.Algorithm)
}

// Share is the agreeing decisions' share of those compared, in percent.
func (a Agreement) Share() float64 {
	if a.Compared == 0 {
		return 0
	}
	return 100 * float64(a.Agree) / float64(a.Compared)
}

// PrintCompare is --compare's table: for each limiter and setting, how
// many decisions agree with the server's, and the first that do not.
func PrintCompare(w io.Writer, l *accesslog.Log, field string, rows []Agreement) {
	if len(rows) == 0 {
		return
	}
	io.WriteString(w, "\n"+human.Wrap("", "  ", fmt.Sprintf("agreement with the server's own decisions (--compare %s: 429 and 503, REJECTED… are denied):", field), report.Width))
	// Each limiter's row under its setting, as in the sweep's table.
	tw, aw := len("limiter"), len("agree")
	agree := func(a Agreement) string { return human.Int(a.Agree) + " of " + human.Int(a.Compared) }
	for _, a := range rows {
		tw = max(tw, len(rowIndent)+utf8.RuneCountInString(a.Algorithm.Title()))
		aw = max(aw, len(agree(a)))
	}
	fmt.Fprintf(w, "  %-*s  %*s  %7s\n", tw, "limiter", aw, "agree", "share")
	for i, a := range rows {
		setting := SettingText(a.setting.Config, a.Algorithm)
		if i == 0 || setting != SettingText(rows[i-1].setting.Config, rows[i-1].Algorithm) {
			fmt.Fprintf(w, "  %s\n", setting)
		}
		fmt.Fprintf(w, "  %-*s  %*s  %7s\n", tw, rowIndent+a.Algorithm.Title(), aw, agree(a), shareText(a)+"%")
	}
	for _, a := range rows {
		if a.NearFlip > 0 {
			io.WriteString(w, human.Wrap("  ", "    ", fmt.Sprintf("%s: %s within 1 ms of flipping (decided otherwise 1 ms earlier or later): a disagreement there may be the clocks'",
				human.Glue(a.label()), requestsNoun.Of(a.NearFlip)), report.Width))
		}
	}
	if m := rows[0].Missing; m > 0 {
		fmt.Fprintf(w, "  not compared: %s with no decision in %s\n", requestsNoun.Of(m), field)
	}
	for _, a := range rows {
		if len(a.First) == 0 {
			continue
		}
		more := ""
		if n := a.Compared - a.Agree - int64(len(a.First)); n > 0 {
			more = fmt.Sprintf(" (and %s more)", human.Int(n))
		}
		fmt.Fprintf(w, "  %s disagrees%s:\n", a.label(), more)
		for _, d := range a.First {
			model := "denied"
			if d.Model.Allowed {
				model = "allowed"
			}
			io.WriteString(w, human.Wrap("    ", "      ", fmt.Sprintf("%s:%d: %s at %s: the server %s, the model %s: %s", l.Name, d.Line, human.Visible(d.Client),
				human.Glue(d.At.Short()), d.Server, model, clauses(d.Model.Explain())), report.Width))
		}
	}
}

// clauses is a decision's reason to wrap between its clauses only, after
// a comma and before its arrow: the dates and times in a clause stay
// whole.
func clauses(reason string) string {
	glued := human.Glue(reason)
	glued = strings.ReplaceAll(glued, ","+human.NoBreak, ", ")
	return strings.ReplaceAll(glued, human.NoBreak+"→", " →")
}

// shareText is the share with two decimals, never rounded up to 100.
func shareText(a Agreement) string {
	if a.Compared == 0 {
		return "–"
	}
	if a.Agree == a.Compared {
		return "100"
	}
	return fmt.Sprintf("%.2f", min(a.Share(), 99.99))
}
