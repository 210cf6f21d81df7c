package cli

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A real web server's log: Debian's nginx serves 127.0.0.1 on a free port
// with two access logs (the default combined, and one with $msec times);
// a client called burst sends 150 requests at once and one called calm
// ten, and replay reads both logs back to the same decisions: the sliding
// log lets burst have 100 of its 150 in the minute. Skipped where there
// is no nginx (.ci/run installs it).
func TestReplayARealNginxLog(t *testing.T) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, statErr := os.Stat("/usr/sbin/nginx"); statErr != nil {
			t.Skip("no nginx here (Debian: apt-get install nginx-light)")
		}
		bin = "/usr/sbin/nginx"
	}
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	log_format msec '$remote_addr - $remote_user [$msec] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"';
	access_log %[1]s/access.log combined;
	access_log %[1]s/access-msec.log msec;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen %[2]s;
		location / { return 200 "ok\n"; }
	}
}
`, dir, addr)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", confPath, "-p", dir, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("nginx would not start: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(agent, path string) error {
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.Header.Set("User-Agent", agent)
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	for deadline := time.Now().Add(10 * time.Second); get("probe", "/ready") != nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			data, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Skipf("nginx did not answer on %s:\n%s", addr, data)
		}
	}
	for i := range 150 {
		if err := get("burst", fmt.Sprintf("/api/items?i=%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	for range 10 {
		if err := get("calm", "/"); err != nil {
			t.Fatal(err)
		}
	}
	// A graceful stop: nginx writes a request's line after its answer, so
	// the last one may not be written yet.
	_ = cmd.Process.Signal(syscall.SIGQUIT)
	stopped := make(chan struct{})
	go func() { _ = cmd.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("nginx did not stop within 10 s of SIGQUIT")
	}

	for _, name := range []string{"access.log", "access-msec.log"} {
		out, errOut, code := windowlab(t, "replay", filepath.Join(dir, name), "--key", "field:agent", "--limit", "100", "--window", "1h",
			"--algorithms", "sliding-log")
		if code != 0 {
			t.Fatalf("%s: exit %d:\n%s", name, code, errOut)
		}
		for _, want := range []string{"161 lines, combined; 161 requests", "3 clients by field:agent"} {
			if !strings.Contains(unwrapped(out), want) {
				t.Errorf("%s: the report lacks %q:\n%s", name, want, out)
			}
		}
		if !regexp.MustCompile(`(?m)^\s+allowed\s+111\n\s+denied\s+50$`).MatchString(out) {
			t.Errorf("%s: the sliding log should allow 111 (burst's 100, calm's 10, the probe's 1) and deny 50:\n%s", name, out)
		}
		if resolution := map[string]string{"access.log": "times are to the second", "access-msec.log": "times are to the millisecond"}[name]; !strings.Contains(out, resolution) {
			t.Errorf("%s: the report should say %q:\n%s", name, resolution, out)
		}
	}
}
