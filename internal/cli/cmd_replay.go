package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/redisstore"
	"windowlab/replay"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/sim/report"
	"windowlab/ui"
)

// replayOptions are replay's flags.
type replayOptions struct {
	format, key, timeField, clientField, epoch, algorithms string
	timeMinus                                              string // --time-minus: a duration field taken from the time
	limits                                                 []int64
	windows                                                []time.Duration
	reorder                                                time.Duration
	strict, asJSON, tui                                    bool
	save, tz, storeFlagValue                               string
	onStoreError                                           string // --on-store-error
	recommendOptions
	compare string // --compare FIELD (replay/compare.go)
	denied  string // --denied FILE (replay_denied.go)
	burst   int64  // the token bucket's capacity; 0 is the limit
	// burstGiven: --burst was given, so 0 is refused, not taken for the limit.
	burstGiven bool
	segs       int64  // the segmented window's segments, when segsSet
	segsSet    bool   // --segments given
	delay      int64  // nginx limit_req's delay=N (token-bucket/nginx)
	from, to   string // --from, --to: the slice replayed (replay_files.go)
}

// newReplayCommand wires windowlab replay: a log read (with progress), then
// the report of run, or with several limits or windows a sweep's table.
func newReplayCommand() *cobra.Command {
	var opts replayOptions
	cmd := &cobra.Command{
		Use:   "replay FILE...|-",
		Short: "Replay your own access log (nginx, Apache, JSON Lines, CSV) through every limiter",
		Long: "replay reads an access log (the Common Log Format or Combined of nginx and Apache httpd, JSON Lines, CSV or TSV with a header; gzip-compressed or not; - for standard input) " +
			"and replays its requests, at the times they happened, through every limiter. Several files (rotated logs) are read as one log: in the order given when their first lines' times are in that order, else in the order of those times. " +
			"--from and --to replay a slice of it. Windows align to multiples of the window since the Unix epoch, UTC, as Redis-backed limiters do. Bad lines are " +
			"counted and the first ten named; lines out of order are put in their place when they are within --reorder of the latest. With several --limits or --windows it prints one table of " +
			"every setting: which one, for which limiter, would have denied how many of your requests and to whom. With --recommend it gives each client's peak in one --window and each limiter's " +
			"smallest limit denying at most --deny-at-most of the clients, each limit tried a replay.",
		Example: "  windowlab replay /var/log/nginx/access.log.1.gz --limits 60,120 --windows 1m\n" +
			"  windowlab replay requests.jsonl --time-field ts --key field:api_key --limit 1000 --window 1h\n" +
			"  windowlab replay export.csv --time-column when --client-column who --limit 10 --window 1s\n" +
			"  zcat access.log.*.gz | windowlab replay - --key ip+path\n" +
			"  windowlab replay access.log.3.gz access.log.2.gz access.log.1 access.log --from '2026-11-30 06:00' --to '2026-11-30 07:00'\n" +
			"  windowlab replay access.log --recommend --window 1m --deny-at-most 1%",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.burstGiven = cmd.Flags().Changed("burst")
			opts.segsSet = cmd.Flags().Changed("segments")
			return runReplay(cmd.Context(), stdioOf(cmd), opts, args)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "auto", "the log's format: auto, combined (also common, nginx, apache), json, csv or tsv")
	f.StringVar(&opts.key, "key", "ip", "who a client is: ip, user, path, status, method, field:NAME, or several joined by + (ip+path)")
	f.StringVar(&opts.timeField, "time-field", "", "the time's field (JSON) or column (CSV, TSV); default: time, timestamp, ts, @timestamp…")
	f.StringVar(&opts.timeMinus, "time-minus", "", "a field (or column) holding a duration, in seconds (0.250) or with its unit, to take from each time: nginx logs $msec at a request's end, and --time-minus request_time gives when it began and limit_req decided it")
	f.StringVar(&opts.clientField, "client-field", "", "the field or column --key ip reads; default: ip, client_ip, remote_addr…")
	f.StringVar(&opts.timeField, "time-column", "", "the same as --time-field, for CSV and TSV")
	f.StringVar(&opts.clientField, "client-column", "", "the same as --client-field, for CSV and TSV")
	f.StringVar(&opts.epoch, "epoch", "auto", "what a numeric time counts since the epoch: auto (by its size), s, ms, us or ns")
	f.DurationVar(&opts.reorder, "reorder", accesslog.DefaultReorder, "how far back in time a line may be and still be put in its place")
	f.BoolVar(&opts.strict, "strict", false, "stop at the first bad line")
	f.Int64SliceVar(&opts.limits, "limit", []int64{100}, "the requests allowed per window")
	f.Int64SliceVar(&opts.limits, "limits", []int64{100}, "several limits to compare, comma-separated (a sweep)")
	f.DurationSliceVar(&opts.windows, "window", []time.Duration{time.Minute}, "the window")
	f.DurationSliceVar(&opts.windows, "windows", []time.Duration{time.Minute}, "several windows to compare, comma-separated (a sweep)")
	f.Int64Var(&opts.burst, "burst", 0, "the token bucket's capacity in tokens, 1 or more (token-bucket and its presets: gcra, envoy, redis-cell, spring); default: the limit. token-bucket/nginx: limit_req's burst= (default 0)")
	f.Int64Var(&opts.segs, "segments", 0, "the segments the segmented window splits its window into (segmented-window, segmented-window/dotnet: SegmentsPerWindow); they must divide it into whole milliseconds; default: 4, or fewer to divide the window")
	f.Int64Var(&opts.delay, "delay", 0, "nginx limit_req's delay=N for token-bucket/nginx: requests in excess past N are delayed (default 0: all of them)")
	f.StringVar(&opts.algorithms, "algorithms", "fixed-window,sliding-log,sliding-counter", "the limiters, comma-separated (presets too: sliding-counter/httprate; fleets: fixed-window@3, @3~sync=1s, @3~split)")
	f.StringVar(&opts.save, "save", "", "write the log's traffic as a scenario file (a new file; windowlab check and tui read it)")
	f.StringVar(&opts.tz, "tz", "", "align windows to this zone's calendar (Europe/Berlin, Asia/Kolkata) rather than to UTC's")
	sliceFlags(&opts, f)
	f.BoolVar(&opts.tui, "tui", false, "open the interactive view on the log, following the client denied most")
	f.StringVar(&opts.compare, "compare", "", "compare with the server's own decisions in the log: status (429, 503 denied), field:NAME or column:NAME (nginx's $limit_req_status…)")
	f.StringVar(&opts.denied, "denied", "", "write each client denied, per limiter and setting, to a new FILE.csv (or .jsonl): how many, the first and last denial, its peak in one window")
	decideStoreFlags(cmd, &opts.storeFlagValue, &opts.onStoreError)
	recommendFlags(&opts.recommendOptions, f)
	f.BoolVar(&opts.asJSON, "json", false, "print run's JSON report, every decision (one setting; it keeps the log's requests, as --tui does), or --recommend's or --compare's; the log's summary goes to standard error")
	registerFlagCompletion(cmd, "format", completeFrom(
		cobra.CompletionWithDesc("auto", "told from the first line"),
		cobra.CompletionWithDesc("combined", "nginx's and Apache httpd's default log"),
		cobra.CompletionWithDesc("common", "the Common Log Format"),
		cobra.CompletionWithDesc("json", "JSON Lines"),
		cobra.CompletionWithDesc("csv", "comma-separated, with a header"),
		cobra.CompletionWithDesc("tsv", "tab-separated, with a header")))
	registerFlagCompletion(cmd, "key", completeFrom(
		cobra.CompletionWithDesc("ip", "the client's address"),
		cobra.CompletionWithDesc("user", "the authenticated user"),
		cobra.CompletionWithDesc("path", "the request's path"),
		cobra.CompletionWithDesc("ip+path", "each address on each path"),
		cobra.CompletionWithDesc("field:", "a JSON field or CSV column by name")))
	registerFlagCompletion(cmd, "compare", completeFrom(
		cobra.CompletionWithDesc("status", "the HTTP status: 429 and 503 are denied"),
		cobra.CompletionWithDesc("field:", "a JSON field (Combined: extra1, extra2… after the agent)"),
		cobra.CompletionWithDesc("column:", "a CSV or TSV column")))
	registerFlagCompletion(cmd, "epoch", completeFrom("auto", "s", "ms", "us", "ns"))
	registerFlagCompletion(cmd, "algorithms", completeList(algorithmCompletions()))
	cmd.MarkFlagsMutuallyExclusive("json", "tui")
	cmd.MarkFlagsMutuallyExclusive("time-field", "time-column")
	cmd.MarkFlagsMutuallyExclusive("client-field", "client-column")
	cmd.MarkFlagsMutuallyExclusive("limit", "limits")
	cmd.MarkFlagsMutuallyExclusive("window", "windows")
	return cmd
}

// parseZone reads --tz: nil for UTC (or nothing given), or an IANA zone.
func parseZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return nil, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || name == "Local" {
		return nil, fmt.Errorf("--tz %q is not a time zone; give an IANA name such as Europe/Berlin or Asia/Kolkata, or UTC", name)
	}
	return loc, nil
}

func parseAlgorithms(s string) ([]algo.Algorithm, error) {
	var out []algo.Algorithm
	for _, name := range strings.Split(s, ",") {
		a, err := algo.ParseAlgorithm(strings.TrimSpace(name))
		if err != nil {
			return nil, fmt.Errorf("--algorithms: %w", err)
		}
		out = append(out, a)
	}
	return out, nil
}

// jsonReport tells whether opts ask for run's JSON report of one setting
// (--json without --compare and --recommend, which have JSON of their own).
func jsonReport(opts replayOptions) bool {
	return opts.asJSON && opts.compare == "" && !opts.recommend
}

// replayJSON writes run's JSON report of the kept log l at one setting to
// w as it is decided, its progress on errOut.
func replayJSON(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, s replay.Setting) error {
	var decided atomic.Int64
	e, err := replay.Engine(ctx, l.Source(), s, &decided)
	if err != nil {
		return invalid(err)
	}
	stop := replay.Deciding(workOn(errOut), l.Requests, replay.Beside{Decided: &decided, Engines: 1})
	err = report.JSON(w, report.Header{Name: l.Name, Title: l.Name + ": your traffic"}, e)
	decided.Store(e.Processed()) // the last few thousand, which no interrupt counted
	stop()
	return err
}

// replayOnStore is the report of the log at one setting, decided on the
// store's Redis, pipelined; nothing is printed before Redis has answered
// the same as in process for every decision before it.
func replayOnStore(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, settings []replay.Setting, st *redisstore.Store, asJSON bool) error {
	for i := range settings {
		settings[i].Store = st
	}
	var decided atomic.Int64
	stop := replay.Deciding(workOn(errOut), l.Requests, replay.Beside{Decided: &decided, Engines: len(settings)})
	out := verified{w: w, store: st}
	var e *sim.Engine
	var err error
	if len(settings) > 1 {
		var rows []replay.Outcome
		var whole int
		rows, whole, err = replay.InTurn(ctx, l, settings, &decided)
		if err == nil && st.Err() == nil {
			if whole < len(settings) {
				fmt.Fprintf(out, "STOPPED EARLY: %d of %d settings replayed whole; the table shows those.\n\n", whole, len(settings))
			}
			replay.PrintSweep(out, l, rows)
		}
	} else {
		engine := replay.FiguresEngine // the report's figures, from the default setting's Trio
		if asJSON {
			engine = replay.Engine // every decision, with its evidence
		}
		if e, err = engine(ctx, l.Source(), settings[0], &decided); err == nil {
			h := report.Header{Name: l.Name, Title: l.Name + ": your traffic"}
			if asJSON {
				err = report.JSON(out, h, e)
			} else {
				err = report.Text(out, h, e, false)
			}
			decided.Store(e.Processed())
		} else {
			err = invalid(err)
		}
	}
	stop()
	return finishOnStore(errOut, st, e, err)
}

// recordLog writes the log as a scenario (--save, a new file) and opens
// the view on it (--tui), following the client denied most.
func recordLog(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, s replay.Setting, zone *time.Location, save string, tui bool) error {
	rec := scenarios.Recorded{From: l.Name, Requests: l.Requests, Clients: len(l.Clients()), Config: s.Config, Algorithms: s.Algorithms, Zone: zone}
	rec.Config.Offset = 0 // the scenario works it out from its zone
	if save != "" {
		if err := saveLog(w, errOut, save, rec, l); err != nil {
			return err
		}
	}
	if !tui {
		return nil
	}
	sc, err := scenarios.Record(rec, replay.Runs(l))
	if err != nil {
		return invalid(err)
	}
	focus, err := replay.Focus(ctx, l, s)
	if err != nil {
		return invalid(err)
	}
	_, err = showUI(ctx, ui.Options{Scenario: sc, Client: focus, Builtins: scenarios.Builtins()})
	return err
}

// saveLog writes the log's traffic to a new file, as it goes; a file half
// written (a full disk) is removed.
func saveLog(w, errOut io.Writer, save string, rec scenarios.Recorded, l *accesslog.Log) error {
	var counted *countingWriter
	n := 0
	err := writeNew(save, "--save", func(f io.Writer) error {
		counted = &countingWriter{w: f}
		var written atomic.Int64 // requests, for the progress
		each := func(yield func(scenarios.Run) bool) {
			for r := range replay.Runs(l) {
				n++
				written.Add(r.Count)
				if !yield(r) {
					return
				}
			}
		}
		done, shown := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(shown)
			showWork(errOut, func(elapsed time.Duration) (string, float64) {
				k := written.Load()
				return fmt.Sprintf("writing %s: %s of %s requests", filepath.Base(save), human.Int(k), human.Int(l.Requests)), float64(k) / float64(max(l.Requests, 1))
			}, done)
		}()
		err := scenarios.WriteRecorded(counted, rec, each)
		close(done)
		<-shown
		if err != nil {
			return fmt.Errorf("%s: %w", save, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %s runs, %s (windowlab check %s replays it to the same decisions; windowlab tui %s opens it)\n",
		save, human.Int(int64(n)), human.Bytes(counted.n), save, save)
	return nil
}

// refuseExisting refuses at once the file that writeNew would refuse after
// the work: one that exists (windowlab never writes over a file), or in a
// directory that does not.
func refuseExisting(path, flag string) error {
	if _, err := os.Lstat(path); err == nil {
		return invalid(fmt.Errorf("%s exists; windowlab never writes over a file: give %s another name", path, flag))
	}
	if info, err := os.Stat(filepath.Dir(path)); err != nil || !info.IsDir() {
		return invalid(fmt.Errorf("%s: %s is not a directory; give %s a file in one", path, filepath.Dir(path), flag))
	}
	return nil
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// runReplay reads the log args[0] names and prints its report or its
// sweep, saves it as a scenario or opens the view on it.
func runReplay(ctx context.Context, std stdio, opts replayOptions, args []string) error {
	plan, err := planReplay(opts, args[0])
	if err != nil {
		return err
	}
	if err := plan.files(std.err, args); err != nil {
		return err
	}
	if plan.passes, err = recommendPasses(opts, plan.paths); err != nil {
		return err
	}
	if err := refuseTooLong(opts, plan); err != nil {
		return err
	}
	var st *redisstore.Store
	if opts.storeFlagValue != "" {
		if opts.save != "" || opts.tui {
			return invalid(errors.New("--store decides a report or a sweep on Redis; --save and --tui are in process"))
		}
		// Before the log is read: an unusable Redis is said at once.
		if st, err = openStoreFor(ctx, opts.storeFlagValue, opts.onStoreError, true); err != nil {
			return err
		}
		defer closeStore(std.err, st)
	}
	return replayLog(ctx, std, opts, plan, st)
}

// replayPlan is what replay's flags ask: how to read the log, at which
// settings, in which zone.
type replayPlan struct {
	log      accesslog.Options
	settings []replay.Setting
	zone     *time.Location
	share    replay.Share // --deny-at-most, for --recommend
	paths    []string     // the log's files, in the order read
	passes   bool         // --recommend reads the files again for each pass
}

// planReplay reads replay's flags for the log name, and refuses at once
// what would refuse the replay at its end, after the long read.
func planReplay(opts replayOptions, name string) (replayPlan, error) {
	p := replayPlan{log: accesslog.Options{Name: name, TimeField: opts.timeField, TimeMinus: opts.timeMinus, ClientField: opts.clientField, Reorder: opts.reorder, Strict: opts.strict}}
	var err error
	if p.log.Format, err = accesslog.ParseFormat(opts.format); err != nil {
		return p, invalid(err)
	}
	if p.log.Key, err = accesslog.ParseKey(opts.key); err != nil {
		return p, invalid(err)
	}
	if p.log.Epoch, err = accesslog.ParseEpoch(opts.epoch); err != nil {
		return p, invalid(err)
	}
	algos, err := parseAlgorithms(opts.algorithms)
	if err != nil {
		return p, invalid(err)
	}
	if p.settings, err = replay.Settings(opts.limits, opts.windows, algos); err != nil {
		return p, invalid(err)
	}
	if opts.burstGiven && opts.burst == 0 {
		return p, invalid(errors.New("--burst 0: a token bucket's capacity is at least 1 token; give --burst 1 or more, or leave it out for the limit"))
	}
	if p.settings, err = replay.WithBurst(p.settings, opts.burst); err != nil {
		return p, invalid(err)
	}
	if opts.segsSet {
		if p.settings, err = replay.WithSegments(p.settings, opts.segs); err != nil {
			return p, invalid(err)
		}
	}
	if p.settings, err = replay.WithDelay(p.settings, opts.delay); err != nil {
		return p, invalid(err)
	}
	if p.zone, p.log.From, p.log.To, err = planTimes(opts); err != nil {
		return p, invalid(err)
	}
	if p.share, err = planRecommend(opts, p.settings); err != nil {
		return p, err
	}
	if (opts.save != "" || opts.tui) && len(p.settings) != 1 {
		return p, invalid(errors.New("--save and --tui take one setting: give one --limit and one --window"))
	}
	// What would refuse the replay at its end, said before the long read.
	if opts.save != "" {
		if err := refuseExisting(opts.save, "--save"); err != nil {
			return p, err
		}
	}
	if opts.tui {
		if err := needTerminal(); err != nil {
			return p, err
		}
	}
	if opts.compare != "" {
		c, err := accesslog.ParseCompare(opts.compare)
		if err != nil {
			return p, invalid(err)
		}
		if opts.save != "" || opts.tui || opts.storeFlagValue != "" {
			return p, invalid(errors.New("--compare decides in process; give it without --save, --tui and --store"))
		}
		p.log.Compare = &c
	}
	if opts.denied != "" {
		if opts.save != "" || opts.tui || opts.storeFlagValue != "" || opts.asJSON && opts.compare == "" {
			return p, invalid(errors.New("--denied writes its file in process beside a text report or --compare's JSON; give it without --save, --tui, --store, or --json without --compare"))
		}
		if err := refuseExisting(opts.denied, "--denied"); err != nil {
			return p, err
		}
	}
	if opts.recommend && (opts.compare != "" || opts.denied != "") {
		return p, invalid(errors.New("--recommend searches limits of its own; give it without --compare and --denied"))
	}
	if opts.asJSON && !opts.recommend && len(p.settings) > 1 && opts.compare == "" {
		return p, invalid(errors.New("--json prints one setting's report, as run does; a sweep prints its table: give one --limit and one --window"))
	}
	return p, nil
}

// streamedGCPercent is the collector's GOGC while a replay streams its log
// at one setting, sweptGCPercent at several (a sweep, --recommend's
// passes). The live heap is then the clients' state and the figures, which
// stop growing once every client is met, while the default of 100 lets the
// heap grow to twice that before a collection, so a run ending within its
// first day (short of that goal) held up to a quarter less than a longer
// one with the same clients. At 50 one setting's peaks at one day and a
// hundred are within 5%; a sweep, holding several settings' state and
// allocating more as it goes, was 13% apart at 50 and is within 5% at 25,
// for some 1% more of its CPU, which one setting is spared (BENCHMARKS.md,
// "Memory at the same clients").
const (
	streamedGCPercent = 50
	sweptGCPercent    = 25
)

// collectSooner sets the collector's GOGC to streamedGCPercent, or with
// several settings sweptGCPercent, unless the user's GOGC says otherwise.
func collectSooner(several bool) {
	if os.Getenv("GOGC") != "" {
		return
	}
	percent := streamedGCPercent
	if several {
		percent = sweptGCPercent
	}
	debug.SetGCPercent(percent)
}

// whileReading tells whether opts are decided while the log is read. A
// report or a sweep decides as its requests are put in order (one core
// reads, the others decide), and keeps none of them: the reading drops
// what every setting has decided (replay/stream.go); so do --compare and
// --denied, each setting's beside, and --recommend on files, a pass a
// step of its searches (not here: recommendInPasses). --save, --tui,
// --store (st), --recommend on standard input and --json's report (its
// header counts the requests before the first) keep the whole log first.
func whileReading(opts replayOptions, st *redisstore.Store) bool {
	return opts.save == "" && !opts.tui && st == nil && !opts.recommend && !jsonReport(opts)
}

// replayLog reads the log of p and does what opts ask with it, on st when
// it is not nil.
func replayLog(ctx context.Context, std stdio, opts replayOptions, p replayPlan, st *redisstore.Store) error {
	settings, zone, name := p.settings, p.zone, p.log.Name
	overlap := whileReading(opts, st)
	if p.passes {
		return recommendInPasses(ctx, std, opts, p)
	}
	mem, err := replayMemory(opts, p, overlap)
	if err != nil {
		return invalid(err)
	}
	p.log.Check, p.log.Windows = mem.Check, mem.Windows()
	dctx, endGrace := replay.Grace(ctx)
	defer endGrace()
	var decided atomic.Int64
	var result <-chan replay.Decision
	var beside replay.Beside
	if overlap {
		collectSooner(len(settings) > 1)
		tail := accesslog.NewTail()
		p.log.Tail, beside = tail, replay.Beside{Decided: &decided, Engines: len(settings) * enginesEach(opts)}
		result = replay.DecideAllWhileReading(dctx, tail, name, settings, zone, &decided, streamed(opts))
	}
	l, err := replay.ReadLogs(ctx, p.paths, std.in, p.log, workOn(std.err), beside)
	if errors.Is(err, replay.ErrStalled) {
		fmt.Fprintf(std.err, "%s: %v\n", name, err)
		return context.Cause(ctx)
	}
	if err != nil {
		return invalid(err)
	}
	if l.Requests == 0 {
		replay.Describe(std.err, l, zone)
		return invalid(noRequest(l))
	}
	w, summary := std.out, std.out
	if opts.asJSON {
		summary = std.err // standard output is the report's alone
	}
	replay.Describe(summary, l, zone)
	if !overlap { // the deciding beside the reading aligns its own copy
		for i := range settings {
			settings[i] = settings[i].Aligned(zone, l.First())
		}
	}
	decideCtx := ctx
	if l.Interrupted {
		// Stopped while reading: decide what was read, to report it,
		// for a second at most; a second signal quits at once (main).
		fmt.Fprintf(summary, "STOPPED EARLY while reading: the report is of the first %s, as far as a second's deciding goes.\n\n",
			human.Noun{One: "line", Many: "lines"}.Of(l.Lines))
		decideCtx = dctx
	}
	var rerr error
	switch {
	case overlap && (opts.compare != "" || opts.denied != ""):
		rerr = printStreamedCompared(ctx, dctx, w, std.err, l, len(settings), opts, result, &decided)
	case overlap:
		rerr = printDecided(dctx, w, std.err, l, len(settings), result, &decided)
	case opts.save != "" || opts.tui:
		return recordLog(decideCtx, w, std.err, l, settings[0], zone, opts.save, opts.tui)
	case opts.recommend:
		rerr = printRecommend(decideCtx, w, std.err, l, settings[0], p.share, opts.asJSON)
	case st != nil:
		rerr = replayOnStore(decideCtx, w, std.err, l, settings, st, opts.asJSON)
	case jsonReport(opts):
		rerr = replayJSON(decideCtx, w, std.err, l, settings[0])
	}
	if rerr == nil && (l.Interrupted || ctx.Err() != nil) {
		// A signal came: its exit status, even when the deciding it
		// left a second for finished in it.
		return context.Cause(ctx)
	}
	return rerr
}

// replayMemory is the budget the replay's reading is held to: what its
// settings decide side by side (all of them beside the reading when
// overlap), and what --recommend, --denied and --tui keep besides.
func replayMemory(opts replayOptions, p replayPlan, overlap bool) (*replay.Memory, error) {
	settings := p.settings
	if opts.recommend {
		return recommendMemory(p.log.Key, opts, settings)
	}
	atOnce := 1 // settings decided side by side
	if overlap {
		atOnce = len(settings) * enginesEach(opts) // all at once: none may fall a log behind
	} else if opts.save != "" && !opts.tui {
		atOnce = 0
	}
	mem, err := replay.NewMemory(p.log.Key, opts.reorder, settings, atOnce, len(settings) > 1 || opts.tui, opts.tui)
	if err == nil && opts.denied != "" {
		mem.PerClient(settings, overlap)
	}
	return mem, err
}

// printDecided waits, with the progress on errOut, for what the deciding
// beside the reading came to at the log's n settings, and prints it: one
// setting's report, or the sweep's table of those replayed whole before
// dctx (the second's grace after a signal) ended.
func printDecided(dctx context.Context, w, errOut io.Writer, l *accesslog.Log, n int, result <-chan replay.Decision, decided *atomic.Int64) error {
	stop := replay.Deciding(workOn(errOut), l.Requests, replay.Beside{Decided: decided, Engines: n})
	d := <-result
	stop()
	return printDecision(dctx, w, l, n, d)
}

// printDecision prints what the deciding beside the reading came to at
// the log's n settings (printDecided).
func printDecision(dctx context.Context, w io.Writer, l *accesslog.Log, n int, d replay.Decision) error {
	if d.Err != nil && d.Report == nil { // a setting no engine could be made for
		d.Err = invalid(d.Err)
	}
	if n == 1 {
		w.Write(d.Report)
		return d.Err
	}
	if d.Err != nil {
		return d.Err
	}
	var err error
	if dctx.Err() != nil {
		fmt.Fprintf(w, "STOPPED EARLY: %d of %d settings replayed whole; the table shows those.\n\n", d.Whole, n)
		err = context.Cause(dctx)
	}
	replay.PrintSweep(w, l, d.Rows)
	return err
}
