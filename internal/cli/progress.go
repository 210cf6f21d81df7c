package cli

import (
	"io"
	"os"
	"time"

	"github.com/charmbracelet/x/term"

	"windowlab/human"
	"windowlab/internal/cli/labprogress"
	"windowlab/replay"
)

// progressOn shows the lab's progress on w: a bar when w is a terminal.
func progressOn(w io.Writer) labprogress.Options {
	show := labprogress.Options{Out: w}
	if f, ok := w.(*os.File); ok && isTerminal(f) {
		show.Terminal = true
		show.Width, _, _ = term.GetSize(f.Fd())
	}
	return show
}

// workOn is showWork on w, for the replay's long work.
func workOn(w io.Writer) replay.Work {
	return func(status func(time.Duration) (string, float64), done <-chan struct{}) { showWork(w, status, done) }
}

// showWork draws a long operation's status on w until done
// (labprogress.Draw), and a last line with how long it took when that was
// more than a second.
func showWork(w io.Writer, status func(elapsed time.Duration) (string, float64), done <-chan struct{}) {
	o := progressOn(w)
	o.StatusWidth = 115 // "reading access.log: 301.9 MiB of 1.1 GiB · 10s left · 2,711,552 lines, 695,111/s · 2,400,000 decided"
	labprogress.Draw(o, 10, status, func(elapsed time.Duration) string {
		if elapsed <= time.Second {
			return ""
		}
		text, _ := status(elapsed)
		return text + " in " + human.Duration(elapsed.Round(10*time.Millisecond))
	}, done)
}
