package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// Run is recorded traffic's requests of one client at one instant.
type Run struct {
	At     algo.Instant
	Client string
	Count  int64
}

// Recorded is what a recorded scenario says of itself.
type Recorded struct {
	From       string // the log it was read from
	Requests   int64
	Clients    int
	Config     algo.Config
	Algorithms []algo.Algorithm
	Zone       *time.Location // the calendar the windows align to (tz:), or nil for UTC's epoch
}

// WriteRecorded writes recorded traffic (runs in time order, a dated
// instant each) as a scenario file that Parse reads back to the same
// requests in the same order: every run a burst of its client at its
// instant, the whole one after another. It starts with RecordedMark, so
// it may be larger than a hand-written file (MaxRecordedSize).
func WriteRecorded(w io.Writer, r Recorded, runs iter.Seq[Run]) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%s from %s: %s of %s, a line a run at one instant.\n", RecordedMark, human.Visible(r.From),
		human.Noun{One: "request", Many: "requests"}.Of(r.Requests), human.Noun{One: "client", Many: "clients"}.Of(int64(r.Clients)))
	fmt.Fprintf(bw, "# windowlab check and windowlab tui read it; the decisions are those windowlab replay made.\n")
	name, title := recordedNames(r.From)
	fmt.Fprintf(bw, "name: %s\n", name)
	fmt.Fprintf(bw, "title: %s\n", strconv.Quote(title))
	fmt.Fprintf(bw, "limit: %d\nwindow: %s\n", r.Config.Limit, r.Config.Window)
	if r.Config.Burst > 0 {
		fmt.Fprintf(bw, "burst: %d\n", r.Config.Burst)
	}
	if r.Config.Segments > 0 {
		fmt.Fprintf(bw, "segments: %d\n", r.Config.Segments)
	}
	if r.Config.Delay > 0 {
		fmt.Fprintf(bw, "delay: %d\n", r.Config.Delay)
	}
	if r.Zone != nil {
		fmt.Fprintf(bw, "tz: %s\n", strconv.Quote(r.Zone.String()))
	}
	bw.WriteString("algorithms:\n")
	for _, a := range r.Algorithms {
		fmt.Fprintf(bw, "  - %s\n", a)
	}
	bw.WriteString("traffic:\n")
	for run := range runs {
		writeRun(bw, run, true)
	}
	return bw.Flush()
}

// writeRun writes one run a line, as parseRecorded reads it; a log's key
// (raw) by its savedName.
func writeRun(bw *bufio.Writer, run Run, raw bool) {
	if raw {
		run.Client = savedName(run.Client)
	}
	bw.WriteString(`  - {at: "`)
	bw.Write(run.At.Time().AppendFormat(bw.AvailableBuffer(), "2006-01-02T15:04:05.000Z"))
	bw.WriteString(`", client: `)
	bw.Write(strconv.AppendQuote(bw.AvailableBuffer(), run.Client))
	if run.Count != 1 {
		bw.WriteString(", count: ")
		bw.Write(strconv.AppendInt(bw.AvailableBuffer(), run.Count, 10))
	}
	bw.WriteString("}\n")
}

// savedName is how a recorded file names a log's key: by its human.Visible
// form, which a scenario file may name a client by (clientName), quoted
// too when it starts with a double quote, so that no key is named by
// another's quoted form: two keys stay two clients.
func savedName(key string) string {
	if strings.HasPrefix(key, `"`) {
		return human.Quote(key)
	}
	return human.Visible(key)
}

// recordedNames are the name and title of a recorded scenario from a log.
func recordedNames(from string) (name, title string) {
	return slug(from), human.Visible(filepath.Base(from)) + ": your traffic"
}

// slug is a scenario name from a log's file name: access.log.1.gz is
// access-log-1.
func slug(path string) string {
	if s := slugify(strings.TrimSuffix(filepath.Base(path), ".gz")); s != "" {
		return s
	}
	return "replay"
}
