// Package nginxtest starts a real nginx for windowlab's tests: on a free
// 127.0.0.1 port, in the test's own directory (configuration, pid, logs,
// temporary files), stopped gracefully when the test ends so that every
// access log line is written. Where there is no nginx the test is skipped
// with one line saying how to install it, unless WINDOWLAB_NGINX=required
// (as .ci/run sets it, after installing the package), when it fails
// instead.
//
// It lives under internal/ because only windowlab's own tests may use it.
package nginxtest

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Env is the variable that makes a missing nginx a failure.
const Env = "WINDOWLAB_NGINX"

// Server is a running nginx.
type Server struct {
	Addr string // 127.0.0.1:port
	Dir  string // its directory: logs, the configuration, the files it serves
	cmd  *exec.Cmd
	done chan struct{}
}

// Config is what the test puts in nginx.conf: HTTP holds directives of
// the http block (log_format, limit_req_zone …), Server those of its one
// server block (locations). {dir} in either is the server's directory.
type Config struct {
	HTTP, Server string
	// Files are written under Dir/www before nginx starts, by name, for
	// the locations to serve (root {dir}/www).
	Files map[string]string
}

// Start runs an nginx for t, or skips t (see the package comment).
func Start(t testing.TB, c Config) *Server {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/nginx"); statErr != nil {
			if os.Getenv(Env) == "required" {
				t.Fatalf("no nginx, and %s=required", Env)
			}
			t.Skip("no nginx here (Debian: apt-get install nginx-light)")
		}
		bin = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range c.Files {
		if err := os.WriteFile(filepath.Join(dir, "www", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var lastErr error
	for range 5 { // a port found free may be taken before nginx binds it
		s, err := start(t, bin, dir, c)
		if err == nil {
			return s
		}
		lastErr = err
	}
	t.Fatalf("nginx would not start: %v", lastErr)
	return nil
}

func start(t testing.TB, bin, dir string, c Config) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
%[3]s
	server {
		listen %[2]s;
		location = /ready { return 200 "ok\n"; }
%[4]s
	}
}
`, dir, addr, strings.ReplaceAll(c.HTTP, "{dir}", dir), strings.ReplaceAll(c.Server, "{dir}", dir))
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "-c", confPath, "-p", dir, "-e", filepath.Join(dir, "error.log"))
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: addr, Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.done) }()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case <-s.done:
			data, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return nil, fmt.Errorf("nginx on %s exited:\n%s", addr, data)
		default:
		}
		if resp, err := client.Get("http://" + addr + "/ready"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-s.done
			return nil, fmt.Errorf("nginx on %s not ready in 20 s", addr)
		}
	}
	t.Cleanup(func() { s.Stop(t) })
	return s, nil
}

// Stop stops nginx gracefully (SIGQUIT: it finishes what it serves and
// writes every log line), killing it if it has not stopped in 10 s. A
// second call does nothing.
func (s *Server) Stop(t testing.TB) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
		t.Errorf("nginx did not stop within 10 s of SIGQUIT")
	}
}
