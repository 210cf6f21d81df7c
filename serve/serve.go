// Package serve is windowlab's classroom: an SSH server (charm.land/wish on
// golang.org/x/crypto/ssh) that gives every connecting student their own
// copy of the interactive view, following the teacher's, and lets a
// teacher's key drive the room.
//
// It is a top-level package beside the commands rather than part of ui:
// it owns a network server, keys and sessions, which nothing below the
// commands may know of, and ui stays a view that knows no network: it
// talks to a room.Room (ui.Options.Room), which each session's Place is.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/room"
	"windowlab/ui"
)

// Config is what a classroom serves and to whom.
type Config struct {
	Addr        string // 127.0.0.1:2222 by default
	HostKeyPath string // created once (ed25519, mode 0600) when missing, never overwritten
	// TeacherKeys may drive the room; every other key, or none, is a student's.
	TeacherKeys []ssh.PublicKey
	// View builds the options of one session's view in the room r, which
	// it gives the view (ui.Options.Room): a student's when r.Follows(),
	// else a teacher's.
	View func(r room.Room) ui.Options
	// MaxStudents is how many students may be connected at once.
	MaxStudents int
	// Idle closes a session nothing came through for this long (0: never).
	Idle time.Duration
	// PerAddress limits new connections from one address: at most
	// PerAddress.Limit per PerAddress.Window, by windowlab's own sliding
	// window counter; by default twice MaxStudents a minute.
	PerAddress algo.Config
	Log        *log.Logger // connections and refusals; never a key
	// LimitMemory sets the Go runtime's soft memory limit to follow the
	// room (see sessionMemory); windowlab serve sets it unless GOMEMLIMIT
	// is set. It is process-wide, so tests leave it off.
	LimitMemory bool
}

// Defaults for a classroom.
const (
	DefaultAddr        = "127.0.0.1:2222"
	DefaultMaxStudents = 200
	DefaultIdle        = 30 * time.Minute
	// The flags' ranges: a room of a thousand is about 2 GB; an idle
	// limit under a second would close a student thinking, one over a
	// day keeps a seat no one will come back to.
	MostStudents     = 1000
	ShortestIdle     = time.Second
	LongestIdle      = 24 * time.Hour
	handshakeTimeout = 10 * time.Second
	// sessionCheckpoints is what each engine of a session's view keeps to
	// step back fast, unless View says otherwise: with it a view of the
	// whole lesson, every step played, is under 2 MB of heap, where the
	// engine's default (64 MiB an engine) lets one view grow to 13 MB.
	// Stepping back past what it keeps replays from the last checkpoint:
	// a few milliseconds for the lesson's largest step.
	sessionCheckpoints = 1 << 20
	// baseMemory and sessionMemory are the soft memory limit the server
	// keeps to (Config.LimitMemory). A session lives in about 2 MB: 1.3 MB
	// of heap (its view, the SSH connection, the renderer's buffers, the
	// lesson's largest step played) and 0.6 MB of stacks for its two dozen
	// goroutines. The collector's default lets the heap grow to twice what
	// is live, and a class of 50 reached 274 MB of RSS; with the limit it
	// collects sooner as the room fills, and gives the memory back to the
	// system as the room empties.
	baseMemory    = 32 << 20
	sessionMemory = 5 << 19 // 2.5 MiB
)

// perAddressPerStudent is how many new connections a minute one address
// may open for each seat of the room: a whole class behind one NAT
// joining in the same minute, and every one reconnecting once, passes;
// a flood does not.
const perAddressPerStudent = 2

// Server is a running classroom.
type Server struct {
	cfg      Config
	ssh      *ssh.Server
	room     *Room
	started  time.Time
	students atomic.Int64
	sessions atomic.Int64 // students and teachers: what the memory limit follows

	mu      sync.Mutex // the limiter
	limiter algo.Limiter

	bye     chan struct{} // closed by Shutdown: every view says goodbye
	byeOnce sync.Once
	viewsMu sync.Mutex
	views   map[chan struct{}]struct{} // each running view's, closed when it is done; nil once stopping
}

// refusal is a context key: why a connection is refused, decided before
// its handshake and said once it has a session.
type refusalKey struct{}

// New builds a classroom server; Serve starts it.
func New(cfg Config) (*Server, error) {
	if cfg.View == nil {
		return nil, errors.New("serve: no view to serve")
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr
	}
	if cfg.MaxStudents <= 0 {
		cfg.MaxStudents = DefaultMaxStudents
	}
	if cfg.PerAddress.Limit == 0 {
		cfg.PerAddress = algo.Config{Limit: int64(perAddressPerStudent * cfg.MaxStudents), Window: time.Minute}
	}
	if cfg.Log == nil {
		cfg.Log = log.New(os.Stderr)
	}
	limiter, err := algo.New(algo.KindSlidingCounter, cfg.PerAddress)
	if err != nil {
		return nil, fmt.Errorf("serve: the per-address limit: %w", err)
	}
	key, err := hostKey(cfg.HostKeyPath)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, room: newRoom(), started: time.Now(), limiter: limiter,
		bye: make(chan struct{}), views: map[chan struct{}]struct{}{}}
	srv, err := wish.NewServer(
		wish.WithAddress(cfg.Addr),
		key,
		// Any key, or none, is a student; teachers are told apart by key.
		wish.WithPublicKeyAuth(func(ssh.Context, ssh.PublicKey) bool { return true }),
		wish.WithKeyboardInteractiveAuth(func(ssh.Context, gossh.KeyboardInteractiveChallenge) bool { return true }),
		wish.WithIdleTimeout(cfg.Idle),
		ssh.WrapConn(s.admit),
		func(srv *ssh.Server) error {
			srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": sessionChannel} // and no other kind
			return nil
		},
		wish.WithMiddleware(s.view, s.gate),
	)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	srv.HandshakeTimeout = handshakeTimeout
	s.ssh = srv
	return s, nil
}

// Room is the server's room, for the teacher's local view and for tests.
func (s *Server) Room() *Room { return s.room }

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.ssh.Serve(ln)
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown ends the class without waiting for anyone to leave: every
// session's view is quit (putting its terminal back), told goodbye and
// its channel closed; then every connection is closed, a session that has
// not ended within goodbyeGrace (a client that reads nothing) cut off with
// it. It returns once the sessions have ended, or at ctx.
func (s *Server) Shutdown(ctx context.Context) error {
	s.viewsMu.Lock()
	views := s.views
	s.views = nil // no view starts from now on
	s.viewsMu.Unlock()
	s.byeOnce.Do(func() { close(s.bye) })
	grace := time.NewTimer(goodbyeGrace)
	defer grace.Stop()
	waitFor := func(views map[chan struct{}]struct{}, until <-chan time.Time) {
		for done := range views {
			select {
			case <-done:
			case <-until:
				return
			case <-ctx.Done():
				return
			}
		}
	}
	waitFor(views, grace.C)
	_ = s.ssh.Close() // the listeners and every connection: a view still writing ends with its connection
	waitFor(views, nil)
	err := s.ssh.Shutdown(ctx) // the connections' own goroutines
	if errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// goodbyeGrace is how long Shutdown lets the views end before it closes
// their connections: a view's goodbye takes milliseconds on an idle
// machine, but took past 300 ms on a loaded 2-core one under the race
// detector (a student then cut off untold); the README promises every
// command stops within a second.
const goodbyeGrace = 600 * time.Millisecond

// admit counts a new connection against its address's limit before any
// handshake; one over it is refused once it has a session to be told in.
func (s *Server) admit(ctx ssh.Context, c net.Conn) net.Conn {
	ctx.SetValue(sessionsKey{}, new(atomic.Int64))
	host, _, err := net.SplitHostPort(c.RemoteAddr().String())
	if err != nil {
		host = c.RemoteAddr().String()
	}
	now := algo.Instant(time.Since(s.started) / time.Millisecond)
	s.mu.Lock()
	d := s.limiter.Allow(now, host)
	s.mu.Unlock()
	if !d.Allowed {
		ctx.SetValue(refusalKey{}, fmt.Sprintf("too many connections from %s: at most %d a %s; wait a little and try again",
			host, s.cfg.PerAddress.Limit, s.cfg.PerAddress.Window))
		s.cfg.Log.Warn("refused", "from", host, "why", "rate")
	}
	return c
}

// gate refuses what windowlab does not serve, in one line: a command, a
// session without a terminal, a connection over its address's limit.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if why := s.refusal(sess); why != "" {
			wish.Fatalln(sess, "windowlab: "+why)
			return
		}
		next(sess)
	}
}

func (s *Server) refusal(sess ssh.Session) string {
	if why, ok := sess.Context().Value(refusalKey{}).(string); ok {
		return why
	}
	if len(sess.Command()) > 0 {
		return "this server shows the windowlab view and runs no commands; connect with no command: ssh -p PORT HOST"
	}
	if sess.Subsystem() != "" {
		return "no subsystems here"
	}
	if _, _, ok := sess.Pty(); !ok {
		return "the view needs a terminal; connect with ssh -t -p PORT HOST"
	}
	return ""
}

// view runs one session's Bubble Tea program, its window changes sent
// on as sizes. A session that ends ends its program: that is no error. A
// session's channel closing ends it too, though its connection may go on
// (ControlMaster keeps one for a user's terminals): its seat is freed.
func (s *Server) view(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		done, open := s.enter()
		if !open {
			wish.Fatalln(sess, "windowlab: "+classOver)
			return
		}
		defer s.leave(done)
		ctx, cancel := context.WithCancel(sess.Context())
		defer cancel()
		p := s.program(ctx, sess)
		if p == nil {
			next(sess)
			return
		}
		_, windows, _ := sess.Pty()
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-s.bye:
					p.Quit() // the program puts the student's terminal back as it ends
					return
				case w, ok := <-windows:
					if !ok { // the session's requests ended: its channel is closed
						cancel()
						return
					}
					p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
				}
			}
		}()
		if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			s.cfg.Log.Error("view", "name", DisplayName(sess.User()), "err", err)
		}
		p.Kill()
		cancel() // out of the room now, whatever its connection does
		select {
		case <-s.bye:
			// Exit before leave: Shutdown, told the view is done, cuts the connection.
			wish.Println(sess, "\nwindowlab: "+classOver)
			_ = sess.Exit(0)
		default:
			next(sess)
		}
	}
}

// classOver is what every session is told when the server stops.
const classOver = "the class is over: the teacher has stopped the server. Goodbye."

// enter counts a view in, for Shutdown to wait on its goodbye; false once
// the server is stopping.
func (s *Server) enter() (chan struct{}, bool) {
	s.viewsMu.Lock()
	defer s.viewsMu.Unlock()
	if s.views == nil {
		return nil, false
	}
	done := make(chan struct{})
	s.views[done] = struct{}{}
	return done, true
}

// leave counts a view out: its session has said all it will.
func (s *Server) leave(done chan struct{}) {
	s.viewsMu.Lock()
	delete(s.views, done)
	s.viewsMu.Unlock()
	close(done)
}

// isTeacher reports whether a session's key is a teacher's.
func (s *Server) isTeacher(k ssh.PublicKey) bool {
	for _, t := range s.cfg.TeacherKeys {
		if ssh.KeysEqual(k, t) {
			return true
		}
	}
	return false
}

// program makes one session's view: a teacher's publishing to the room,
// a student's following it; it leaves the room when ctx ends.
func (s *Server) program(ctx context.Context, sess ssh.Session) *tea.Program {
	if s.refusal(sess) != "" {
		return nil // gate says why
	}
	teacher := s.isTeacher(sess.PublicKey())
	name := DisplayName(sess.User())
	place := s.room.place(!teacher)
	opts, ok := s.options(sess, place)
	if !ok {
		return nil
	}
	m, err := ui.New(opts)
	if err != nil {
		if !teacher {
			s.students.Add(-1)
		}
		wish.Fatalln(sess, "windowlab: "+err.Error())
		return nil
	}
	p := tea.NewProgram(m, append(bubbletea.MakeOptions(sess), tea.WithContext(ctx), tea.WithoutSignalHandler())...)
	role := "student"
	if teacher {
		role = "teacher"
	}
	s.sessionsChanged(+1)
	member := s.room.join(name, role, p.Send)
	if teacher {
		s.room.teacherJoined()
	}
	place.sit(member)
	s.cfg.Log.Info("connected", "name", name, "role", role, "from", sess.RemoteAddr().String(), "students", s.students.Load())
	s.cfg.Log.Debug("server", "goroutines", runtime.NumGoroutine())
	go func() {
		<-ctx.Done()
		s.room.leave(member)
		s.sessionsChanged(-1)
		if teacher {
			s.room.teacherLeft()
		} else {
			s.students.Add(-1)
		}
		s.cfg.Log.Info("disconnected", "name", name, "role", role, "after", time.Since(member.since).Round(time.Second),
			"students", s.students.Load())
		s.cfg.Log.Debug("server", "goroutines", runtime.NumGoroutine())
	}()
	return p
}

// options are one session's view's options at place: a teacher's takes
// the room where it was; a student's counts against MaxStudents (false
// when the room is full, the session told) and asks the student's name.
func (s *Server) options(sess ssh.Session, place *Place) (ui.Options, bool) {
	var opts ui.Options
	if !place.follows {
		opts = s.cfg.View(place)
		if last, ok := s.room.Last(); ok {
			opts.StartAt = &last // a teacher coming back takes the room where it was
		}
	} else {
		if n := s.students.Add(1); n > int64(s.cfg.MaxStudents) {
			s.students.Add(-1)
			wish.Fatalln(sess, fmt.Sprintf("windowlab: the room is full (%d students); ask the teacher", s.cfg.MaxStudents))
			return opts, false
		}
		opts = s.cfg.View(place)
		opts.Name = &ui.NamePrompt{Default: DisplayName(sess.User()), Claim: func(typed string) error { return s.claim(place, typed) }}
	}
	if opts.CheckpointBytes == 0 {
		opts.CheckpointBytes = sessionCheckpoints
	}
	opts.WritesNothing = true // the server writes nothing outside its config directory
	opts.Load = nil           // nor reads a file for a session
	return opts, true
}

// claim takes the name a student typed for place, or says what is wrong
// with it.
func (s *Server) claim(place *Place, typed string) error {
	if !visible(human.Line(typed, 24)) {
		return fmt.Errorf("%+q will not do: a name needs a character that shows, not only blanks or marks", typed)
	}
	clean := DisplayName(typed)
	if clean != strings.TrimSpace(typed) {
		return fmt.Errorf("%q will not do: use 1 to 24 printable characters", typed)
	}
	m := place.seated()
	if m == nil {
		return errors.New("still joining the room; press enter again")
	}
	return s.room.rename(m, clean)
}

// sessionsChanged counts a session in or out, and moves the memory limit.
func (s *Server) sessionsChanged(d int64) {
	n := s.sessions.Add(d)
	if s.cfg.LimitMemory {
		debug.SetMemoryLimit(baseMemory + sessionMemory*max(n, 0))
	}
}

// DisplayName makes a user name fit to show (human.Line): printable, no
// bidirectional controls, at most 24 characters; "student" when nothing
// visible is left.
func DisplayName(s string) string {
	if name := human.Line(s, 24); visible(name) {
		return name
	}
	return "student"
}

// visible reports whether s has a character that shows: not only spaces,
// combining marks, default-ignorable code points (U+3164 HANGUL FILLER,
// variation selectors, format characters) or the braille blank, each of
// which human.Line may keep and a roster would show as nothing.
func visible(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && r != '\u2800' &&
			!unicode.In(r, unicode.M, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector) {
			return true
		}
	}
	return false
}

// hostKey gives the server its host key: read from path (a regular file
// of at most maxHostKeyFile), or created there by wish when missing
// (ed25519, 0600; never written over), its directory made with mode 0700.
func hostKey(path string) (ssh.Option, error) {
	if path == "" {
		return nil, errors.New("serve: no host key path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("serve: the host key's directory: %w", err)
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return wish.WithHostKeyPath(path), nil
	}
	pem, err := readKeyFile(path, maxHostKeyFile, "give --host-key an ssh private key, or a path where one will be made")
	if err != nil {
		return nil, fmt.Errorf("--host-key %s: %w", path, err)
	}
	return wish.WithHostKeyPEM(pem), nil
}
