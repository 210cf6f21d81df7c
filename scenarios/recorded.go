package scenarios

import (
	"bufio"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strconv"
	"strings"

	"windowlab/algo"
	"windowlab/human"
)

// Run is recorded traffic's requests of one client at one instant.
type Run struct {
	At     algo.Instant
	Client string
	Count  int64
}

// MaxRuns is the most runs a recorded scenario holds, about 3 MiB of
// file: the YAML library's tree of one takes some 60 bytes of memory a
// byte of file (50,000 runs parse in about a second in 200 MB; 250,000
// took 15 s and 965 MB), and the view opens what check reads.
const MaxRuns = 50_000

// Recorded is what a recorded scenario says of itself.
type Recorded struct {
	From       string // the log it was read from
	Requests   int64
	Clients    int
	Config     algo.Config
	Algorithms []algo.Algorithm
}

// WriteRecorded writes recorded traffic (runs in time order, a dated
// instant each) as a scenario file that Parse reads back to the same
// requests in the same order: every run a burst of its client at its
// instant, the whole one after another. It starts with RecordedMark, so
// it may be larger than a hand-written file (MaxRecordedSize).
func WriteRecorded(w io.Writer, r Recorded, runs iter.Seq[Run]) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%s from %s: %s of %s, a line a run at one instant.\n", RecordedMark, r.From,
		human.Noun{One: "request", Many: "requests"}.Of(r.Requests), human.Noun{One: "client", Many: "clients"}.Of(int64(r.Clients)))
	fmt.Fprintf(bw, "# windowlab check and windowlab tui read it; the decisions are those windowlab replay made.\n")
	fmt.Fprintf(bw, "name: %s\n", slug(r.From))
	fmt.Fprintf(bw, "title: %s\n", strconv.Quote(filepath.Base(r.From)+": your traffic"))
	fmt.Fprintf(bw, "limit: %d\nwindow: %s\n", r.Config.Limit, r.Config.Window)
	bw.WriteString("algorithms:\n")
	for _, a := range r.Algorithms {
		fmt.Fprintf(bw, "  - %s\n", a)
	}
	bw.WriteString("traffic:\n")
	for run := range runs {
		at := strconv.Quote(run.At.Time().Format("2006-01-02T15:04:05.000Z"))
		if run.Count == 1 {
			fmt.Fprintf(bw, "  - {at: %s, client: %s}\n", at, strconv.Quote(run.Client))
		} else {
			fmt.Fprintf(bw, "  - {at: %s, client: %s, count: %d}\n", at, strconv.Quote(run.Client), run.Count)
		}
	}
	return bw.Flush()
}

// slug is a scenario name from a log's file name: access.log.1.gz is
// access-log-1.
func slug(path string) string {
	if s := slugify(strings.TrimSuffix(filepath.Base(path), ".gz")); s != "" {
		return s
	}
	return "replay"
}
