package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"windowlab/accesslog"
	"windowlab/human"
	"windowlab/replay"
)

// recommendOptions are replay's --recommend flags.
type recommendOptions struct {
	recommend  bool
	denyAtMost string
}

// recommendFlags adds --recommend and --deny-at-most to replay.
func recommendFlags(opts *recommendOptions, f interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
}) {
	f.BoolVar(&opts.recommend, "recommend", false, "from the log, each client's peak in one --window (percentiles, a histogram), what candidate limits deny, and each limiter's smallest limit denying at most --deny-at-most of clients")
	f.StringVar(&opts.denyAtMost, "deny-at-most", replay.DefaultDenyAtMost, "with --recommend, the share of clients a recommended limit may deny (a percentage, 0% to 100%)")
}

// planRecommend checks --recommend's flags before the log is read.
func planRecommend(opts replayOptions, settings []replay.Setting) (replay.Share, error) {
	share, err := replay.ParseShare("--deny-at-most", opts.denyAtMost)
	if err != nil {
		return share, invalid(err)
	}
	if !opts.recommend {
		return share, nil
	}
	if opts.save != "" || opts.tui || opts.storeFlagValue != "" {
		return share, invalid(errors.New("--recommend replays in process and prints its report: not with --save, --tui or --store"))
	}
	for _, s := range settings[1:] {
		if s.Config.Window != settings[0].Config.Window {
			return share, invalid(errors.New("--recommend finds the limit for one --window; give one"))
		}
	}
	return share, nil
}

// recommendMemory counts the peaks and the searches' engines, up to a
// core each side by side, in the memory budget the reading checks.
func recommendMemory(key accesslog.Key, opts replayOptions, settings []replay.Setting) (*replay.Memory, error) {
	s := settings[0]
	each := make([]replay.Setting, replay.Workers(24)) // the engines' estimate does not depend on the limit
	for i := range each {
		each[i] = s
	}
	mem, err := replay.NewMemory(key, opts.reorder, each, len(each), true, false)
	if err != nil {
		return nil, err
	}
	mem.Recommending()
	return mem, nil
}

// printRecommend runs --recommend on the log read, with the deciding's
// progress on errOut, and prints its report, or its JSON.
func printRecommend(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, s replay.Setting, share replay.Share, asJSON bool) error {
	var decided atomic.Int64
	// About: each limiter's search replays the log some log2(peak) times,
	// then each candidate limit once.
	probes := int64(len(s.Algorithms)) * 12
	stop := replay.Deciding(workOn(errOut), l.Requests*probes, replay.Beside{Decided: &decided}) // a request once a probe
	r, err := replay.Recommend(ctx, l, s, share, &decided)
	stop()
	return writeRecommend(ctx, w, errOut, l.Name, r, err, asJSON)
}

// writeRecommend prints --recommend's report, or its JSON, of what it
// found (err: what stopped it).
func writeRecommend(ctx context.Context, w, errOut io.Writer, name string, r *replay.Recommendation, err error, asJSON bool) error {
	if err != nil {
		return invalid(err)
	}
	if !r.Complete {
		stopped := w // as the sweep says it: the report's first line
		if asJSON {
			stopped = errOut // standard output is the JSON's alone; "complete": false says it there
		}
		fmt.Fprint(stopped, "STOPPED EARLY: the report shows what was replayed whole; the rest was not.\n\n")
	}
	if asJSON {
		err = replay.WriteRecommendationJSON(w, name, r)
	} else {
		replay.PrintRecommendation(w, r)
	}
	if err == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}

// recommendKeepsAtMost is the most lines (estimated by the files' sizes)
// of regular files that --recommend keeps, reading them once and
// replaying each probe from memory; longer ones (or any past half the
// requests a log kept may hold) it reads again for each pass, keeping
// none. Standard input and a fifo, read once, are kept. A test lowers it.
var recommendKeepsAtMost int64 = 2_000_000

// recommendPasses says whether --recommend reads the files at paths again
// for each pass rather than keep them.
func recommendPasses(opts replayOptions, paths []string) (bool, error) {
	if !opts.recommend {
		return false, nil
	}
	e, ok, err := replay.EstimateLines(paths)
	if err != nil {
		return false, invalid(err)
	}
	return ok && (e.Lines > recommendKeepsAtMost || e.Lines > accesslog.RequestLimit/2), nil
}

// recommendInPasses runs --recommend on regular files read again for each
// pass, keeping none of their requests (replay/recommend_stream.go): the
// first pass finds the peaks and gives the log's summary.
func recommendInPasses(ctx context.Context, std stdio, opts replayOptions, p replayPlan) error {
	s := p.settings[0]
	mem, err := replay.NewMemory(p.log.Key, opts.reorder, p.settings[:1], 1, false, false)
	if err != nil {
		return invalid(err)
	}
	first := p.log
	first.Check, first.Windows = mem.Check, mem.Windows()
	tail := accesslog.NewTail()
	first.Tail = tail
	collectSooner(true) // its passes decide several limits at once
	peaks := replay.PeaksWhileReading(tail, s, p.zone)
	work := workOn(std.err)
	l, err := replay.ReadLogs(ctx, p.paths, std.in, first, replay.PassWork(work, 1, 0, "the peaks"), replay.Beside{})
	if err != nil {
		tail.Abandon()
		if errors.Is(err, replay.ErrStalled) {
			fmt.Fprintf(std.err, "%s: %v\n", p.log.Name, err)
			return context.Cause(ctx)
		}
		return invalid(err)
	}
	found := <-peaks
	w, summary := std.out, std.out
	if opts.asJSON {
		summary = std.err // standard output is the report's alone
	}
	replay.Describe(summary, l, p.zone)
	if l.Requests == 0 {
		return invalid(noRequest(l))
	}
	if l.Interrupted {
		fmt.Fprintf(summary, "STOPPED EARLY while reading: the peaks are of the first %s; no limit was searched.\n\n", human.Noun{One: "line", Many: "lines"}.Of(l.Lines))
	}
	s = s.Aligned(p.zone, l.First())
	passes := replay.NewPasses(p.paths, p.log, work, l)
	r, err := replay.RecommendPasses(ctx, passes, s, p.share, found, nil)
	err = writeRecommend(ctx, w, std.err, l.Name, r, err, opts.asJSON)
	if err == nil && l.Interrupted {
		return context.Cause(ctx)
	}
	return err
}
