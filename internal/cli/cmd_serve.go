package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	"charm.land/ssh"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/quiz"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/serve"
	"windowlab/sim"
	"windowlab/ui"
)

// serveOptions are serve's flags.
type serveOptions struct {
	addr, hostKey, teacherKeys, scenario string
	maxStudents, count                   int // count: --questions
	idle                                 time.Duration
	verbose, lessonFlag, play            bool
	seed                                 uint64
	flags                                *pflag.FlagSet // which of them were given
}

// newServeCommand wires windowlab serve: flags to a serve.Config, the
// server in the background, the teacher's own view in this terminal when
// it is one.
func newServeCommand() *cobra.Command {
	var opts serveOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "A classroom over SSH: every student follows the teacher's view, or explores alone",
		Long: "serve runs an SSH server: each student types one ssh command, with nothing to install, and " +
			"gets their own view following the teacher's (the same step, instant and caption); any key that " +
			"moves the clock explores alone, F follows again. The teacher (a key of --teacher-keys, by " +
			"default your own ~/.ssh/*.pub) drives the room, from this terminal or over ssh: P pauses the " +
			"room, A asks it a question (the scenario's, the lesson's two, --questions generated ones with " +
			"--seed) and shows the answers arriving as a histogram, then reveals the answer to everyone; x " +
			"puts a challenge to it: each student makes traffic on a clock of their own, and their bests " +
			"arrive on the teacher's screen, the best first. " +
			"Traffic the teacher makes at the clock (r, b, s, u; the knobs ( ) { } and e) reaches every " +
			"follower, decided the same; --play serves an empty clock for exactly that.",
		Example: "  windowlab serve                      # the lesson, on 127.0.0.1:2222\n" +
			"  windowlab serve --addr 0.0.0.0:2222 --scenario boundary-burst\n" +
			"  windowlab serve --play                # an empty clock: the teacher's r b s u reach every follower",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServe(cmd.Context(), stdioOf(cmd), opts)
		},
	}
	opts.flags = cmd.Flags()
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", serve.DefaultAddr, "the address to listen on")
	f.StringVar(&opts.hostKey, "host-key", "", "the server's host key, created once when missing (default: your config directory's windowlab/host_ed25519)")
	f.StringVar(&opts.teacherKeys, "teacher-keys", "", "an authorized_keys file (- for standard input) of the keys that drive the room (default: your own ~/.ssh/*.pub)")
	f.StringVar(&opts.scenario, "scenario", "", "serve one scenario, a built-in's name or a file, instead of the lesson")
	f.IntVar(&opts.maxStudents, "max-students", serve.DefaultMaxStudents, fmt.Sprintf("how many students may be connected at once, 1 to %d", serve.MostStudents))
	f.DurationVar(&opts.idle, "idle", serve.DefaultIdle, fmt.Sprintf("close a session idle this long: 0 never, or %s to %s", serve.ShortestIdle, human.Duration(serve.LongestIdle)))
	f.BoolVar(&opts.lessonFlag, "lesson", false, "serve the lesson (the default programme)")
	f.BoolVar(&opts.play, "play", false, "serve windowlab play's empty clock (12:00:00, the lesson's rules): the teacher makes the traffic")
	f.Uint64Var(&opts.seed, "seed", 0, "the seed of the generated questions the teacher may ask (default: a new one, printed)")
	f.IntVar(&opts.count, "questions", 3, "how many generated questions to offer beside the lesson's two")
	f.BoolVarP(&opts.verbose, "verbose", "v", false, "log the server's goroutines with every connection too")
	registerFlagCompletion(cmd, "scenario", completeScenario)
	return cmd
}

// viewFits refuses, as tui does, a scenario whose view would not fit
// windowlab's memory budget: before the server listens, not in each
// session that opens it.
func viewFits(sc *scenarios.Scenario) error {
	ld := sc.Load()
	if est := sim.EstimateBytes(sc.Limiters(), ld, sim.Options{History: true}); est > algo.BudgetLive {
		return &scenarios.TooBigError{File: sc.File, View: true, Estimate: est, Load: ld, Window: sc.Config.Window}
	}
	return nil
}

// joinHost is the host students type: localhost for a loopback address,
// this machine's name for every address, else the address itself.
func joinHost(host string) string {
	ip := net.ParseIP(host)
	switch {
	case ip != nil && ip.IsLoopback():
		return "localhost"
	case ip != nil && ip.IsUnspecified(), host == "":
		if name, err := os.Hostname(); err == nil && name != "" {
			return name
		}
		return "HOST"
	}
	return host
}

// runServe serves the classroom until a signal, or until the teacher's
// view here quits.
func runServe(ctx context.Context, std stdio, opts serveOptions) error {
	cfg, used, err := serveConfig(opts)
	if err != nil {
		return err
	}
	if err := serveProgramme(ctx, &opts, &cfg); err != nil {
		return err
	}
	local := isTerminal(std.out)
	if local {
		closeLog, err := logBesideHostKey(std.err, &cfg, logLevel(opts))
		if err != nil {
			return err
		}
		defer closeLog()
	}
	srv, err := serve.New(cfg)
	if err != nil {
		return invalid(err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return invalid(fmt.Errorf("--addr %s: %w", cfg.Addr, err))
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	join := "ssh -p " + port + " " + joinHost(host)
	announce(std.err, ln.Addr(), join, cfg, used, local, opts)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	stop := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(ctx)
		// Shutdown closes the listeners Serve has taken; a signal that
		// came before Serve took ln would leave Serve running forever.
		ln.Close()
		if err != nil && !errors.Is(err, ssh.ErrServerClosed) {
			return err
		}
		if err = <-done; errors.Is(err, net.ErrClosed) {
			err = ssh.ErrServerClosed // closed here, before Serve took it
		}
		return err
	}
	if local {
		// The teacher's own view, here: it drives the room as a teacher key does.
		// Started comes before the view's first message, so before
		// its first position.
		here := srv.Room().Teacher()
		opts := cfg.View(here)
		opts.JoinHint = join
		gone := func() {}
		opts.Started = func(send func(tea.Msg)) { gone = here.Here("teacher (here)", send) }
		_, uiErr := showUI(ctx, opts)
		gone()
		return errors.Join(uiErr, stop())
	}
	select {
	case <-ctx.Done():
		return stop()
	case err := <-done:
		return err
	}
}

// logLevel is the server log's level: --verbose logs every connection's
// goroutines too.
func logLevel(opts serveOptions) log.Level {
	if opts.verbose {
		return log.DebugLevel
	}
	return log.InfoLevel
}

// serveConfig is the server's configuration from the flags, and the files
// the teacher keys came from.
func serveConfig(opts serveOptions) (serve.Config, []string, error) {
	if opts.maxStudents < 1 || opts.maxStudents > serve.MostStudents {
		return serve.Config{}, nil, invalid(fmt.Errorf("--max-students %d is out of range; give 1 to %d", opts.maxStudents, serve.MostStudents))
	}
	if opts.idle != 0 && (opts.idle < serve.ShortestIdle || opts.idle > serve.LongestIdle) {
		return serve.Config{}, nil, invalid(fmt.Errorf("--idle %s is out of range; give 0 (never) or %s to %s", human.Duration(opts.idle), serve.ShortestIdle, human.Duration(serve.LongestIdle)))
	}
	cfg := serve.Config{Addr: opts.addr, MaxStudents: opts.maxStudents, Idle: opts.idle, Log: log.New(os.Stderr),
		LimitMemory: os.Getenv("GOMEMLIMIT") == ""}
	cfg.Log.SetLevel(logLevel(opts))
	var err error
	if cfg.HostKeyPath = opts.hostKey; opts.hostKey == "" {
		if cfg.HostKeyPath, err = serve.DefaultHostKeyPath(); err != nil {
			return cfg, nil, invalid(err)
		}
	}
	var used []string
	if opts.teacherKeys != "" {
		if cfg.TeacherKeys, err = serve.LoadTeacherKeys(opts.teacherKeys); err != nil {
			return cfg, nil, invalid(err)
		}
		used = []string{opts.teacherKeys}
	} else if cfg.TeacherKeys, used, err = serve.DefaultTeacherKeys(); err != nil {
		return cfg, nil, invalid(err)
	}
	return cfg, used, nil
}

// serveProgramme sets what the room is shown (the lesson, or --scenario)
// and may be asked, in cfg.View; opts.seed becomes the one used.
func serveProgramme(ctx context.Context, opts *serveOptions, cfg *serve.Config) error {
	var err error
	if n := btoi(opts.lessonFlag) + btoi(opts.scenario != "") + btoi(opts.play); n > 1 {
		return invalid(errors.New("--lesson, --scenario and --play each name the programme; give one"))
	}
	var sc *scenarios.Scenario
	if opts.play {
		if sc, err = playScenario(defaultPlayOptions()); err != nil {
			return invalid(err)
		}
	}
	if opts.scenario != "" {
		if sc, err = scenarios.ResolveContext(ctx, opts.scenario); err != nil {
			return invalid(err)
		}
		if err := viewFits(sc); err != nil {
			return invalid(err)
		}
	}
	// Parsed once: scenarios are read-only, and every session shares them.
	builtins, lesson := scenarios.Builtins(), scenarios.Lesson()
	// What the teacher may ask the room beside the scenario's own
	// questions: the lesson's two, then generated ones.
	if opts.count < 0 || opts.count > quiz.MaxCount {
		return invalid(fmt.Errorf("--questions %d is out of range; ask for 0 to %d generated questions", opts.count, quiz.MaxCount))
	}
	if !opts.flags.Changed("seed") {
		opts.seed = uint64(time.Now().UnixNano()%99_999) + 1 // a short number a teacher can note
	}
	generated, err := quiz.Generate(opts.seed, opts.count)
	if err != nil {
		return invalid(err)
	}
	questions := quiz.New(opts.seed, append(quiz.Lesson(), generated...)).Items
	for i := range questions {
		if questions[i].Kind != quiz.FromLesson {
			questions[i].From = fmt.Sprintf("generated, seed %d", opts.seed)
		}
	}
	cfg.View = func(r room.Room) ui.Options {
		o := ui.Options{Room: r, Builtins: builtins, Questions: questions, Seed: opts.seed}
		if sc != nil {
			o.Scenario = sc
		} else {
			o.Lesson, o.LessonQuestions = lesson, quiz.Lesson()
		}
		return o
	}
	return nil
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// logBesideHostKey sends the server's log to serve.log beside the host key,
// the teacher's view having this terminal; closeLog closes it.
func logBesideHostKey(errOut io.Writer, cfg *serve.Config, level log.Level) (closeLog func(), err error) {
	path := filepath.Join(filepath.Dir(cfg.HostKeyPath), "serve.log")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, invalid(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, invalid(err)
	}
	cfg.Log = log.New(f)
	cfg.Log.SetLevel(level)
	fmt.Fprintf(errOut, "  log: %s\n", path)
	return func() { f.Close() }, nil
}

// announce tells, on w, where the room listens and how students and the
// teacher join it.
func announce(w io.Writer, addr net.Addr, join string, cfg serve.Config, used []string, local bool, opts serveOptions) {
	fmt.Fprintf(w, "windowlab serve: listening on %s\n  students: %s   (any key or none; the user name is the name shown)\n", addr, join)
	switch {
	case len(cfg.TeacherKeys) > 0 && local:
		fmt.Fprintf(w, "  teacher:  this terminal, or %s with a key from %v\n", join, used)
	case len(cfg.TeacherKeys) > 0:
		fmt.Fprintf(w, "  teacher:  %s   with a key from %v\n", join, used)
	case local:
		fmt.Fprintf(w, "  teacher:  this terminal (no teacher keys: give --teacher-keys to drive over ssh too)\n")
	default:
		fmt.Fprintf(w, "  teacher:  no one can drive: there are no teacher keys and this is no terminal; give --teacher-keys FILE\n")
	}
	fmt.Fprintf(w, "  quiz:     A in the teacher's view asks the room; %d generated questions with --seed %d\n", opts.count, opts.seed)
}
