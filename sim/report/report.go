// Package report writes a replay's results for people and for scripts: a
// side-by-side text table with the lesson's lines, an optional trace of every
// decision with its evidence, and one JSON object.
//
// Both writers stream: they step the engine and write as they go, so a
// report on ten million requests holds one record at a time.
package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// Header names the scenario a report is about. Its limit, window and
// expiry are the engine's (sim.Engine.Config), not repeated here.
type Header struct {
	Name  string
	Title string
}

// ErrInterrupted is returned, after the report of what was decided, when
// the engine's Options.Interrupt stopped the replay short.
var ErrInterrupted = errors.New("interrupted before the replay ended")

// checkEvery is how many records a report writes between asking whether to
// stop and whether its output still takes writes.
const checkEvery = 4096

// Text replays e from its start and writes the side-by-side report; with
// trace, every decision is listed with its evidence before the summary.
// Interrupted (sim.Options.Interrupt), it writes the figures of what was
// decided, says so, and returns ErrInterrupted.
func Text(w io.Writer, h Header, e *sim.Engine, trace bool) error {
	return text(w, h, e, trace, false)
}

// TextCode is Text with the trace, each decision followed by the
// limiter's code with the values it held (algo.Code): a handout.
func TextCode(w io.Writer, h Header, e *sim.Engine) error {
	return text(w, h, e, true, true)
}

func text(w io.Writer, h Header, e *sim.Engine, trace, code bool) error {
	bw := bufio.NewWriter(w)
	e.SeekIndex(0)
	complete := true
	if !trace {
		// Decide first: how many requests there are and when the last one
		// came are then known, even of a source that learns them only at
		// its end (a log still being read).
		e.RunToEnd()
		complete = !e.Interrupted()
	}
	title := h.Title
	if title == "" {
		title = h.Name
	}
	fmt.Fprintf(bw, "%s\n", title)
	cfg := e.Config()
	head := fmt.Sprintf("limit %s per %s", human.Int(cfg.Limit), human.Duration(cfg.Window))
	if b := bucketBurst(e); b != 0 {
		head += fmt.Sprintf(" (token bucket burst %s)", human.Int(b))
	}
	head += fmt.Sprintf(", %s from %s", requests.Of(e.Len()), human.Glue(e.FirstArrival().Short()))
	if last := e.LastArrival(); e.Len() > 1 && !e.Interrupted() {
		head += fmt.Sprintf(" to %s", human.Glue(last.Short()))
	}
	if cfg.NoExpiry {
		head += ", expiry off"
	}
	fmt.Fprint(bw, wrapped(head), "\n")
	if trace {
		complete = !e.Interrupted() // finding the last arrival was stopped
		if complete {
			var err error
			if complete, err = writeTrace(bw, e, code); err != nil {
				return err
			}
		}
	}
	if !complete {
		fmt.Fprintf(bw, "STOPPED EARLY: %s of %s requests decided; the figures below are for those only.\n\n",
			human.Int(e.Processed()), human.Int(e.Len()))
	}
	writeSummary(bw, cfg, e.Stats())
	if err := bw.Flush(); err != nil {
		return err
	}
	if !complete {
		return ErrInterrupted
	}
	return nil
}

// writeTrace writes every decision from e's position to its end, with
// code each followed by its limiter's code; false when it was interrupted
// first.
func writeTrace(w *bufio.Writer, e *sim.Engine, code bool) (complete bool, err error) {
	width := 0
	var names []string
	var algos []algo.Algorithm
	for _, l := range e.Limiters() {
		algos = append(algos, algo.Of(l))
		names = append(names, algos[len(algos)-1].String())
		width = max(width, len(names[len(names)-1]))
	}
	for r, ok := e.Step(); ok; r, ok = e.Step() {
		fmt.Fprintf(w, "#%d  %s  %s\n", r.Index+1, r.Arrival.At, human.Visible(r.Arrival.Client))
		for i, d := range r.Decisions {
			if r.WithoutStore&(1<<i) != 0 {
				fmt.Fprintf(w, "    %-*s  %s\n", width, names[i], WithoutStoreLine(d.Allowed))
				continue // no code ran, and no count was read: the store did not answer
			}
			mark := Mark(d.Allowed)
			if d.Delay > 0 {
				mark = "◔" // allowed, held d.Delay first (nginx limit_req)
			}
			fmt.Fprintf(w, "    %-*s  %s  %s\n", width, names[i], mark, d.Explain())
			if code {
				for _, line := range algo.Code(algos[i], d).Text() {
					fmt.Fprintf(w, "        %s\n", line)
				}
			}
		}
		if (r.Index+1)%checkEvery == 0 {
			if err := w.Flush(); err != nil {
				return false, err // a closed pipe or a full disk: no use going on
			}
			if e.StopRequested() {
				fmt.Fprintln(w)
				return false, nil
			}
		}
	}
	_, err = fmt.Fprintln(w)
	return true, err
}

// WithoutStoreLine is the trace's words for a decision made without the
// store (a Redis that did not answer, under --on-store-error allow or
// deny): the policy's verdict, not the limiter's, so no evidence.
func WithoutStoreLine(allowed bool) string {
	if allowed {
		return "◌ allow: decided without the store (--on-store-error allow): Redis did not answer"
	}
	return "◌ deny: decided without the store (--on-store-error deny): Redis did not answer"
}

// Mark is the glyph for a decision: never colour alone.
func Mark(allowed bool) string {
	if allowed {
		return "✓"
	}
	return "✗"
}

func writeSummary(w io.Writer, cfg algo.Config, stats []sim.Stats) {
	writeTable(w, stats)
	fmt.Fprintln(w)
	for _, s := range stats {
		fmt.Fprint(w, wrapped(fmt.Sprintf("%s: %s", s.Algorithm, lessonLine(s, cfg.Limit, cfg.Window, human.Glue))))
	}
	for _, s := range stats {
		if len(s.Servers) == 0 {
			continue
		}
		allowed, denied := make([]string, len(s.Servers)), make([]string, len(s.Servers))
		for i, t := range s.Servers {
			allowed[i], denied[i] = human.Int(t.Allowed), human.Int(t.Denied)
		}
		fmt.Fprint(w, wrapped(fmt.Sprintf("%s, server by server: %s allowed, %s denied", s.Algorithm, strings.Join(allowed, " · "), strings.Join(denied, " · "))))
	}
	for _, s := range stats {
		if a := s.Algorithm; a.Lagged && s.ReplicaLost > 0 {
			fmt.Fprint(w, wrapped(fmt.Sprintf("%s: the replica, %s behind, took over at %s: %s increments lost.", a, human.Duration(a.Lag), a.Failover.Short(), human.Int(s.ReplicaLost))))
		}
	}
	if cfg.NoExpiry {
		fmt.Fprintln(w, "expiry is off: every window counter and timestamp stays in memory forever.")
	}
}

// writeTable writes the limiters' figures, a column a limiter: as many
// columns side by side as fit in Width, the rest in tables below (a fleet
// scenario's six limiters took 125 columns in one).
func writeTable(w io.Writer, stats []sim.Stats) {
	withDelays := slices.ContainsFunc(stats, delays)
	for from := 0; from < len(stats); {
		to := from + 1
		for to < len(stats) && widest(table(stats[from:to+1], withDelays)) <= Width {
			to++
		}
		if from > 0 {
			fmt.Fprintln(w)
		}
		io.WriteString(w, table(stats[from:to], withDelays))
		from = to
	}
}

// table is the figures of stats, a column each, with the delays' rows
// when withDelays.
func table(stats []sim.Stats, withDelays bool) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', tabwriter.AlignRight)
	row := func(label string, cell func(sim.Stats) string) {
		fmt.Fprintf(tw, "%s\t", label)
		for _, s := range stats {
			fmt.Fprintf(tw, "%s\t", cell(s))
		}
		fmt.Fprintln(tw)
	}
	row("", func(s sim.Stats) string { return s.Algorithm.String() })
	row("allowed", func(s sim.Stats) string { return human.Int(s.Allowed) })
	row("denied", func(s sim.Stats) string { return human.Int(s.Denied) })
	if withDelays {
		row("delayed", func(s sim.Stats) string { return human.Int(s.Delayed) })
		row("longest delay", func(s sim.Stats) string { return human.Duration(s.MaxDelay) })
	}
	row("most in one window", func(s sim.Stats) string { return human.Int(s.MaxInWindow) })
	row("peak memory", func(s sim.Stats) string { return s.Kind.Unit().Of(s.PeakMemory.Entries) })
	row("", func(s sim.Stats) string { return human.Bytes(s.PeakMemory.Bytes) })
	tw.Flush()
	return b.String()
}

// widest is the columns of text's longest line.
func widest(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		n = max(n, utf8.RuneCountInString(strings.TrimRight(line, "\n")))
	}
	return n
}

// Width is the columns a report's sentences are wrapped to, replay's
// summary and sweep too.
const Width = 80

// wrapped is a sentence of the report cut into lines of Width at most,
// continued under two spaces, between its words: what it glued
// (human.Glue: a date with its time, a verdict) stays whole. A real log's
// client and dates (replay) run past 80 columns.
func wrapped(text string) string { return human.Wrap("", "  ", text, Width) }

// delays reports whether the limiter may delay a request (nginx
// limit_req without nodelay): its report has a delayed row.
func delays(s sim.Stats) bool { return s.Algorithm.Rules.Bucket == algo.BucketNginx }

// LessonLine says what a limiter's busiest window means, in the lesson's words.
func LessonLine(s sim.Stats, limit int64, window time.Duration) string {
	return lessonLine(s, limit, window, func(client string) string { return client })
}

// lessonLine is LessonLine with the parts a line must not break in (the
// client and when, the verdict: "the limit of 100 held.", "twice the
// limit.") as keep writes them: a report glues them (human.Glue), so that
// wrapping moves a verdict whole to the next line rather than leave its
// last word alone there.
func lessonLine(s sim.Stats, limit int64, window time.Duration, keep func(string) string) string {
	if s.MaxInWindow == 0 {
		return "allowed nothing."
	}
	span := human.Span(int64(s.MaxInWindowFirst), int64(s.MaxInWindowLast))
	if s.MaxInWindow <= limit {
		return fmt.Sprintf("at most %s allowed to one client in any %s: %s",
			human.Int(s.MaxInWindow), human.Duration(window), keep("the limit of "+human.Int(limit)+" held."))
	}
	return fmt.Sprintf("%s allowed %s %s, %s", requests.Of(s.MaxInWindow), span,
		keep("("+human.Visible(s.MaxInWindowClient)+", "+algo.Range(s.MaxInWindowFirst, s.MaxInWindowLast)+")"),
		keep(human.Times(s.MaxInWindow, limit)+"."))
}

// requests counts requests.
var requests = human.Noun{One: "request", Many: "requests"}

// bucketBurst is the token bucket's capacity when e runs one and it is not
// the limit (a scenario's burst:, replay's --burst), else 0: the header
// names it beside the limit.
func bucketBurst(e *sim.Engine) int64 {
	cfg := e.Config()
	if cfg.Capacity() == cfg.Limit {
		return 0
	}
	for _, l := range e.Limiters() {
		if l.Kind() == algo.KindTokenBucket {
			return cfg.Capacity()
		}
	}
	return 0
}
