package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/replay"
)

// sliceFlags are replay's --from and --to.
func sliceFlags(opts *replayOptions, f *pflag.FlagSet) {
	f.StringVar(&opts.from, "from", "", "replay only the requests from this time on (RFC 3339, or 2026-11-30 06:31 in UTC or --tz); the lines before are read and skipped")
	f.StringVar(&opts.to, "to", "", "replay only the requests before this time (as --from); the reading stops past it and --reorder")
}

// sliceLayouts are the times --from and --to read without a zone of their
// own: UTC's, or --tz's.
var sliceLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02"}

// planTimes reads --tz, then --from and --to in its zone.
func planTimes(opts replayOptions) (zone *time.Location, from, to algo.Instant, err error) {
	if zone, err = parseZone(opts.tz); err != nil {
		return nil, 0, 0, err
	}
	from, to, err = parseSlice(opts.from, opts.to, zone)
	return zone, from, to, err
}

// parseSlice reads --from and --to (0 for one not given) in zone (nil:
// UTC).
func parseSlice(from, to string, zone *time.Location) (algo.Instant, algo.Instant, error) {
	f, err := parseSliceTime("--from", from, zone)
	if err != nil {
		return 0, 0, err
	}
	t, err := parseSliceTime("--to", to, zone)
	if err != nil {
		return 0, 0, err
	}
	if f != 0 && t != 0 && t <= f {
		return 0, 0, fmt.Errorf("--to %s is not after --from %s: the slice is from --from up to --to", to, from)
	}
	return f, t, nil
}

func parseSliceTime(flag, s string, zone *time.Location) (algo.Instant, error) {
	if s == "" {
		return 0, nil
	}
	if zone == nil {
		zone = time.UTC
	}
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	for _, layout := range sliceLayouts {
		if err == nil {
			break
		}
		t, err = time.ParseInLocation(layout, s, zone)
	}
	if err != nil {
		return 0, fmt.Errorf("%s %q is not a time: give RFC 3339 (2026-11-30T06:31:00Z) or 2026-11-30 06:31 (in UTC, or in --tz's zone)", flag, s)
	}
	at := algo.Instant(t.UnixMilli())
	if !at.IsDated() || t.Year() > 9999 {
		return 0, fmt.Errorf("%s %q: give a time between the years 2000 and 9999, as a log's", flag, s)
	}
	return at, nil
}

// noRequest is the error of a log with no request: none could be read,
// or none was in --from and --to's slice.
func noRequest(l *accesslog.Log) error {
	lines := human.Noun{One: "line", Many: "lines"}
	if s := l.Slice; s.Before+s.After > 0 {
		return fmt.Errorf("%s: no request in the slice of --from and --to: of %s read, %s before it and %s after it", l.Name, lines.Of(l.Lines), lines.Of(s.Before), lines.Of(s.After))
	}
	return fmt.Errorf("%s: no request could be read from %s", l.Name, lines.Of(l.Lines))
}

// files puts the log's files in the order they are read (their first
// lines' times), saying so on errOut when it is not the order given; a
// missing or unreadable file is refused before anything is read.
func (p *replayPlan) files(errOut io.Writer, args []string) error {
	paths, reordered, err := replay.TimeOrder(args, p.log)
	if err != nil {
		return invalid(err)
	}
	if reordered {
		fmt.Fprintf(errOut, "the files' first lines are not in the order given: reading them in time order, %s\n", strings.Join(paths, ", "))
	}
	if len(paths) > 1 && p.log.Compare != nil {
		// --compare's marks name the line; several files number theirs apart.
		return invalid(errors.New("--compare reads one file: give it one file, or zcat the files into - in order"))
	}
	p.paths, p.log.Name = paths, replay.LogName(paths)
	return nil
}
