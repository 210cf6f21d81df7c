// Package haproxytest starts a real HAProxy for windowlab's tests: in the
// foreground, one frontend on a free 127.0.0.1 port, its configuration in
// the test's temporary directory, logging each request to a file the test
// reads (`log stdout format raw`, HAProxy's standard output captured), and
// killed when the test ends. Where there is no haproxy the test is skipped
// with one line saying how to install it, unless WINDOWLAB_HAPROXY=required
// (as .ci/run sets it, after installing the package), when it fails instead.
//
// It lives under internal/ because only windowlab's own tests may use it.
package haproxytest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Env is the variable that makes a missing haproxy a failure.
const Env = "WINDOWLAB_HAPROXY"

// Server is a running HAProxy.
type Server struct {
	Addr string // 127.0.0.1:port
	Log  string // the file its request log goes to, a line a request
	cmd  *exec.Cmd
	done chan struct{}
}

// Binary is the haproxy to run: on $PATH, or Debian's /usr/sbin/haproxy
// (not on a user's $PATH); "" when there is none.
func Binary() string {
	if bin, err := exec.LookPath("haproxy"); err == nil {
		return bin
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	return ""
}

// Start runs HAProxy for t with one HTTP frontend whose lines (after its
// bind) are frontend, and a log-format of logFormat; or skips t (see the
// package comment). It returns once the frontend answers.
func Start(t testing.TB, frontend, logFormat string) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		if os.Getenv(Env) == "required" {
			t.Fatalf("no haproxy, and %s=required", Env)
		}
		t.Skip("no haproxy here (Debian: apt-get install haproxy)")
	}
	var lastErr error
	for range 5 { // a port found free may be taken before the server binds it
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		s, err := start(t, bin, addr, frontend, logFormat)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("haproxy would not start: %v", lastErr)
	return nil
}

// config is the whole configuration: no backend (the frontend answers
// with http-request return), every request logged to standard output.
func config(addr, frontend, logFormat string) string {
	return fmt.Sprintf(`global
	log stdout format raw local0
	nbthread 1
defaults
	mode http
	log global
	timeout client 10s
	timeout connect 10s
	timeout server 10s
frontend fe
	bind %s
	log-format "%s"
%s
`, addr, logFormat, frontend)
}

func start(t testing.TB, bin, addr, frontend, logFormat string) (*Server, error) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(conf, []byte(config(addr, frontend, logFormat)), 0o644); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "requests.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child holds its own descriptor
	var errOut bytes.Buffer
	cmd := exec.Command(bin, "-f", conf, "-db")
	cmd.Stdout, cmd.Stderr = logFile, &errOut
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: addr, Log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	t.Cleanup(s.kill)
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("haproxy on %s exited: %s", addr, errOut.String())
		default:
		}
		// Any answer will do: the probe carries no client header.
		if resp, err := client.Get("http://" + addr + "/ready"); err == nil {
			resp.Body.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("haproxy on %s not answering in 20 s: %s", addr, errOut.String())
		}
	}
}

// Stop stops HAProxy gracefully (SIGUSR1: it finishes what it serves and
// logs it) and waits for it, at most 10 s; the log is then whole.
func (s *Server) Stop() error {
	_ = s.cmd.Process.Signal(syscall.SIGUSR1)
	select {
	case <-s.done:
		return nil
	case <-time.After(10 * time.Second):
		s.kill()
		return fmt.Errorf("haproxy on %s did not stop within 10 s of SIGUSR1", s.Addr)
	}
}

// kill ends HAProxy at once, if it still runs.
func (s *Server) kill() {
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Lines reads the request log's lines.
func (s *Server) Lines() ([]string, error) {
	f, err := os.Open(s.Log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
