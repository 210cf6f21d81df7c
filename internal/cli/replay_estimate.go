package cli

import (
	"fmt"

	"windowlab/accesslog"
	"windowlab/human"
	"windowlab/replay"
)

// keepingFlag is the flag that makes a replay keep every request of the
// log (--tui, --save, --store, --json's report, and --recommend when it
// does not read the files again for each pass), or "" for a report, a
// sweep, --compare and --denied, which stream it.
func keepingFlag(opts replayOptions, p replayPlan) string {
	switch {
	case opts.tui:
		return "--tui"
	case opts.save != "":
		return "--save"
	case opts.recommend && !p.passes:
		return "--recommend"
	case opts.storeFlagValue != "":
		return "--store"
	case jsonReport(opts):
		return "--json"
	}
	return ""
}

// refuseTooLong refuses, before the long read, a replay that keeps every
// request of a log whose files' sizes already tell it holds more than
// accesslog.RequestLimit: estimated from their first megabytes' bytes a
// line, and a tenth over the limit (an estimate); a slice (--from, --to)
// may fit, and a pipe has no size: those are refused at the line, as
// ever.
func refuseTooLong(opts replayOptions, p replayPlan) error {
	flag := keepingFlag(opts, p)
	if flag == "" || p.log.From != 0 || p.log.To != 0 {
		return nil
	}
	e, ok, err := replay.EstimateLines(p.paths)
	if err != nil {
		return invalid(err)
	}
	if !ok || e.Lines <= accesslog.RequestLimit+accesslog.RequestLimit/10 {
		return nil
	}
	what := "this log holds"
	if len(p.paths) > 1 {
		what = fmt.Sprintf("these %d files hold", len(p.paths))
	}
	return invalid(fmt.Errorf("%s %s requests (a line each; by its size and its first megabytes); %s keeps every request, at most %s: use a report or a sweep, which keep none, or --from/--to",
		what, e.About(), flag, human.Int(accesslog.RequestLimit)))
}
