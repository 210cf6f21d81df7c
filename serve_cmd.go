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

	"windowlab/scenarios"
	"windowlab/serve"
	"windowlab/ui"
)

// serveCmd wires windowlab serve: flags to a serve.Config, the server in
// the background, the teacher's own view in this terminal when it is one.
func serveCmd() *cobra.Command {
	var (
		addr, hostKey, teacherKeys, scenario string
		maxStudents                          int
		idle                                 time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "A classroom over SSH: every student follows the teacher's view, or explores alone",
		Long: "serve runs an SSH server: each student types one ssh command, with nothing to install, and\n" +
			"gets their own view following the teacher's (the same step, instant and caption); any key that\n" +
			"moves the clock explores alone, F follows again. The teacher (a key of --teacher-keys, by\n" +
			"default your own ~/.ssh/*.pub) drives the room, from this terminal or over ssh.",
		Example: "  windowlab serve                      # the lesson, on 127.0.0.1:2222\n" +
			"  windowlab serve --addr 0.0.0.0:2222 --scenario boundary-burst",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := serve.Config{Addr: addr, MaxStudents: maxStudents, Idle: idle, Log: log.New(os.Stderr)}
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
			var sc *scenarios.Scenario
			if scenario != "" {
				if sc, err = scenarios.ResolveContext(cmd.Context(), scenario); err != nil {
					return invalid(err)
				}
			}
			cfg.View = func(follow bool, publish func(ui.Position)) ui.Options {
				o := ui.Options{Follow: follow, Publish: publish, Builtins: scenarios.Builtins()}
				if sc != nil {
					o.Scenario = sc
				} else {
					o.Lesson = scenarios.Lesson()
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
			_, port, _ := net.SplitHostPort(ln.Addr().String())
			w := cmd.ErrOrStderr()
			fmt.Fprintf(w, "windowlab serve: listening on %s\n  students: ssh -p %s HOST   (any key or none; the user name is the name shown)\n", ln.Addr(), port)
			if len(cfg.TeacherKeys) > 0 {
				fmt.Fprintf(w, "  teacher:  ssh -p %s HOST   with a key from %v, or this terminal\n", port, used)
			} else {
				fmt.Fprintf(w, "  teacher:  this terminal (no teacher keys: give --teacher-keys to drive over ssh)\n")
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve(ln) }()
			stop := func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				if err := srv.Shutdown(ctx); err != nil && !errors.Is(err, ssh.ErrServerClosed) {
					return err
				}
				return <-done
			}
			if local {
				// The teacher's own view, here: it drives the room as a teacher key does.
				opts := cfg.View(false, srv.Room().Publish)
				gone := func() {}
				opts.Started = func(send func(tea.Msg)) { gone = srv.Room().TeacherHere("teacher (here)", send) }
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
	f.StringVar(&teacherKeys, "teacher-keys", "", "an authorized_keys file of the keys that drive the room (default: your own ~/.ssh/*.pub)")
	f.StringVar(&scenario, "scenario", "", "serve one scenario, a built-in's name or a file, instead of the lesson")
	f.IntVar(&maxStudents, "max-students", serve.DefaultMaxStudents, "how many students may be connected at once")
	f.DurationVar(&idle, "idle", serve.DefaultIdle, "close a session idle this long")
	return cmd
}
