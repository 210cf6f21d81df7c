package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	"charm.land/ssh"
	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/quiz"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/serve"
	"windowlab/sim"
	"windowlab/ui"
)

// serveCmd wires windowlab serve: flags to a serve.Config, the server in
// the background, the teacher's own view in this terminal when it is one.
func serveCmd() *cobra.Command {
	var (
		addr, hostKey, teacherKeys, scenario string
		maxStudents, count                   int
		idle                                 time.Duration
		verbose, lessonFlag                  bool
		seed                                 uint64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "A classroom over SSH: every student follows the teacher's view, or explores alone",
		Long: "serve runs an SSH server: each student types one ssh command, with nothing to install, and " +
			"gets their own view following the teacher's (the same step, instant and caption); any key that " +
			"moves the clock explores alone, F follows again. The teacher (a key of --teacher-keys, by " +
			"default your own ~/.ssh/*.pub) drives the room, from this terminal or over ssh: P pauses the " +
			"room, A asks it a question (the scenario's, the lesson's two, --questions generated ones with " +
			"--seed) and shows the answers arriving as a histogram, then reveals the answer to everyone.",
		Example: "  windowlab serve                      # the lesson, on 127.0.0.1:2222\n" +
			"  windowlab serve --addr 0.0.0.0:2222 --scenario boundary-burst",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if maxStudents < 1 || maxStudents > serve.MostStudents {
				return invalid(fmt.Errorf("--max-students %d is out of range; give 1 to %d", maxStudents, serve.MostStudents))
			}
			if idle != 0 && (idle < serve.ShortestIdle || idle > serve.LongestIdle) {
				return invalid(fmt.Errorf("--idle %s is out of range; give 0 (never) or %s to %s", human.Duration(idle), serve.ShortestIdle, human.Duration(serve.LongestIdle)))
			}
			cfg := serve.Config{Addr: addr, MaxStudents: maxStudents, Idle: idle, Log: log.New(os.Stderr),
				LimitMemory: os.Getenv("GOMEMLIMIT") == ""}
			level := log.InfoLevel
			if verbose {
				level = log.DebugLevel
			}
			cfg.Log.SetLevel(level)
			var err error
			if cfg.HostKeyPath = hostKey; hostKey == "" {
				if cfg.HostKeyPath, err = serve.DefaultHostKeyPath(); err != nil {
					return invalid(err)
				}
			}
			var used []string
			if teacherKeys != "" {
				if cfg.TeacherKeys, err = serve.LoadTeacherKeys(teacherKeys); err != nil {
					return invalid(err)
				}
				used = []string{teacherKeys}
			} else if cfg.TeacherKeys, used, err = serve.DefaultTeacherKeys(); err != nil {
				return invalid(err)
			}
			if lessonFlag && scenario != "" {
				return invalid(errors.New("--lesson and --scenario both name the programme; give one"))
			}
			var sc *scenarios.Scenario
			if scenario != "" {
				if sc, err = scenarios.ResolveContext(cmd.Context(), scenario); err != nil {
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
			if count < 0 || count > quiz.MaxCount {
				return invalid(fmt.Errorf("--questions %d is out of range; ask for 0 to %d generated questions", count, quiz.MaxCount))
			}
			if !cmd.Flags().Changed("seed") {
				seed = uint64(time.Now().UnixNano()%99_999) + 1 // a short number a teacher can note
			}
			generated, err := quiz.Generate(seed, count)
			if err != nil {
				return invalid(err)
			}
			questions := quiz.New(seed, append(quiz.Lesson(), generated...)).Items
			for i := range questions {
				if questions[i].Kind != quiz.FromLesson {
					questions[i].From = fmt.Sprintf("generated, seed %d", seed)
				}
			}
			cfg.View = func(r room.Room) ui.Options {
				o := ui.Options{Room: r, Builtins: builtins, Questions: questions}
				if sc != nil {
					o.Scenario = sc
				} else {
					o.Lesson = lesson
				}
				return o
			}
			local := isTerminal(cmd.OutOrStdout())
			if local {
				// The teacher's view has this terminal: the log goes to a file beside the host key.
				path := filepath.Join(filepath.Dir(cfg.HostKeyPath), "serve.log")
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					return invalid(err)
				}
				f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
				if err != nil {
					return invalid(err)
				}
				defer f.Close()
				cfg.Log = log.New(f)
				cfg.Log.SetLevel(level)
				fmt.Fprintf(cmd.ErrOrStderr(), "  log: %s\n", path)
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
			w := cmd.ErrOrStderr()
			fmt.Fprintf(w, "windowlab serve: listening on %s\n  students: %s   (any key or none; the user name is the name shown)\n", ln.Addr(), join)
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
			fmt.Fprintf(w, "  quiz:     A in the teacher's view asks the room; %d generated questions with --seed %d\n", count, seed)
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
				_, uiErr := showUI(cmd.Context(), opts)
				gone()
				return errors.Join(uiErr, stop())
			}
			select {
			case <-cmd.Context().Done():
				return stop()
			case err := <-done:
				return err
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", serve.DefaultAddr, "the address to listen on")
	f.StringVar(&hostKey, "host-key", "", "the server's host key, created once when missing (default: your config directory's windowlab/host_ed25519)")
	f.StringVar(&teacherKeys, "teacher-keys", "", "an authorized_keys file (- for standard input) of the keys that drive the room (default: your own ~/.ssh/*.pub)")
	f.StringVar(&scenario, "scenario", "", "serve one scenario, a built-in's name or a file, instead of the lesson")
	f.IntVar(&maxStudents, "max-students", serve.DefaultMaxStudents, fmt.Sprintf("how many students may be connected at once, 1 to %d", serve.MostStudents))
	f.DurationVar(&idle, "idle", serve.DefaultIdle, fmt.Sprintf("close a session idle this long: 0 never, or %s to %s", serve.ShortestIdle, human.Duration(serve.LongestIdle)))
	f.BoolVar(&lessonFlag, "lesson", false, "serve the lesson (the default programme)")
	f.Uint64Var(&seed, "seed", 0, "the seed of the generated questions the teacher may ask (default: a new one, printed)")
	f.IntVar(&count, "questions", 3, "how many generated questions to offer beside the lesson's two")
	f.BoolVarP(&verbose, "verbose", "v", false, "log the server's goroutines with every connection too")
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
