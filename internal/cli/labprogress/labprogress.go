// Package labprogress shows how far a long command has got: a bar redrawn
// in place with the rate and the time left on a terminal, plain lines now
// and then otherwise. Draw is the drawing, for any command (windowlab
// replay's reading and deciding); Show is a `windowlab lab` run's. It only
// reads counters; the work is decided elsewhere, and ctrl+c reaches it
// through its context.
package labprogress

import (
	"fmt"
	"io"
	"os"
	"time"

	"windowlab/human"

	"charm.land/bubbles/v2/progress"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"windowlab/sim/lab"
)

// Options say where to show progress and how.
type Options struct {
	Out      io.Writer // standard error, so results on standard output stay clean
	Terminal bool      // Out is a terminal: redraw a bar in place
	Width    int       // the terminal's width in columns (0: 80)
	// Every is the time between plain lines (default 5s); the bar redraws
	// ten times a second.
	Every time.Duration
	// Label starts each plain line ("lab: …"); the bar's line goes without.
	Label string
	// StatusWidth is the columns the status takes beside the bar (default
	// 52, the lab's): the bar gets what is left, up to 40.
	StatusWidth int
}

// Show reports r's progress until it is done, then writes a final line with
// how long it took. It returns when r is done.
func Show(r *lab.Run, o Options) {
	o.Label = "lab"
	Draw(o, 20, func(elapsed time.Duration) (string, float64) {
		p := r.Progress()
		return status(p, elapsed), fraction(p)
	}, func(elapsed time.Duration) string {
		if r.Err() != nil {
			return "" // refused before it began: the error says why
		}
		p := r.Progress()
		if p.Sources < p.TotalSources {
			return fmt.Sprintf("lab: stopped after %s of %s sources (%s requests) in %s",
				human.Int(p.Sources), human.Int(p.TotalSources), human.Int(p.Requests), human.Duration(elapsed.Round(10*time.Millisecond)))
		}
		return fmt.Sprintf("lab: %s requests from %s in %s (%s requests/s)",
			human.Int(p.Requests), sources.Of(p.Sources), human.Duration(elapsed.Round(10*time.Millisecond)), rate(p.Requests, elapsed))
	}, r.Done())
}

// Draw shows a long operation's status until done is closed: on a
// terminal a bar (of at least minBar columns, more as the width allows)
// and the status on one line redrawn ten times a second; otherwise a plain
// line every o.Every, after o.Label and a colon when it is set. status
// gives the text and the fraction done; final, once done, the last line
// ("" for none).
func Draw(o Options, minBar int, status func(elapsed time.Duration) (string, float64), final func(elapsed time.Duration) string, done <-chan struct{}) {
	start := time.Now()
	if o.Every <= 0 {
		o.Every = 5 * time.Second
	}
	if o.Width <= 0 {
		o.Width = 80
	}
	if o.StatusWidth <= 0 {
		o.StatusWidth = 52
	}
	out := o.Out
	tick := o.Every
	var bar progress.Model
	if o.Terminal {
		out = colorprofile.NewWriter(o.Out, os.Environ()) // honours NO_COLOR and the terminal's colours
		tick = 100 * time.Millisecond
		bar = progress.New(progress.WithDefaultBlend(), progress.WithFillCharacters('█', '░'), progress.WithWidth(max(minBar, min(40, o.Width-o.StatusWidth))))
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-done:
			if o.Terminal {
				fmt.Fprint(out, "\r"+ansi.EraseLineRight)
			}
			if line := final(time.Since(start)); line != "" {
				fmt.Fprintln(out, line)
			}
			return
		case <-t.C:
			text, frac := status(time.Since(start))
			switch {
			case o.Terminal:
				fmt.Fprint(out, "\r"+ansi.Truncate(bar.ViewAs(frac)+ansi.ResetStyle+"  "+text, o.Width-1, "…")+ansi.EraseLineRight)
			case o.Label != "":
				fmt.Fprintln(out, o.Label+": "+text)
			default:
				fmt.Fprintln(out, text)
			}
		}
	}
}

func fraction(p lab.Progress) float64 {
	if p.TotalRequests == 0 {
		return 0
	}
	return min(1, float64(p.Requests)/float64(p.TotalRequests))
}

// status is "123.4M of 400M requests · 31.2M/s · 9s left".
func status(p lab.Progress, elapsed time.Duration) string {
	s := fmt.Sprintf("%s of %s requests · %s/s", human.Compact(p.Requests), human.Compact(p.TotalRequests), rate(p.Requests, elapsed))
	if p.Requests > 0 && p.Requests < p.TotalRequests {
		left := time.Duration(float64(elapsed) * float64(p.TotalRequests-p.Requests) / float64(p.Requests))
		s += " · " + human.Duration(left.Round(time.Second)) + " left"
	}
	return s
}

func rate(n int64, elapsed time.Duration) string {
	if elapsed <= 0 {
		return "–"
	}
	return human.Compact(int64(float64(n) / elapsed.Seconds()))
}

var sources = human.Noun{One: "source", Many: "sources"}
