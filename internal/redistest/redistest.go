// Package redistest starts a real redis-server for windowlab's tests: on
// a free 127.0.0.1 port, with no persistence, stopped when the test ends.
// Where there is no redis-server the test is skipped with one line saying
// how to install it, unless WINDOWLAB_REDIS=required (as .ci/run sets it,
// after installing the package), when it fails instead.
//
// It lives under internal/ because only windowlab's own tests may use it.
package redistest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Env is the variable that makes a missing redis-server a failure.
const Env = "WINDOWLAB_REDIS"

// Server is a running redis-server.
type Server struct {
	Addr string // 127.0.0.1:port
	URL  string // redis://127.0.0.1:port/0
	cmd  *exec.Cmd
}

// Stop kills the server at once, as a crash would.
func (s *Server) Stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// Start runs a redis-server for t, or skips t (see the package comment).
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(Env) == "required" {
			t.Fatalf("no redis-server, and %s=required", Env)
		}
		t.Skip("no redis-server here (Debian: apt-get install redis-server)")
	}
	var lastErr error
	for range 5 { // a port found free may be taken before the server binds it
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		s, err := start(t, bin, port, args)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("redis-server would not start: %v", lastErr)
	return nil
}

func start(t testing.TB, bin string, port int, extra []string) (*Server, error) {
	args := []string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", t.TempDir(), "--logfile", "", "--daemonize", "no"}
	cmd := exec.Command(bin, append(args, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Ready to accept connections") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			return nil, fmt.Errorf("redis-server on port %d exited", port)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("redis-server on port %d not ready in 20 s", port)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := &Server{Addr: addr, URL: "redis://" + addr + "/0", cmd: cmd}
	t.Cleanup(s.Stop)
	return s, nil
}
