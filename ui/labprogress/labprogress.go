// Package labprogress shows how far a `windowlab lab` run has got: a bar
// redrawn in place with the rate and the time left on a terminal, plain
// lines now and then otherwise. It only reads the run's counters; the run
// decides nothing here, and ctrl+c reaches it through its context.
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
}

// Show reports r's progress until it is done, then writes a final line with
// how long it took. It returns when r is done.
func Show(r *lab.Run, o Options) {
	start := time.Now()
	if o.Every <= 0 {
		o.Every = 5 * time.Second
	}
	if o.Width <= 0 {
		o.Width = 80
	}
	out := o.Out
	tick := o.Every
	var bar progress.Model
	if o.Terminal {
		out = colorprofile.NewWriter(o.Out, os.Environ()) // honours NO_COLOR and the terminal's colours
		tick = 100 * time.Millisecond
		bar = progress.New(progress.WithDefaultBlend(), progress.WithFillCharacters('█', '░'), progress.WithWidth(max(20, min(40, o.Width-52))))
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-r.Done():
			if r.Err() != nil {
				return // refused before it began: the error says why
			}
			p := r.Progress()
			elapsed := time.Since(start)
			line := fmt.Sprintf("lab: %s requests from %s in %s (%s requests/s)",
				human.Int(p.Requests), sources.Of(p.Sources), human.Duration(elapsed.Round(10*time.Millisecond)), rate(p.Requests, elapsed))
			if p.Sources < p.TotalSources {
				line = fmt.Sprintf("lab: stopped after %s of %s sources (%s requests) in %s",
					human.Int(p.Sources), human.Int(p.TotalSources), human.Int(p.Requests), human.Duration(elapsed.Round(10*time.Millisecond)))
			}
			if o.Terminal {
				fmt.Fprint(out, "\r"+ansi.EraseLineRight)
			}
			fmt.Fprintln(out, line)
			return
		case <-t.C:
			p := r.Progress()
			elapsed := time.Since(start)
			if o.Terminal {
				fmt.Fprint(out, "\r"+ansi.Truncate(bar.ViewAs(fraction(p))+ansi.ResetStyle+"  "+status(p, elapsed), o.Width-1, "…")+ansi.EraseLineRight)
			} else {
				fmt.Fprintln(out, "lab: "+status(p, elapsed))
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
