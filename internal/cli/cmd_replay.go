package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"windowlab/accesslog"
	"windowlab/algo"
	"windowlab/human"
	"windowlab/redisstore"
	"windowlab/scenarios"
	"windowlab/sim"
	"windowlab/sim/report"
	"windowlab/ui"
	"windowlab/ui/labprogress"
)

// replayCmd wires windowlab replay: a log read (with progress), then the
// report of run, or with several limits or windows a sweep's table.
func replayCmd() *cobra.Command {
	var (
		format, key, timeField, clientField, epoch, algorithms string
		limits                                                 []int64
		windows                                                []time.Duration
		reorder                                                time.Duration
		strict, asJSON, tui                                    bool
		save, tz, storeFlagValue                               string
	)
	cmd := &cobra.Command{
		Use:   "replay FILE|-",
		Short: "Replay your own access log (nginx, Apache, JSON Lines, CSV) through every limiter",
		Long: "replay reads an access log (the Common Log Format or Combined of nginx and Apache httpd, " +
			"JSON Lines, CSV or TSV with a header; gzip-compressed or not; - for standard input) and " +
			"replays its requests, at the times they happened, through every limiter. Windows align to " +
			"multiples of the window since the Unix epoch, UTC, as Redis-backed limiters do. Bad lines are " +
			"counted and the first ten named; lines out of order are put in their place when they are " +
			"within --reorder of the latest. With several --limits or --windows it prints one table of " +
			"every setting: which one, for which limiter, would have denied how many of your requests and " +
			"to whom.",
		Example: "  windowlab replay /var/log/nginx/access.log.1.gz --limits 60,120 --windows 1m\n" +
			"  windowlab replay requests.jsonl --time-field ts --key field:api_key --limit 1000 --window 1h\n" +
			"  windowlab replay export.csv --time-column when --client-column who --limit 10 --window 1s\n" +
			"  zcat access.log.*.gz | windowlab replay - --key ip+path",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			opts := accesslog.Options{Name: args[0], TimeField: timeField, ClientField: clientField, Reorder: reorder, Strict: strict}
			var err error
			if opts.Format, err = accesslog.ParseFormat(format); err != nil {
				return invalid(err)
			}
			if opts.Key, err = accesslog.ParseKey(key); err != nil {
				return invalid(err)
			}
			if opts.Epoch, err = accesslog.ParseEpoch(epoch); err != nil {
				return invalid(err)
			}
			algos, err := parseAlgorithms(algorithms)
			if err != nil {
				return invalid(err)
			}
			settings, err := sweepSettings(limits, windows, algos)
			if err != nil {
				return invalid(err)
			}
			zone, err := parseZone(tz)
			if err != nil {
				return invalid(err)
			}
			if (save != "" || tui) && len(settings) != 1 {
				return invalid(errors.New("--save and --tui take one setting: give one --limit and one --window"))
			}
			// What would refuse the replay at its end, said before the long read.
			if save != "" {
				if err := refuseExisting(save, "--save"); err != nil {
					return err
				}
			}
			if tui {
				if err := needTerminal(); err != nil {
					return err
				}
			}
			if asJSON && len(settings) > 1 {
				return invalid(errors.New("--json prints one setting's report, as run does; a sweep prints its table: give one --limit and one --window"))
			}
			var st *redisstore.Store
			if storeFlagValue != "" {
				if save != "" || tui {
					return invalid(errors.New("--store decides a report or a sweep on Redis; --save and --tui are in process"))
				}
				// Before the log is read: an unusable Redis is said at once.
				if st, err = openStore(ctx, storeFlagValue, true); err != nil {
					return err
				}
				defer closeStore(cmd.ErrOrStderr(), st)
			}
			// A report or a sweep decides while the log is read, as its
			// requests are put in order (one core reads, the others decide);
			// --json, --save, --tui and --store need the whole log first.
			overlap := !asJSON && save == "" && !tui && st == nil
			atOnce := 1 // settings decided side by side
			if overlap && len(settings) > 1 {
				atOnce = sweepWorkers(len(settings))
			} else if save != "" && !tui {
				atOnce = 0
			}
			mem, err := newReplayMemory(opts.Key, reorder, settings, atOnce, len(settings) > 1 || tui, tui)
			if err != nil {
				return invalid(err)
			}
			opts.Check, opts.Windows = mem.check, mem.windows
			dctx, endGrace := graceAfter(ctx)
			defer endGrace()
			var decided atomic.Int64
			var result <-chan decision
			var counting *atomic.Int64
			if overlap {
				tail := accesslog.NewTail()
				opts.Tail, counting = tail, &decided
				result = decideWhileReading(dctx, tail, args[0], settings, zone, &decided)
			}
			l, err := readLog(ctx, args[0], cmd.InOrStdin(), opts, cmd.ErrOrStderr(), counting)
			if errors.Is(err, errStalled) {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s: %v\n", args[0], err)
				return context.Cause(ctx)
			}
			if err != nil {
				return invalid(err)
			}
			if l.Requests == 0 {
				describeLog(cmd.ErrOrStderr(), l, zone)
				return invalid(fmt.Errorf("%s: no request could be read from %s", args[0], human.Noun{One: "line", Many: "lines"}.Of(l.Lines)))
			}
			w, summary := cmd.OutOrStdout(), cmd.OutOrStdout()
			if asJSON {
				summary = cmd.ErrOrStderr() // standard output is the report's alone
			}
			describeLog(summary, l, zone)
			if !overlap { // the deciding beside the reading aligns its own copy
				for i := range settings {
					settings[i] = settings[i].aligned(zone, l.First())
				}
			}
			if l.Interrupted {
				// Stopped while reading: decide what was read, to report it,
				// for a second at most; a second signal quits at once (main).
				fmt.Fprintf(summary, "STOPPED EARLY while reading: the report is of the first %s, as far as a second's deciding goes.\n\n",
					human.Noun{One: "line", Many: "lines"}.Of(l.Lines))
				ctx = dctx
			}
			var rerr error
			switch {
			case save != "" || tui:
				return recordLog(ctx, w, cmd.ErrOrStderr(), l, settings[0], zone, save, tui)
			case st != nil:
				rerr = replayOnStore(ctx, w, cmd.ErrOrStderr(), l, settings, st, asJSON)
			case asJSON:
				rerr = replayReport(ctx, w, l, settings[0], cmd.ErrOrStderr())
			default:
				stop := deciding(cmd.ErrOrStderr(), l.Requests*int64(len(settings)), &decided)
				d := <-result
				stop()
				if len(settings) == 1 {
					w.Write(d.report)
					rerr = d.err
				} else if rerr = d.err; rerr == nil {
					if dctx.Err() != nil {
						fmt.Fprintf(w, "STOPPED EARLY: %d of %d settings replayed whole; the table shows those.\n\n", d.whole, len(settings))
						rerr = context.Cause(dctx)
					}
					printSweep(w, l, d.rows)
				}
			}
			if rerr == nil && (l.Interrupted || cmd.Context().Err() != nil) {
				// A signal came: its exit status, even when the deciding it
				// left a second for finished in it.
				return context.Cause(cmd.Context())
			}
			return rerr
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", "auto", "the log's format: auto, combined (also common, nginx, apache), json, csv or tsv")
	f.StringVar(&key, "key", "ip", "who a client is: ip, user, path, status, method, field:NAME, or several joined by + (ip+path)")
	f.StringVar(&timeField, "time-field", "", "the time's field (JSON) or column (CSV, TSV); default: time, timestamp, ts, @timestamp…")
	f.StringVar(&clientField, "client-field", "", "the field or column --key ip reads; default: ip, client_ip, remote_addr…")
	f.StringVar(&timeField, "time-column", "", "the same as --time-field, for CSV and TSV")
	f.StringVar(&clientField, "client-column", "", "the same as --client-field, for CSV and TSV")
	f.StringVar(&epoch, "epoch", "auto", "what a numeric time counts since the epoch: auto (by its size), s, ms, us or ns")
	f.DurationVar(&reorder, "reorder", accesslog.DefaultReorder, "how far back in time a line may be and still be put in its place")
	f.BoolVar(&strict, "strict", false, "stop at the first bad line")
	f.Int64SliceVar(&limits, "limit", []int64{100}, "the requests allowed per window")
	f.Int64SliceVar(&limits, "limits", []int64{100}, "several limits to compare, comma-separated (a sweep)")
	f.DurationSliceVar(&windows, "window", []time.Duration{time.Minute}, "the window")
	f.DurationSliceVar(&windows, "windows", []time.Duration{time.Minute}, "several windows to compare, comma-separated (a sweep)")
	f.StringVar(&algorithms, "algorithms", "fixed-window,sliding-log,sliding-counter", "the limiters, comma-separated (presets too: sliding-counter/httprate)")
	f.StringVar(&save, "save", "", "write the log's traffic as a scenario file (a new file; windowlab check and tui read it)")
	f.StringVar(&tz, "tz", "", "align windows to this zone's calendar (Europe/Berlin, Asia/Kolkata) rather than to UTC's")
	f.BoolVar(&tui, "tui", false, "open the interactive view on the log, following the client denied most")
	storeFlag(cmd, &storeFlagValue)
	f.BoolVar(&asJSON, "json", false, "print run's JSON report (one setting only); the log's summary goes to standard error")
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
	registerFlagCompletion(cmd, "epoch", completeFrom("auto", "s", "ms", "us", "ns"))
	registerFlagCompletion(cmd, "algorithms", completeList(algorithmCompletions()))
	cmd.MarkFlagsMutuallyExclusive("json", "tui")
	cmd.MarkFlagsMutuallyExclusive("time-field", "time-column")
	cmd.MarkFlagsMutuallyExclusive("client-field", "client-column")
	cmd.MarkFlagsMutuallyExclusive("limit", "limits")
	cmd.MarkFlagsMutuallyExclusive("window", "windows")
	return cmd
}

// setting is one limit and window of a sweep, for every limiter.
type setting struct {
	cfg   algo.Config
	algos []algo.Algorithm
	store *redisstore.Store // --store: where its limiters decide, or nil
}

// aligned is s with its windows on zone's calendar, at the offset the zone
// has at first (nil: UTC's, as it is).
func (s setting) aligned(zone *time.Location, first algo.Instant) setting {
	if zone != nil {
		s.cfg.Offset = algo.CalendarOffset(zone, first, s.cfg.Window)
	}
	return s
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

// maxSettings bounds a sweep: each setting is a replay of the whole log.
const maxSettings = 24

func sweepSettings(limits []int64, windows []time.Duration, algos []algo.Algorithm) ([]setting, error) {
	if n := len(limits) * len(windows); n > maxSettings {
		return nil, fmt.Errorf("--limits × --windows is %d settings; compare at most %d at once", n, maxSettings)
	}
	var out []setting
	for _, w := range windows {
		for _, lim := range limits {
			cfg := algo.Config{Limit: lim, Window: w}
			for _, a := range algos {
				if _, err := a.New(cfg); err != nil {
					return nil, fmt.Errorf("limit %d per %s for %s: %w", lim, human.Duration(w), a, err)
				}
			}
			out = append(out, setting{cfg: cfg, algos: algos})
		}
	}
	return out, nil
}

// openLog opens path, or standard input for -, and says its size when it
// is a file (for the progress's time left). Standard input and a fifo,
// which may wait without end, are read as waitingInputs: their reading
// stops when ctx ends.
func openLog(ctx context.Context, path string, stdin io.Reader) (io.Reader, int64, func(), error) {
	if path == "-" {
		in := newWaitingInput(ctx, func() (io.Reader, func(), error) { return stdin, func() {}, nil })
		return in, 0, in.Close, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, nil, err
	}
	if info.IsDir() {
		return nil, 0, nil, fmt.Errorf("%s: is a directory, not a log", path)
	}
	if !info.Mode().IsRegular() {
		in := newWaitingInput(ctx, func() (io.Reader, func(), error) {
			f, err := os.Open(path) // a fifo's opening waits for its writer
			if err != nil {
				return nil, nil, err
			}
			return f, func() { f.Close() }, nil
		})
		return in, 0, in.Close, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, err
	}
	return f, info.Size(), func() { f.Close() }, nil
}

// errStalled is a log whose input gave nothing before a signal (a pipe
// from a stalled command, a fifo nobody writes).
var errStalled = errors.New("stopped while waiting for the log's next line; nothing was decided")

// readLog opens and reads the log with progress on errOut: a bar on a
// terminal, a line every few seconds otherwise. A signal stops it where it
// is, even waiting on an idle input (errStalled when it had no request).
func readLog(ctx context.Context, path string, stdin io.Reader, opts accesslog.Options, errOut io.Writer, decided *atomic.Int64) (*accesslog.Log, error) {
	var read, lines, size atomic.Int64
	opts.Progress = func(b, n int64) { read.Store(b); lines.Store(n) }
	opts.Interrupt = func() bool { return ctx.Err() != nil }
	done := make(chan struct{})
	shown := make(chan struct{})
	go func() {
		defer close(shown)
		showProgress(errOut, "reading "+filepath.Base(opts.Name), &size, &read, &lines, decided, done)
	}()
	defer func() { close(done); <-shown }()
	in, n, closeIn, err := openLog(ctx, path, stdin)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	size.Store(n)
	l, err := accesslog.Read(in, opts)
	if err == nil && l.Interrupted && l.Requests == 0 {
		return nil, errStalled
	}
	return l, err
}

// showProgress draws a reading's progress until done: bytes of size (when
// known), lines a second, the time left, and the requests decided so far
// when the deciding goes on beside it.
func showProgress(w io.Writer, what string, sizeOf, read, lines, decided *atomic.Int64, done <-chan struct{}) {
	showWork(w, func(elapsed time.Duration) (string, float64) {
		// What matters most first: a narrow terminal cuts the end.
		b, n, size := read.Load(), lines.Load(), sizeOf.Load()
		text := what + ": "
		frac := 0.0
		if size > 0 {
			frac = min(float64(b)/float64(size), 1)
			text += fmt.Sprintf("%s of %s · ", human.Bytes(b), human.Bytes(size))
			if b > 0 && b < size {
				text += human.Duration((time.Duration(float64(elapsed) * float64(size-b) / float64(b))).Round(time.Second)) + " left · "
			}
		}
		text += fmt.Sprintf("%s lines, %s/s", human.Int(n), human.Int(int64(float64(n)/max(elapsed.Seconds(), 0.001))))
		if decided != nil {
			text += " · " + human.Int(decided.Load()) + " decided"
		}
		return text, frac
	}, done)
}

// showDeciding draws the deciding's progress until done: requests decided
// of total, a second (of those decided since it began: some may have been
// decided while the log was read), the time left.
func showDeciding(w io.Writer, total int64, decided *atomic.Int64, done <-chan struct{}) {
	base := decided.Load()
	showWork(w, func(elapsed time.Duration) (string, float64) {
		n := decided.Load()
		text := fmt.Sprintf("deciding: %s of %s requests, %s/s", human.Int(n), human.Int(total), human.Int(int64(float64(n-base)/max(elapsed.Seconds(), 0.001))))
		if left := (time.Duration(float64(elapsed) * float64(total-n) / float64(max(n-base, 1)))).Round(time.Second); n < total && left > 0 {
			text += " · " + human.Duration(left) + " left"
		}
		return text, min(float64(n)/float64(max(total, 1)), 1)
	}, done)
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

// describeLog says what was read: the lines, the format, the requests and
// their span, the clients, the time resolution, and the lines left out.
func describeLog(w io.Writer, l *accesslog.Log, zone *time.Location) {
	fmt.Fprintf(w, "%s: %s, %s; %s", l.Name, human.Noun{One: "line", Many: "lines"}.Of(l.Lines), l.Format,
		human.Noun{One: "request", Many: "requests"}.Of(l.Requests))
	if l.Requests > 0 {
		fmt.Fprintf(w, " from %s to %s UTC, %s by %s", l.First().Short(), l.Last().Short(),
			human.Noun{One: "client", Many: "clients"}.Of(int64(len(l.Clients()))), l.Key)
	}
	fmt.Fprintln(w)
	if r := l.Resolution(); r != "" {
		fmt.Fprintf(w, "  %s\n", r)
	}
	if zone != nil && l.Requests > 0 {
		first, last := zoneName(zone, l.First()), zoneName(zone, l.Last())
		fmt.Fprintf(w, "  windows align to %s's calendar, %s at the first request", zone, first)
		if last != first {
			fmt.Fprintf(w, "; it is %s by the last, and the windows keep %s throughout", last, first)
		}
		fmt.Fprintln(w)
	}
	problems := func(what human.Noun, n int64, ps []accesslog.Problem) {
		if n == 0 {
			return
		}
		fmt.Fprintf(w, "  %s, not replayed:\n", what.Of(n))
		for _, p := range ps {
			fmt.Fprintf(w, "    %s:%d: %s\n", l.Name, p.Line, p.Why)
		}
		if rest := n - int64(len(ps)); rest > 0 {
			fmt.Fprintf(w, "    … and %s more\n", human.Int(rest))
		}
	}
	problems(human.Noun{One: "bad line", Many: "bad lines"}, l.BadLines, l.Bad)
	problems(human.Noun{One: "line too far out of order (--reorder)", Many: "lines too far out of order (--reorder)"}, l.LateLines, l.Late)
	fmt.Fprintln(w)
}

// replayReport is run's JSON report of the log at one setting.
func replayReport(ctx context.Context, w io.Writer, l *accesslog.Log, s setting, errOut io.Writer) error {
	var decided atomic.Int64
	e, err := logEngine(ctx, l.Source(), s, &decided)
	if err != nil {
		return invalid(err)
	}
	stop := deciding(errOut, l.Requests, &decided)
	err = report.JSON(w, report.Header{Name: l.Name, Title: l.Name + ": your traffic"}, e)
	decided.Store(e.Processed()) // the last few thousand, which no interrupt counted
	stop()
	return err
}

// replayOnStore is the report of the log at one setting, decided on the
// store's Redis, pipelined; nothing is printed before Redis has answered
// the same as in process for every decision before it.
func replayOnStore(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, settings []setting, st *redisstore.Store, asJSON bool) error {
	for i := range settings {
		settings[i].store = st
	}
	var decided atomic.Int64
	stop := deciding(errOut, l.Requests*int64(len(settings)), &decided)
	out := verified{w: w, store: st}
	var e *sim.Engine
	var err error
	if len(settings) > 1 {
		// One setting after another: Redis, one thread, is the bound.
		var rows []outcome
		whole := 0
		for _, s := range settings {
			r, serr := replaySetting(ctx, l.Source(), s, &decided)
			if serr != nil || r == nil {
				err = serr
				break
			}
			rows, whole = append(rows, r...), whole+1
		}
		if err == nil && st.Err() == nil {
			if whole < len(settings) {
				fmt.Fprintf(out, "STOPPED EARLY: %d of %d settings replayed whole; the table shows those.\n\n", whole, len(settings))
			}
			printSweep(out, l, rows)
		}
	} else if e, err = logEngine(ctx, l.Source(), settings[0], &decided); err == nil {
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
	stop()
	return finishOnStore(errOut, st, e, err)
}

// graceAfter is a context that ends a second after ctx does: how long a
// replay goes on deciding what it read after a signal, to report it.
func graceAfter(ctx context.Context) (context.Context, context.CancelFunc) {
	g, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	var timer *time.Timer
	var mu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		timer = time.AfterFunc(time.Second, func() { cancel(context.Cause(ctx)) })
	})
	return g, func() {
		stop()
		mu.Lock()
		if timer != nil {
			timer.Stop()
		}
		mu.Unlock()
		cancel(nil)
	}
}

// decision is what deciding a log at its settings came to: one setting's
// report, or a sweep's rows and how many settings it replayed whole.
type decision struct {
	report []byte
	rows   []outcome
	whole  int
	err    error
}

// decideWhileReading decides the log at every setting as the tail gets
// its requests, while Read still reads it, and sends what it came to when
// the reading and the deciding have both ended (or ctx has).
func decideWhileReading(ctx context.Context, tail *accesslog.Tail, name string, settings []setting, zone *time.Location, decided *atomic.Int64) <-chan decision {
	out := make(chan decision, 1)
	settings = slices.Clone(settings) // its own: the caller goes on with its copy
	go func() {
		if zone != nil {
			// The zone's offset at the first request sets the windows' edges.
			first, ok := tail.First()
			if !ok {
				out <- decision{}
				return
			}
			for i := range settings {
				settings[i] = settings[i].aligned(zone, first)
			}
		}
		if len(settings) > 1 {
			rows, whole, err := sweep(ctx, tail.Source, settings, decided)
			out <- decision{rows: rows, whole: whole, err: err}
			return
		}
		e, err := logEngine(ctx, tail.Source(), settings[0], decided)
		if err != nil {
			out <- decision{err: invalid(err)}
			return
		}
		var b bytes.Buffer
		err = report.Text(&b, report.Header{Name: name, Title: name + ": your traffic"}, e, false)
		decided.Store(e.Processed()) // the last few thousand, which no interrupt counted
		out <- decision{report: b.Bytes(), err: err}
	}()
	return out
}

// deciding shows the deciding's progress on errOut until stop is called.
func deciding(errOut io.Writer, total int64, decided *atomic.Int64) (stop func()) {
	done, shown := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(shown)
		showDeciding(errOut, total, decided, done)
	}()
	return func() { close(done); <-shown }
}

// logEngine is an engine replaying the log at setting s; every few
// thousand requests it adds what it decided to decided (when set), for
// the progress.
func logEngine(ctx context.Context, src sim.Source, s setting, decided *atomic.Int64) (*sim.Engine, error) {
	ls := make([]algo.Limiter, len(s.algos))
	for i, a := range s.algos {
		lim, err := a.New(s.cfg)
		if err != nil {
			return nil, err
		}
		ls[i] = lim
	}
	if s.store != nil {
		var err error
		if ls, err = s.store.WrapAll(ls); err != nil {
			return nil, err
		}
	}
	var last int64
	interrupt := func(n int64) bool {
		if decided != nil && n > last {
			decided.Add(n - last)
			last = n
		}
		return ctx.Err() != nil || s.store != nil && s.store.Err() != nil
	}
	return sim.New(src, ls, sim.Options{ForwardOnly: true, Interrupt: interrupt})
}

// outcome is one limiter's at one setting of a sweep.
type outcome struct {
	setting  setting
	stats    sim.Stats
	affected int       // clients denied at least once
	top      []denied  // the clients denied most
	allowed  histogram // allowed, when
}

// label names a row of the sweep: "Sliding window log, 60 per 1m".
func (o outcome) label() string {
	return fmt.Sprintf("%s, %s per %s", o.stats.Algorithm.Title(), human.Int(o.setting.cfg.Limit), human.Duration(o.setting.cfg.Window))
}

// chartWidth is how many buckets the sweep's chart has.
const chartWidth = 60

// bucketOf is the chart's bucket: the first of the steps below that makes
// the log's span fit chartWidth buckets.
func bucketOf(l *accesslog.Log) time.Duration { return bucketFor(l.First(), l.Last()) }

// bucketFor is bucketOf for a log from first to last.
func bucketFor(first, last algo.Instant) time.Duration {
	span := last.Sub(first)
	for _, d := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour} {
		if span/d < chartWidth {
			return d
		}
	}
	day := 24 * time.Hour
	return (span/chartWidth/day + 1) * day // whole days, for a log of years
}

// bucketIndex is the chart's bucket of instant t.
func bucketIndex(l *accesslog.Log, bucket time.Duration, t algo.Instant) int {
	return min(int(t.Sub(l.First().Truncate(bucket))/bucket), chartWidth-1)
}

type denied struct {
	client string
	n      int64
}

// sweep replays the log at every setting, side by side, one a core: each
// engine reads the log's requests from a source of its own (the log is
// read-only), and none waits on another. It returns every row of the
// settings replayed whole, and how many they were.
func sweep(ctx context.Context, source func() sim.Source, settings []setting, decided *atomic.Int64) ([]outcome, int, error) {
	results := make([][]outcome, len(settings))
	errs := make([]error, len(settings))
	next := make(chan int)
	var wg sync.WaitGroup
	for range sweepWorkers(len(settings)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = replaySetting(ctx, source(), settings[i], decided)
			}
		}()
	}
	for i := range settings {
		next <- i
	}
	close(next)
	wg.Wait()
	var rows []outcome
	whole := 0
	for i, r := range results {
		if errs[i] != nil && !errors.Is(errs[i], context.Canceled) && ctx.Err() == nil {
			return nil, 0, invalid(errs[i])
		}
		if r != nil {
			whole++
			rows = append(rows, r...)
		}
	}
	return rows, whole, nil
}

// replaySetting replays the whole log at one setting and counts, for each
// limiter, the denials of each client and what it allowed when; nil when
// ctx ended first.
func replaySetting(ctx context.Context, src sim.Source, s setting, decided *atomic.Int64) ([]outcome, error) {
	e, err := logEngine(ctx, src, s, nil)
	if err != nil {
		return nil, err
	}
	// By the clients' numbers in the log: a few bytes a client, where maps
	// took some 170 (replayMemory counts them).
	deniedBy := make([][]int32, len(s.algos))
	allowed := make([]histogram, len(s.algos))
	var names []string // the clients denied, by their number in the log
	var counted int64
	defer func() {
		if decided != nil {
			decided.Add(e.Processed() - counted)
		}
	}()
	for n := int64(0); ; n++ {
		r, ok := e.Step()
		if !ok {
			break
		}
		if n%4096 == 0 && n > 0 {
			if decided != nil {
				decided.Add(n - counted)
				counted = n
			}
			if ctx.Err() != nil {
				return nil, nil
			}
		}
		for k, d := range r.Decisions {
			if d.Allowed {
				allowed[k].add(r.Arrival.At)
				continue
			}
			c := int(r.Arrival.Number - 1) // the log numbers its clients from 1
			deniedBy[k], names = reach(deniedBy[k], c), reach(names, c)
			deniedBy[k][c]++
			names[c] = r.Arrival.Client
		}
	}
	var out []outcome
	for k, st := range e.Stats() {
		o := outcome{setting: s, stats: st, allowed: allowed[k]}
		mostFirst := func(a, b denied) int { return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.client, b.client)) }
		for c, n := range deniedBy[k] {
			if n == 0 {
				continue
			}
			o.affected++
			// The five denied most, kept as they are met: not a list of every client.
			d := denied{names[c], int64(n)}
			if i, _ := slices.BinarySearchFunc(o.top, d, mostFirst); i < 5 {
				o.top = slices.Insert(o.top, i, d)[:min(len(o.top)+1, 5)]
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// reach is s long enough to index i, grown as append grows it.
func reach[T any](s []T, i int) []T {
	if i < len(s) {
		return s
	}
	s = append(s, make([]T, i+1-len(s))...)
	return s[:cap(s)]
}

// printSweep is the sweep's table: a row per limiter and setting.
func printSweep(w io.Writer, l *accesslog.Log, rows []outcome) {
	if len(rows) == 0 {
		return
	}
	clients := int64(len(l.Clients()))
	fmt.Fprintf(w, "%-34s %-16s %9s %8s %18s  %s\n", "limiter", "setting", "denied", "share", "clients denied", "most through in one window")
	for _, o := range rows {
		st := o.stats
		share := 0.0
		if total := st.Allowed + st.Denied; total > 0 {
			share = 100 * float64(st.Denied) / float64(total)
		}
		exposure := fmt.Sprintf("%s (%s)", human.Int(st.MaxInWindow), human.Times(st.MaxInWindow, o.setting.cfg.Limit))
		fmt.Fprintf(w, "%-34s %-16s %9s %7.2f%% %18s  %s\n", st.Algorithm.Title(),
			fmt.Sprintf("%s per %s", human.Int(o.setting.cfg.Limit), human.Duration(o.setting.cfg.Window)),
			human.Int(st.Denied), share, fmt.Sprintf("%s of %s", human.Int(int64(o.affected)), human.Int(clients)), exposure)
	}
	printChart(w, l, rows)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "most denied, per limiter and setting:")
	for _, o := range rows {
		if len(o.top) == 0 {
			continue
		}
		var names []string
		for _, d := range o.top {
			names = append(names, fmt.Sprintf("%s %s", human.Visible(d.client), human.Int(d.n)))
		}
		fmt.Fprintf(w, "  %s: %s\n", o.label(), strings.Join(names, " · "))
	}
}

// runs are the log's requests as runs of one client at one instant.
func runs(l *accesslog.Log) iter.Seq[scenarios.Run] {
	return func(yield func(scenarios.Run) bool) {
		src := l.Source()
		var cur scenarios.Run
		for a, ok := src.Next(); ok; a, ok = src.Next() {
			if cur.Count > 0 && a.At == cur.At && a.Client == cur.Client {
				cur.Count++
				continue
			}
			if cur.Count > 0 && !yield(cur) {
				return
			}
			cur = scenarios.Run{At: a.At, Client: a.Client, Count: 1}
		}
		if cur.Count > 0 {
			yield(cur)
		}
	}
}

// recordLog writes the log as a scenario (--save, a new file) and opens
// the view on it (--tui), following the client denied most.
func recordLog(ctx context.Context, w, errOut io.Writer, l *accesslog.Log, s setting, zone *time.Location, save string, tui bool) error {
	rec := scenarios.Recorded{From: l.Name, Requests: l.Requests, Clients: len(l.Clients()), Config: s.cfg, Algorithms: s.algos, Zone: zone}
	rec.Config.Offset = 0 // the scenario works it out from its zone
	if save != "" {
		if err := saveLog(w, errOut, save, rec, l); err != nil {
			return err
		}
	}
	if !tui {
		return nil
	}
	sc, err := scenarios.Record(rec, runs(l))
	if err != nil {
		return invalid(err)
	}
	outcomes, err := replaySetting(ctx, l.Source(), s, nil)
	if err != nil {
		return invalid(err)
	}
	focus := ""
	var most int64
	for _, o := range outcomes {
		if len(o.top) > 0 && o.top[0].n > most {
			focus, most = o.top[0].client, o.top[0].n
		}
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
			for r := range runs(l) {
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

// printChart draws, for the log and for each limiter and setting, the
// requests allowed in each bucket of time as a line of bars, all on one
// scale (the log's busiest bucket is a full bar): where a limiter cuts
// the traffic shows as a dip under the log's own line.
func printChart(w io.Writer, l *accesslog.Log, rows []outcome) {
	bucket := bucketOf(l)
	sent := make([]int64, chartWidth)
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		sent[bucketIndex(l, bucket, a.At)]++
	}
	used := bucketIndex(l, bucket, l.Last()) + 1
	bars := []rune(" ▁▂▃▄▅▆▇█")
	line := func(counts []int64, top int64) string {
		var b strings.Builder
		for _, n := range counts[:used] {
			level := 0
			if n > 0 && top > 0 {
				level = max(1, int((n*int64(len(bars)-1)+top-1)/top)) // any request shows; the busiest is full
			}
			b.WriteRune(bars[level])
		}
		return b.String()
	}
	from, to := l.First().Truncate(bucket), l.First().Truncate(bucket).Add(time.Duration(used)*bucket)
	width := len("sent (the log)")
	for _, o := range rows {
		width = max(width, utf8.RuneCountInString(o.label()))
	}
	top := slices.Max(sent)
	reqs := human.Noun{One: "request", Many: "requests"}
	fmt.Fprintf(w, "\nallowed per %s, %s UTC (a full bar: %s, the log's busiest %s):\n",
		human.Duration(bucket), algo.Range(from, to), reqs.Of(top), human.Duration(bucket))
	fmt.Fprintf(w, "  %-*s %s\n", width, "sent (the log)", line(sent, top))
	allowed := make([][]int64, len(rows))
	for i, o := range rows {
		allowed[i] = o.allowed.sum(from, bucket, chartWidth)
		fmt.Fprintf(w, "  %-*s %s\n", width, o.label(), line(allowed[i], top))
	}
	denied := make([][]int64, len(rows))
	var most int64
	for i := range rows {
		denied[i] = make([]int64, chartWidth)
		for b := range used {
			denied[i][b] = sent[b] - allowed[i][b]
			most = max(most, denied[i][b])
		}
	}
	if most == 0 {
		return
	}
	fmt.Fprintf(w, "denied per %s (a full bar: %s):\n", human.Duration(bucket), reqs.Of(most))
	for i, o := range rows {
		fmt.Fprintf(w, "  %-*s %s\n", width, o.label(), line(denied[i], most))
	}
}

// histogram counts requests by when they came, in spans that grow as the
// log does (a minute, then 5 and 15 minutes, an hour, 3, 6 and 24 hours:
// each a whole number of the one before, aligned as Truncate aligns), so
// that it needs no span known beforehand: a log still being read. Any
// chart bucket of bucketOf at least as long as its span is a whole number
// of them.
type histogram struct {
	from   algo.Instant // the first span's start
	span   int          // index in histogramSpans
	counts []int64
}

var histogramSpans = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 24 * time.Hour}

// histogramMax is how many spans a histogram holds before it widens them
// (past days, it only grows: a span of years is still a few thousand).
const histogramMax = 4096

// add counts a request at t, no earlier than the first one counted.
func (h *histogram) add(t algo.Instant) {
	width := histogramSpans[h.span]
	if h.counts == nil {
		h.from = t.Truncate(width)
	}
	i := int(t.Sub(h.from) / width)
	for i >= histogramMax && h.span < len(histogramSpans)-1 {
		h.widen()
		width = histogramSpans[h.span]
		i = int(t.Sub(h.from) / width)
	}
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]int64, i+1-len(h.counts))...)
	}
	h.counts[i]++
}

// widen moves the counts to the next, longer span.
func (h *histogram) widen() {
	old, oldFrom, oldWidth := h.counts, h.from, histogramSpans[h.span]
	h.span++
	width := histogramSpans[h.span]
	h.from = oldFrom.Truncate(width)
	h.counts = nil
	for i, n := range old {
		j := int(oldFrom.Add(time.Duration(i)*oldWidth).Sub(h.from) / width)
		if j >= len(h.counts) {
			h.counts = append(h.counts, make([]int64, j+1-len(h.counts))...)
		}
		h.counts[j] += n
	}
}

// sum is the counts in buckets of bucket from from (from aligned to
// bucket, no later than the first request), the last one taking all after
// it, as bucketIndex places them.
func (h *histogram) sum(from algo.Instant, bucket time.Duration, buckets int) []int64 {
	out := make([]int64, buckets)
	width := histogramSpans[h.span]
	for i, n := range h.counts {
		at := h.from.Add(time.Duration(i) * width)
		out[min(int(at.Sub(from)/bucket), buckets-1)] += n
	}
	return out
}

// zoneName is zone's offset at t, as UTC+05:30.
func zoneName(zone *time.Location, t algo.Instant) string {
	return t.Time().In(zone).Format("UTC-07:00")
}
