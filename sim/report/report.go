// Package report writes a replay's results for people and for scripts: a
// side-by-side text table with the lesson's lines, an optional trace of every
// decision with its evidence, and one JSON object.
//
// Both writers stream: they step the engine and write as they go, so a
// report on ten million requests holds one record at a time.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

// Header describes the scenario a report is about.
type Header struct {
	Name     string
	Title    string
	Limit    int64
	Window   time.Duration
	NoExpiry bool
}

// Text replays e from its start and writes the side-by-side report; with
// trace, every decision is listed with its evidence before the summary.
func Text(w io.Writer, h Header, e *sim.Engine, trace bool) error {
	bw := bufio.NewWriter(w)
	e.SeekIndex(0)
	title := h.Title
	if title == "" {
		title = h.Name
	}
	fmt.Fprintf(bw, "%s\n", title)
	fmt.Fprintf(bw, "limit %d per %s, %s from %s", h.Limit, Duration(h.Window), count(e.Len(), "request", "requests"), e.FirstArrival().Short())
	if e.Len() > 1 {
		fmt.Fprintf(bw, " to %s", e.LastArrival().Short())
	}
	if h.NoExpiry {
		fmt.Fprint(bw, ", expiry off")
	}
	fmt.Fprint(bw, "\n\n")
	if trace {
		if err := writeTrace(bw, e); err != nil {
			return err
		}
	} else {
		e.RunToEnd()
	}
	writeSummary(bw, h, e.Stats())
	return bw.Flush()
}

func writeTrace(w *bufio.Writer, e *sim.Engine) error {
	width := 0
	var names []string
	for _, l := range e.Limiters() {
		names = append(names, algo.Of(l).String())
		width = max(width, len(names[len(names)-1]))
	}
	for r, ok := e.Step(); ok; r, ok = e.Step() {
		fmt.Fprintf(w, "#%d  %s  %s\n", r.Index+1, r.Arrival.At, r.Arrival.Client)
		for i, d := range r.Decisions {
			fmt.Fprintf(w, "    %-*s  %s  %s\n", width, names[i], Mark(d.Allowed), d.Explain())
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// Mark is the glyph for a decision: never colour alone.
func Mark(allowed bool) string {
	if allowed {
		return "✓"
	}
	return "✗"
}

func writeSummary(w io.Writer, h Header, stats []sim.Stats) {
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(sim.Stats) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, s := range stats {
			fmt.Fprintf(tw, "%s\t", cell(s))
		}
		fmt.Fprintln(tw)
	}
	row("", func(s sim.Stats) string { return s.Algorithm.String() })
	row("allowed", func(s sim.Stats) string { return fmt.Sprint(s.Allowed) })
	row("denied", func(s sim.Stats) string { return fmt.Sprint(s.Denied) })
	row("most in one window", func(s sim.Stats) string { return fmt.Sprint(s.MaxInWindow) })
	row("peak memory", func(s sim.Stats) string { return Entries(s.Kind, s.PeakMemory.Entries) })
	row("", func(s sim.Stats) string { return Bytes(s.PeakMemory.Bytes) })
	tw.Flush()
	fmt.Fprintln(w)
	for _, s := range stats {
		fmt.Fprintf(w, "%s: %s\n", s.Algorithm, LessonLine(s, h.Limit, h.Window))
	}
	if h.NoExpiry {
		fmt.Fprintln(w, "expiry is off: every window counter and timestamp stays in memory forever.")
	}
}

// LessonLine says what a limiter's busiest window means, in the lesson's words.
func LessonLine(s sim.Stats, limit int64, window time.Duration) string {
	if s.MaxInWindow == 0 {
		return "allowed nothing."
	}
	span := Span(s.MaxInWindowFirst, s.MaxInWindowLast)
	if s.MaxInWindow <= limit {
		return fmt.Sprintf("at most %d allowed to one client in any %s: the limit of %d held.",
			s.MaxInWindow, Duration(window), limit)
	}
	return fmt.Sprintf("%s allowed %s (%s, %s–%s), %s.",
		count(s.MaxInWindow, "request", "requests"), span, s.MaxInWindowClient,
		s.MaxInWindowFirst.Short(), s.MaxInWindowLast.Short(), Times(s.MaxInWindow, limit))
}

// Span says how long a burst took the way the lesson does: requests at
// 12:00:59 and 12:01:00 arrived "in 2 seconds", counting clock seconds.
func Span(first, last algo.Instant) string {
	if first == last {
		return "at one instant"
	}
	if first%1000 == 0 && last%1000 == 0 {
		return "in " + count(int64(last-first)/1000+1, "second", "seconds")
	}
	return "within " + Duration(last.Sub(first))
}

// Times compares a count with the limit: "twice the limit".
func Times(n, limit int64) string {
	switch {
	case n == 2*limit:
		return "twice the limit"
	case n%limit == 0:
		return fmt.Sprintf("%d times the limit", n/limit)
	}
	return fmt.Sprintf("%s× the limit", algo.Decimal(n*100/limit, 100))
}

// Entries names a limiter's memory in its own units.
func Entries(k algo.Kind, n int64) string {
	switch k {
	case algo.KindSlidingLog:
		return count(n, "timestamp", "timestamps")
	case algo.KindTokenBucket:
		return count(n, "bucket", "buckets")
	}
	return count(n, "counter", "counters")
}

// Bytes prints a byte count with a binary unit.
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// Duration prints a window the way people say it: 1m, 90s, 1h30m, 250ms.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func count(n int64, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
