package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// What serve cannot serve is refused before it listens, exit 2, with the
// valid range or the file and why: flags out of range, key files that are
// devices, FIFOs or too big (/dev/zero was read until the OOM killer
// came), and a scenario whose view is over the memory budget (each
// student was served the error instead).
func TestServeRefusesBeforeListening(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	keys := writeFile(t, "teacher.pub", gossh.MarshalAuthorizedKey(testSigner(t).PublicKey()))
	big := writeFile(t, "big.yaml", []byte("limit: 1000000000\nwindow: 168h\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59\", rate: 578/s, clients: 1000000, seed: 1}\n"))
	hostKey := filepath.Join(dir, "host_ed25519")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no seat", []string{"--max-students", "0"}, "--max-students 0 is out of range; give 1 to 1000"},
		{"fewer than none", []string{"--max-students", "-1"}, "--max-students -1 is out of range; give 1 to 1000"},
		{"a stadium", []string{"--max-students", "99999999"}, "--max-students 99999999 is out of range; give 1 to 1000"},
		{"idle below zero", []string{"--idle", "-5s"}, "--idle -5s is out of range; give 0 (never) or 1s to 24h"},
		{"idle over a day", []string{"--idle", "25h"}, "--idle 25h is out of range; give 0 (never) or 1s to 24h"},
		{"teacher keys from /dev/zero", []string{"--teacher-keys", "/dev/zero"}, "--teacher-keys /dev/zero: a character device, not a regular file"},
		{"teacher keys from a FIFO", []string{"--teacher-keys", fifo}, "--teacher-keys " + fifo + ": a named pipe, not a regular file"},
		{"a host key from /dev/zero", []string{"--teacher-keys", keys, "--host-key", "/dev/zero"}, "--host-key /dev/zero: a character device, not a regular file"},
		{"a host key from a FIFO", []string{"--teacher-keys", keys, "--host-key", fifo}, "--host-key " + fifo + ": a named pipe, not a regular file"},
		{"two programmes", []string{"--teacher-keys", keys, "--play", "--scenario", "bouncer"}, "--lesson, --scenario and --play each name the programme; give one"},
		{"a scenario over the budget", []string{"--teacher-keys", keys, "--scenario", big}, "big.yaml: viewing it (the view keeps every decision for its timeline) would need about"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"serve", "--addr", "127.0.0.1:0"}, c.args...)
			if !strings.Contains(strings.Join(c.args, " "), "--host-key") {
				args = append(args, "--host-key", hostKey)
			}
			p := start(t, args...)
			code := p.wait(t)
			msg := p.stderr.String()
			if code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "listening") {
				t.Errorf("exit %d, want 2 with %q before listening; standard error:\n%s", code, c.want, msg)
			}
		})
	}
}

// serve stops at a signal without waiting for its students to leave (it
// took the 5 s of its shutdown's timeout with any student in): each
// student's session is ended by the server, with a goodbye and an exit
// status, not cut off when the process ends; the exit status is the
// signal's; and the teacher's own terminal, when serve has one, is put
// back.
func TestServeStopsWithStudents(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	keys := writeFile(t, "teacher.pub", gossh.MarshalAuthorizedKey(testSigner(t).PublicKey()))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			addr := freeAddr(t)
			stderr := filepath.Join(dir, "stderr")
			f, err := os.Create(stderr)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p := &process{}
			p.cmd = exec.Command(os.Args[0], "-test.run=^$", "--", "serve", "--addr", addr,
				"--host-key", filepath.Join(dir, "host_ed25519"), "--teacher-keys", keys)
			p.cmd.Env = append(os.Environ(), beMain+"=1")
			p.cmd.Stderr = f
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.cmd.Process.Kill() })
			students := joinClass(t, addr, 3, func() string { b, _ := os.ReadFile(stderr); return string(b) })
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != 128+int(sig) {
				b, _ := os.ReadFile(stderr)
				t.Errorf("exit %d, want %d:\n%s", code, 128+int(sig), b)
			}
			for _, s := range students {
				s.saidGoodbye(t)
			}
		})
	}
	t.Run("the teacher's terminal", func(t *testing.T) {
		if _, err := exec.LookPath("tmux"); err != nil {
			t.Skip("needs tmux (.ci/run installs it)")
		}
		dir := t.TempDir()
		addr := freeAddr(t)
		socket := fmt.Sprintf("windowlab-serve-test-%d", os.Getpid())
		pidFile, statusFile := filepath.Join(dir, "pid"), filepath.Join(dir, "status")
		inner := "echo $$ > " + pidFile + "; exec env " + beMain + "=1 " + os.Args[0] + " -test.run=^$ -- serve --addr " + addr +
			" --host-key " + filepath.Join(dir, "host_ed25519") + " --teacher-keys " + keys
		outer := "sh -c '" + inner + "'; echo $? > " + statusFile + "; sleep 60"
		tmux(t, socket, "new-session", "-d", "-x", "100", "-y", "30", outer)
		t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
		// With the terminal the teacher's view's, the log goes beside the host key.
		students := joinClass(t, addr, 3, func() string { b, _ := os.ReadFile(filepath.Join(dir, "serve.log")); return string(b) })
		deadline := time.Now().Add(patience)
		for tmux(t, socket, "display", "-p", "#{alternate_on}") != "1" {
			if time.Now().After(deadline) {
				t.Fatalf("the teacher's view never opened:\n%s", tmux(t, socket, "capture-pane", "-p"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		pid, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if _, err := fmt.Sscan(string(pid), &n); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(n, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		for {
			if status, err := os.ReadFile(statusFile); err == nil && len(status) > 0 {
				if got := strings.TrimSpace(string(status)); got != "143" {
					t.Errorf("exit status %s, want 143", got)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("still running %v after SIGTERM:\n%s", patience, tmux(t, socket, "capture-pane", "-p"))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got := tmux(t, socket, "display", "-p", "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag}"); got != "0 0 0" {
			t.Errorf("the teacher's terminal: alternate screen, mouse any, mouse button = %s; want all off", got)
		}
		for _, s := range students {
			s.saidGoodbye(t)
		}
	})
}

// classStudent is a student of a serve under test: what their terminal
// was sent, and how their session ended.
type classStudent struct {
	name  string
	mu    sync.Mutex
	out   strings.Builder
	ended chan error
}

func (s *classStudent) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.Write(p)
}

func (s *classStudent) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// saidGoodbye checks that the server ended the student's session: exit
// status 0 and the goodbye, not a connection cut.
func (s *classStudent) saidGoodbye(t *testing.T) {
	t.Helper()
	select {
	case err := <-s.ended:
		if err != nil {
			t.Errorf("%s's session ended with %v, want exit status 0 from the server", s.name, err)
		}
	case <-time.After(patience):
		t.Errorf("%s's session was still open %v after serve stopped", s.name, patience)
		return
	}
	if !strings.Contains(s.text(), "windowlab: the class is over") {
		t.Errorf("%s was not told goodbye; their terminal was sent:\n%q", s.name, s.text()[max(len(s.text())-400, 0):])
	}
}

// joinClass connects n students to the serve at addr once it listens, and
// waits for its log to say each has joined.
func joinClass(t *testing.T, addr string, n int, log func() string) []*classStudent {
	t.Helper()
	var students []*classStudent
	deadline := time.Now().Add(patience)
	for i := range n {
		s := &classStudent{name: fmt.Sprintf("s%d", i), ended: make(chan error, 1)}
		cfg := &gossh.ClientConfig{User: s.name, HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second,
			Auth: []gossh.AuthMethod{gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) { return nil, nil })}}
		var c *gossh.Client
		for {
			var err error
			if c, err = gossh.Dial("tcp", addr, cfg); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("serve never took a connection: %v\n%s", err, log())
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Cleanup(func() { c.Close() })
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		sess.Stdout, sess.Stderr = s, s
		if err := sess.RequestPty("xterm-256color", 30, 100, gossh.TerminalModes{}); err != nil {
			t.Fatal(err)
		}
		if err := sess.Shell(); err != nil {
			t.Fatal(err)
		}
		go func() { s.ended <- sess.Wait() }()
		students = append(students, s)
	}
	for _, s := range students {
		for !strings.Contains(log(), "connected name="+s.name+" ") {
			if time.Now().After(deadline) {
				t.Fatalf("the log never said %s joined:\n%s", s.name, log())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return students
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func testSigner(t *testing.T) gossh.Signer {
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
