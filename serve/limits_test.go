package serve

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// A client's window size decides what its session's renderer allocates:
// one asking for a terminal of 4294967295×4294967295 took the server
// down (out of memory), 65535×65535 cost 0.9 GB, 1000×1000 256 MB. With
// one connection's four sessions asking for those sizes and resizing to
// them again after joining, the server (windowlab serve, a process of its
// own so that its RSS is its alone) stays up, under a generous 300 MB at
// its peak where those sizes would take gigabytes, and a student from
// elsewhere still joins and follows.
func TestHugeWindowsAreCut(t *testing.T) {
	keys := filepath.Join(t.TempDir(), "teacher.pub")
	if err := os.WriteFile(keys, gossh.MarshalAuthorizedKey(newSigner(t).PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := startServer(t, keys, 10)
	c := dial(t, srv.addr, "mallory", nil)
	sizes := [][2]int{{4294967295, 4294967295}, {65535, 65535}, {80, 100_000_000}, {1000, 1000}} // columns, rows
	var sessions []*gossh.Session
	for i, size := range sizes {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		sessions = append(sessions, sess)
		sess.Stdout = newScreen()
		if err := sess.RequestPty("xterm-256color", size[1], size[0], gossh.TerminalModes{}); err != nil {
			t.Fatalf("pty of %dx%d: %v", size[0], size[1], err)
		}
		if err := sess.Shell(); err != nil {
			t.Fatal(err)
		}
		// Joined: the server has made the session's view, or died.
		for deadline := time.Now().Add(30 * time.Second); strings.Count(srv.text(), "connected name=mallory") < i+1; time.Sleep(20 * time.Millisecond) {
			if !srv.alive(t) || time.Now().After(deadline) {
				t.Fatalf("the server did not take a pty of %dx%d:\n%s", size[0], size[1], tail(srv.text()))
			}
		}
	}
	for i, sess := range sessions {
		// A resize after joining, to 2^32-1 (2^32 does not fit the message's 32 bits).
		if err := sess.WindowChange(4294967295, 4294967295); err != nil {
			t.Fatalf("session %d: window-change: %v", i, err)
		}
	}
	ann, _ := student(t, srv.addr, "ann", nil)
	ann.waitFor(t, "ann", "step 1 of 6")
	if !srv.alive(t) {
		t.Fatalf("the server is gone:\n%s", tail(srv.text()))
	}
	peak := srv.status(t, "VmHWM") << 10
	t.Logf("the server's peak RSS: %s", mb(peak))
	if peak > 300e6 {
		t.Errorf("the server's RSS reached %s with four sessions asking for huge windows; the view is at most %dx%d", mb(peak), MaxWidth, MaxHeight)
	}
}

// One connection may hold a few sessions (ControlMaster shares one among a
// user's terminals), not the room: of 300 sessions opened on one
// connection, 4 get a view and the rest are refused in one line (the
// first few opened to be told it, since ControlMaster shows a rejection
// without its reason), a student on a connection of their own still
// joins, and a session closed frees its seat and its place.
func TestSessionsPerConnection(t *testing.T) {
	s, addr := classroom(t, newSigner(t), nil)
	c := dial(t, addr, "mallory", nil)
	why := fmt.Sprintf("windowlab: at most %d sessions on one connection; close one, or connect again", MaxSessionsPerConnection)
	var open []*gossh.Session
	var told []io.Reader // what a session told why wrote to its standard error
	rejected := 0
	for range 300 {
		sess, err := c.NewSession()
		if err != nil {
			if !strings.Contains(err.Error(), why) {
				t.Fatalf("a session refused with %v, want %q", err, why)
			}
			rejected++
			continue
		}
		sess.Stdout = newScreen()
		stderr, err := sess.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}) != nil || sess.Shell() != nil {
			told = append(told, stderr)
			continue
		}
		open = append(open, sess)
	}
	if len(open) != MaxSessionsPerConnection || len(told) == 0 || len(told)+rejected != 300-MaxSessionsPerConnection {
		t.Fatalf("of 300 sessions on one connection %d opened, %d were told why and %d rejected; want %d open and the rest told or rejected",
			len(open), len(told), rejected, MaxSessionsPerConnection)
	}
	for _, stderr := range told {
		if said, err := io.ReadAll(stderr); err != nil || string(said) != why+"\r\n" {
			t.Errorf("a session over the limit was told %q (%v), want %q", said, err, why)
		}
	}
	student(t, addr, "ann", nil)
	if n := s.students.Load(); n != MaxSessionsPerConnection+1 {
		t.Errorf("%d students, want the connection's %d and ann", n, MaxSessionsPerConnection)
	}
	// A session closed frees its seat in the room, though its connection
	// goes on (else closing and opening again would fill the room), and
	// its place on the connection.
	open[0].Close()
	for deadline := time.Now().Add(10 * time.Second); s.students.Load() != MaxSessionsPerConnection; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d students after one of the connection's sessions closed, want %d", s.students.Load(), MaxSessionsPerConnection)
		}
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if sess, err := c.NewSession(); err == nil {
			sess.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a session closed did not free its place on the connection")
		}
	}
}

// Stopping the server ends the class rather than waiting for it to end
// (windowlab serve waited out a 5 s timeout with any student in): every
// session, students' and a teacher's, is ended by the server with an exit
// status, its terminal out of the alternate screen and told goodbye, and
// Shutdown returns by itself, not at its context's end, which never comes.
func TestShutdownEndsTheSessions(t *testing.T) {
	teacherKey := newSigner(t)
	s, addr := classroom(t, teacherKey, nil)
	type seat struct {
		who   string
		out   *screen
		ended chan error
	}
	var seats []seat
	for _, who := range []string{"teacher", "ann", "bob", "cy"} {
		key := (gossh.Signer)(nil)
		if who == "teacher" {
			key = teacherKey
		}
		sess, err := dial(t, addr, who, key).NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out := newScreen()
		sess.Stdout, sess.Stderr = out, out
		if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Shell(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan error, 1)
		go func() { ended <- sess.Wait() }()
		out.waitFor(t, who, map[bool]string{true: "step 1 of 6", false: "Welcome to the class"}[who == "teacher"])
		seats = append(seats, seat{who, out, ended})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	returned := make(chan error, 1)
	go func() { returned <- s.Shutdown(ctx) }()
	select {
	case err := <-returned:
		if err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	case <-time.After(30 * time.Second): // generous: Shutdown waits on nobody
		t.Fatal("Shutdown was still waiting for the sessions after 30 s")
	}
	for _, st := range seats {
		select {
		case err := <-st.ended:
			if err != nil { // an exit status the server sent, not a connection cut
				t.Errorf("%s's session ended with %v, want exit status 0", st.who, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s's session was still open after Shutdown", st.who)
			continue
		}
		st.out.waitFor(t, st.who, "windowlab: the class is over")
		st.out.mu.Lock()
		alt, hidden := st.out.emu.IsAltScreen(), st.out.emu.CursorHidden()
		st.out.mu.Unlock()
		if alt || hidden {
			t.Errorf("%s's terminal was left in the alternate screen (%v) or with the cursor hidden (%v)", st.who, alt, hidden)
		}
	}
}
