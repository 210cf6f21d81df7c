package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"windowlab/accesslog"
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
	stop := replay.Deciding(workOn(errOut), l.Requests*probes, &decided)
	r, err := replay.Recommend(ctx, l, s, share, &decided)
	stop()
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
		err = replay.WriteRecommendationJSON(w, l.Name, r)
	} else {
		replay.PrintRecommendation(w, r)
	}
	if err == nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
