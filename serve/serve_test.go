package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	"charm.land/ssh"
	"github.com/charmbracelet/x/vt"
	gossh "golang.org/x/crypto/ssh"

	"windowlab/quiz"
	"windowlab/room"
	"windowlab/scenarios"
	"windowlab/ui"
)

// classroom starts a server on a free loopback port serving the lesson,
// with teacher as its teacher's key; it stops when the test ends.
func classroom(t *testing.T, teacher gossh.Signer, tweak func(*Config)) (*Server, string) {
	t.Helper()
	pub, err := ssh.ParsePublicKey(teacher.PublicKey().Marshal())
	if err != nil {
		t.Fatal(err)
	}
	lesson := scenarios.Lesson() // parsed once and shared by every session, as windowlab serve does
	cfg := Config{
		Addr:        "127.0.0.1:0",
		HostKeyPath: filepath.Join(t.TempDir(), "host_ed25519"),
		TeacherKeys: []ssh.PublicKey{pub},
		View: func(r room.Room) ui.Options {
			return ui.Options{Lesson: lesson, Room: r}
		},
		Log: log.New(io.Discard),
	}
	if tweak != nil {
		tweak(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return s, ln.Addr().String()
}

func newSigner(t *testing.T) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dial connects as user with key (nil: no key, keyboard-interactive).
func dial(t *testing.T, addr, user string, key gossh.Signer) *gossh.Client {
	t.Helper()
	auth := []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })}
	if key != nil {
		auth = []gossh.AuthMethod{gossh.PublicKeys(key)}
	}
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: user, Auth: auth,
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// screen is what a session's terminal shows: its output replayed through
// a terminal emulator, since the renderer writes only the cells that
// changed.
type screen struct {
	mu  sync.Mutex // the emulator's screen is not safe to read while it is written
	emu *vt.Emulator
}

func newScreen() *screen {
	s := &screen{emu: vt.NewEmulator(100, 30)}
	go func() { _, _ = io.Copy(io.Discard, s.emu) }() // its answers to the program's queries
	return s
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.Write(p)
}

func (s *screen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.emu.String()
}

// waitFor waits up to 10 s for the screen to show want.
func (s *screen) waitFor(t *testing.T, who, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if strings.Contains(s.text(), want) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s's screen never showed %q; it shows:\n%s", who, want, tail(s.text()))
}

func tail(s string) string { return s[max(len(s)-2000, 0):] }

// view opens the view in a terminal of 100×30 on c; keys go to in.
func view(t *testing.T, c *gossh.Client) (*screen, io.Writer) {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	out := newScreen()
	sess.Stdout, sess.Stderr = out, out
	in, err := sess.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return out, in
}

// typeKeys types s into a session's keyboard.
func typeKeys(t *testing.T, keys io.Writer, s string) {
	t.Helper()
	if _, err := keys.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

// student joins as user: the name prompt, enter, and the view following.
func student(t *testing.T, addr, user string, key gossh.Signer) (*screen, io.Writer) {
	t.Helper()
	out, in := view(t, dial(t, addr, user, key))
	out.waitFor(t, user, "Welcome to the class")
	typeKeys(t, in, "\r")
	out.waitFor(t, user, "following the teacher")
	return out, in
}

// A teacher's tab moves every student's view: both show the lesson's
// second caption, the teacher's key told apart from a student's.
func TestStudentsFollowOverSSH(t *testing.T) {
	teacherKey := newSigner(t)
	s, addr := classroom(t, teacherKey, nil)
	teacher, keys := view(t, dial(t, addr, "ms-lovelace", teacherKey))
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	ann, _ := student(t, addr, "ann", newSigner(t))
	bob, _ := student(t, addr, "bob", nil)
	typeKeys(t, keys, "\t")
	teacher.waitFor(t, "the teacher", "a crowd of 100 arrives")
	ann.waitFor(t, "ann", "a crowd of 100 arrives")
	bob.waitFor(t, "bob", "a crowd of 100 arrives")
	if strings.Contains(teacher.text(), "following the teacher") {
		t.Error("the teacher's view says it follows")
	}
	// The teacher's key made a teacher, not a seat among the students.
	var students []string
	for _, seat := range s.Room().seats() {
		students = append(students, seat.Name)
	}
	if strings.Join(students, ",") != "ann,bob" {
		t.Errorf("the students are %v, want ann and bob (the teacher is not one)", students)
	}
}

// What windowlab does not serve is refused in one line: a command, a
// session without a terminal, connections over an address's limit.
func TestRefusals(t *testing.T) {
	_, addr := classroom(t, newSigner(t), func(c *Config) { c.PerAddress.Limit, c.PerAddress.Window = 3, time.Minute })
	run := func(c *gossh.Client, cmd string) string {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		out := newScreen()
		sess.Stdout, sess.Stderr = out, out
		if cmd == "" {
			err = sess.Shell()
			if err == nil {
				err = sess.Wait()
			}
		} else {
			err = sess.Run(cmd)
		}
		if err == nil {
			t.Errorf("%q: the session ended well, want a refusal", cmd)
		}
		return out.text()
	}
	if out := run(dial(t, addr, "eve", nil), "ls"); !strings.Contains(out, "runs no commands") {
		t.Errorf("exec: %q", out)
	}
	if out := run(dial(t, addr, "eve", nil), ""); !strings.Contains(out, "the view needs a terminal") {
		t.Errorf("no pty: %q", out)
	}
	// The third connection was allowed; the fourth is one too many.
	c := dial(t, addr, "eve", nil)
	if out := run(dial(t, addr, "eve", nil), "ls"); !strings.Contains(out, "too many connections from 127.0.0.1: at most 3 a 1m0s") {
		t.Errorf("over the limit: %q", out)
	}
	// Forwarding is refused, the agent's too.
	if _, err := c.Dial("tcp", "127.0.0.1:22"); err == nil {
		t.Error("a port forward was accepted")
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	if ok, err := sess.SendRequest("auth-agent-req@openssh.com", true, nil); ok || err != nil {
		t.Errorf("agent forwarding: accepted %v (%v), want refused", ok, err)
	}
}

func TestDisplayName(t *testing.T) {
	for in, want := range map[string]string{
		"ann": "ann", "": "student", "  ": "student", "a\x1b[2Jb": "a[2Jb", "\u202eevil": "evil",
		"a-very-long-name-that-goes-past-twenty-four": "a-very-long-name-that-go",
		// Nothing that shows: a filler, combining marks alone, blanks.
		"\u3164": "student", "\u0301\u0308": "student", "\u115f\u1160\uffa0": "student", "\u2800": "student",
		"\u3000\u00a0": "student", "\u034f\ufe0f\u200b": "student", "\u3164ann": "\u3164ann", "e\u0301": "e\u0301",
	} {
		if got := DisplayName(in); got != want {
			t.Errorf("DisplayName(%q) = %q, want %q", in, got, want)
		}
	}
}

// The teacher's view shows the roster; a student exploring shows as such;
// the teacher leaving lets the students explore, and a teacher coming back
// takes the room where it was.
func TestRosterAndTheTeacherComingBack(t *testing.T) {
	teacherKey := newSigner(t)
	s, addr := classroom(t, teacherKey, nil)
	tc := dial(t, addr, "teacher", teacherKey)
	teacher, keys := view(t, tc)
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	ann, annKeys := student(t, addr, "ann", nil)
	teacher.waitFor(t, "the teacher", "1 student, 1 following, 0 exploring")
	typeKeys(t, annKeys, "l") // → : ann explores
	ann.waitFor(t, "ann", "exploring alone")
	teacher.waitFor(t, "the teacher", "1 student, 0 following, 1 exploring")
	typeKeys(t, annKeys, "F")
	teacher.waitFor(t, "the teacher", "1 student, 1 following, 0 exploring")
	typeKeys(t, keys, "\t")
	ann.waitFor(t, "ann", "a crowd of 100 arrives")
	at, _ := s.Room().Last()
	tc.Close()
	ann.waitFor(t, "ann", "the teacher has left")
	back, _ := view(t, dial(t, addr, "teacher", teacherKey))
	back.waitFor(t, "the returning teacher", "a crowd of 100 arrives")
	ann.waitFor(t, "ann", "the teacher is back")
	if now, _ := s.Room().Last(); now.Processed != at.Processed || now.Step != at.Step {
		t.Errorf("the returning teacher is at %+v, the room was at %+v", now, at)
	}
}

// Sessions that drop free what they held: after twenty students come
// and go, the server's goroutines are back where they were.
func TestDroppedStudentsFreeTheirSessions(t *testing.T) {
	_, addr := classroom(t, newSigner(t), nil)
	// The server's goroutines: all but the test's own (its terminals'
	// emulators each keep one, draining their answers).
	settle := func() int {
		time.Sleep(200 * time.Millisecond)
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		n := 0
		for _, g := range strings.Split(string(buf), "\n\n") {
			if !strings.Contains(g, "serve.newScreen") {
				n++
			}
		}
		return n
	}
	base := settle()
	for i := range 20 {
		c := dial(t, addr, fmt.Sprintf("s%d", i), nil)
		out, in := view(t, c)
		out.waitFor(t, "a student", "Welcome to the class")
		_, _ = in.Write([]byte("\r"))
		out.waitFor(t, "a student", "following the teacher")
		c.Close()
	}
	deadline := time.Now().Add(10 * time.Second)
	n := settle()
	for n > base+4 && time.Now().Before(deadline) {
		n = settle()
	}
	if n > base+4 {
		var b strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
		t.Errorf("%d goroutines after twenty students left, %d before:\n%s", n, base, b.String())
	}
}

// Names in the room are unique: a second ann is asked for another, and
// a name with control characters is refused.
func TestNamesAreUnique(t *testing.T) {
	s, addr := classroom(t, newSigner(t), nil)
	student(t, addr, "ann", nil)
	out, in := view(t, dial(t, addr, "ann", nil))
	out.waitFor(t, "the second ann", "Welcome to the class")
	_, _ = in.Write([]byte("\r"))
	out.waitFor(t, "the second ann", "ann is taken in this room; try another")
	_, _ = in.Write([]byte("\x7f\x7f\x7fannie\r"))
	out.waitFor(t, "annie", "following the teacher")
	names := map[string]bool{}
	for _, seat := range s.Room().seats() {
		names[seat.Name] = true
	}
	if !names["ann"] || !names["annie"] {
		t.Errorf("roster %v, want ann and annie", names)
	}
}

// A name that shows nothing (U+3164 HANGUL FILLER, combining marks
// alone) is refused, as the ssh user name and at the prompt alike.
func TestInvisibleNames(t *testing.T) {
	s, addr := classroom(t, newSigner(t), nil)
	out, in := view(t, dial(t, addr, "\u3164", nil))
	out.waitFor(t, "a filler", "Welcome to the class")
	out.waitFor(t, "a filler", "your name student")
	typeKeys(t, in, strings.Repeat("\x7f", len("student"))+"\u0301\u0301\r")
	out.waitFor(t, "marks alone", `"\u0301\u0301" will not do: a name needs a character that shows`)
	typeKeys(t, in, "\x7f\x7f\u3164\r")
	out.waitFor(t, "a filler", `"\u3164" will not do`)
	typeKeys(t, in, "\x7fzoe\r")
	out.waitFor(t, "zoe", "following the teacher")
	for _, seat := range s.Room().seats() {
		if seat.Name != "zoe" {
			t.Errorf("a seat is named %+q", seat.Name)
		}
	}
}

// The teacher in serve's own terminal is a teacher of the room: students
// follow it, and its view is sent the roster as they come and go.
func TestTheTeacherHere(t *testing.T) {
	s, addr := classroom(t, newSigner(t), nil)
	rosters := make(chan room.RosterMsg, 16)
	here := s.Room().Teacher()
	gone := here.Here("teacher (here)", func(msg tea.Msg) {
		if r, ok := msg.(room.RosterMsg); ok {
			rosters <- r
		}
	})
	defer gone()
	here.Publish(room.Position{Scenario: "bouncer", Caption: -1, Speed: 1})
	student(t, addr, "zoe", nil)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r := <-rosters:
			if len(r.Seats) == 1 && r.Seats[0].Name == "zoe" && r.Seats[0].Following {
				return
			}
		case <-deadline:
			t.Fatal("the teacher here was never sent zoe in the roster")
		}
	}
}

// The live quiz over SSH: the teacher asks the lesson's first question,
// the students' answers arrive in the teacher's histogram, the reveal
// tells each student right or wrong, and moving on brings them back to
// following.
func TestTheRoomAnswersOverSSH(t *testing.T) {
	teacherKey := newSigner(t)
	_, addr := classroom(t, teacherKey, func(c *Config) {
		view := c.View
		c.View = func(r room.Room) ui.Options {
			o := view(r)
			o.Questions = quiz.Lesson()
			return o
		}
	})
	teacher, keys := view(t, dial(t, addr, "teacher", teacherKey))
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	ann, annIn := student(t, addr, "ann", nil)
	bob, bobIn := student(t, addr, "bob", nil)
	typeKeys(t, keys, "A")
	teacher.waitFor(t, "the teacher", "Which question?")
	typeKeys(t, keys, "\r")
	ann.waitFor(t, "ann", "How many get through?")
	bob.waitFor(t, "bob", "How many get through?")
	teacher.waitFor(t, "the teacher", "0 of 2 answered · 2 still thinking")
	typeKeys(t, annIn, "200 requests\r")
	typeKeys(t, bobIn, "100\r")
	ann.waitFor(t, "ann", "Sent: 200 requests")
	teacher.waitFor(t, "the teacher", "2 of 2 answered · 0 still thinking")
	typeKeys(t, keys, "\r")
	teacher.waitFor(t, "the teacher", "1 of 2 right (50%)")
	ann.waitFor(t, "ann", "✓ Right: 200")
	bob.waitFor(t, "bob", "✗ Not quite: you answered 100; the answer is 200")
	typeKeys(t, keys, "\r")
	ann.waitFor(t, "ann", "● following the teacher")
	bob.waitFor(t, "bob", "● following the teacher")
}

// Two teacher sessions (the teacher's laptop and the projector, one key)
// drive the room together: each follows the other's keys, and a student
// follows both.
func TestTeachersFollowEachOther(t *testing.T) {
	key := newSigner(t)
	_, addr := classroom(t, key, nil)
	laptop, laptopKeys := view(t, dial(t, addr, "teacher", key))
	laptop.waitFor(t, "the laptop", "step 1 of 6")
	projector, projectorKeys := view(t, dial(t, addr, "teacher", key))
	projector.waitFor(t, "the projector", "step 1 of 6")
	ann, _ := student(t, addr, "ann", nil)
	typeKeys(t, laptopKeys, "n")
	projector.waitFor(t, "the projector", "step 2 of 6")
	ann.waitFor(t, "ann", "step 2 of 6")
	typeKeys(t, projectorKeys, "n")
	laptop.waitFor(t, "the laptop", "step 3 of 6")
	ann.waitFor(t, "ann", "step 3 of 6")
}

// A session nothing comes through for --idle is closed, and frees its
// seat: a student who walked away does not hold the room.
func TestIdleSessionsClose(t *testing.T) {
	s, addr := classroom(t, newSigner(t), func(c *Config) { c.Idle = 700 * time.Millisecond })
	c := dial(t, addr, "dozy", nil)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out := newScreen()
	sess.Stdout = out
	if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "dozy", "Welcome to the class")
	ended := make(chan error, 1)
	go func() { ended <- sess.Wait() }()
	select {
	case <-ended:
	case <-time.After(15 * time.Second):
		t.Fatal("an idle session was still open after 15 s with --idle 700ms")
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.students.Load() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := s.students.Load(); n != 0 {
		t.Fatalf("%d students counted after the idle one was closed", n)
	}
}
