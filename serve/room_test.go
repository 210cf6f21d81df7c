package serve

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"windowlab/human"
)

// A whole class, opt-in since it takes minutes: WINDOWLAB_ROOM=50 students,
// each the real OpenSSH client in a terminal of its own, and a teacher
// stepping the lesson's largest step (→) once a second for
// WINDOWLAB_ROOM_FOR (default 5m), against windowlab serve built and run
// as its own process, so that its RSS is the server's alone. It logs the
// server's RSS, threads and goroutines every 10 s, and fails when a
// student's screen is not at the teacher's request at the end, when the
// RSS passes 200 MB, or when the server's goroutines are not back to
// their number with the teacher alone once the students have gone (their
// ssh killed, as a closed laptop's is). BENCHMARKS.md records a run.
//
//	WINDOWLAB_ROOM=50 go test ./serve -run TestClassroomOfFifty -v -timeout 30m
func TestClassroomOfFifty(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WINDOWLAB_ROOM"))
	if n <= 0 {
		t.Skip("set WINDOWLAB_ROOM=50 (and WINDOWLAB_ROOM_FOR=5m) to hold a whole class")
	}
	dur := 5 * time.Minute
	if v := os.Getenv("WINDOWLAB_ROOM_FOR"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("WINDOWLAB_ROOM_FOR=%q: %v", v, err)
		}
		dur = d
	}
	_, keyFile := writeKey(t)
	srv := startServer(t, keyFile+".pub", n+2) // seats for the two probes too, and the per-address limit with them
	teacher, keys, _ := sshClient(t, srv.addr, "teacher", keyFile)
	teacher.waitFor(t, "the teacher", "step 1 of 6")
	// The server's goroutines are counted when a student connects: a
	// probe's before the class comes, and another's after it has gone,
	// each with the teacher and the probe alone in the room.
	probe := func(name string) int {
		out, _, kill := sshClient(t, srv.addr, name, "")
		out.waitFor(t, name, "Welcome to the class")
		g := srv.goroutines(t, name)
		kill()
		return g
	}
	baseline := probe("before")
	seats := make([]seat, n)
	for i := range seats {
		name := fmt.Sprintf("s%02d", i+1)
		out, in, kill := sshClient(t, srv.addr, name, "")
		seats[i] = seat{out, in, kill, name}
	}
	for _, s := range seats {
		s.out.waitFor(t, s.name, "Welcome to the class")
		typeKeys(t, s.in, "\r")
	}
	for _, s := range seats {
		s.out.waitFor(t, s.name, "following the teacher")
	}
	typeKeys(t, keys, "n")
	time.Sleep(500 * time.Millisecond)
	typeKeys(t, keys, "n")
	teacher.waitFor(t, "the teacher", "step 3 of 6")
	t.Logf("%d students joined: server RSS %s, %d threads; %d goroutines with the teacher and a probe", n, mb(srv.rss(t)), srv.threads(t), baseline)
	cpu0 := srv.cpu(t)
	most, start := int64(0), time.Now()
	var lags []time.Duration // from the teacher's key to the last student's screen, every 15th step
	for step := 1; time.Since(start) < dur; step++ {
		pressed := time.Now()
		typeKeys(t, keys, "\x1b[C")
		if step%15 == 0 && reachAll(seats, fmt.Sprintf("request %s/", human.Int(int64(step))), time.Second) {
			lags = append(lags, time.Since(pressed))
		}
		time.Sleep(time.Until(pressed.Add(time.Second)))
		if step%10 == 0 {
			r := srv.rss(t)
			most = max(most, r)
			t.Logf("t=%3ds server RSS %s, %d threads", step, mb(r), srv.threads(t))
		}
	}
	time.Sleep(2 * time.Second)
	want := requestOf(teacher.text())
	if want == "" {
		t.Fatalf("the teacher's header shows no request:\n%s", tail(teacher.text()))
	}
	at := 0
	for _, s := range seats {
		if got := requestOf(s.out.text()); got == want {
			at++
		} else {
			t.Errorf("%s is at %q, the teacher at %q", s.name, got, want)
		}
	}
	if len(lags) > 0 {
		slices.Sort(lags)
		t.Logf("from the teacher's key to the last of %d students' screens, over %d steps: median %s, worst %s",
			n, len(lags), lags[len(lags)/2].Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
	}
	t.Logf("after %s: %d of %d students at the teacher's %s; server RSS at most %s; the server used %s of CPU",
		dur, at, n, want, mb(most), (srv.cpu(t) - cpu0).Round(10*time.Millisecond))
	if most > 200e6 {
		t.Errorf("the server's RSS reached %s, over the 200 MB a class of 50 may take", mb(most))
	}
	for _, s := range seats {
		s.kill()
	}
	srv.waitGone(t, n+1)
	time.Sleep(2 * time.Second)
	left := probe("after")
	t.Logf("the students gone: server RSS %s, %d goroutines", mb(srv.rss(t)), left)
	if left > baseline {
		t.Errorf("the server has %d goroutines after the students left, %d before they came", left, baseline)
	}
}

// reachAll waits up to within for every student's screen to show want.
func reachAll(seats []seat, want string, within time.Duration) bool {
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if !slices.ContainsFunc(seats, func(s seat) bool { return !strings.Contains(s.out.text(), want) }) {
			return true
		}
	}
	return false
}

// seat is a student of the class: their screen, keys, and ssh to kill.
type seat struct {
	out  *screen
	in   *os.File
	kill func()
	name string
}

// server is windowlab serve running as its own process.
type server struct {
	addr string
	cmd  *exec.Cmd
	log  *bytes.Buffer
	mu   *sync.Mutex
}

// startServer builds windowlab and serves the lesson on a free loopback
// port with teacherKeys, logging every connection with the server's
// goroutines (--verbose).
func startServer(t *testing.T, teacherKeys string, seats int) server {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "windowlab")
	if out, err := exec.Command("go", "build", "-o", bin, "windowlab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--host-key", filepath.Join(dir, "host_ed25519"),
		"--teacher-keys", teacherKeys, "--max-students", strconv.Itoa(seats), "--verbose")
	s := server{addr: addr, cmd: cmd, log: &bytes.Buffer{}, mu: &sync.Mutex{}}
	cmd.Stdout, cmd.Stderr = s, s
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(s.text(), "listening on"); {
		if time.Now().After(deadline) {
			t.Fatalf("windowlab serve did not start:\n%s", s.text())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return s
}

func (s server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Write(p)
}

func (s server) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// goroutines is the number of goroutines the server logged when student
// name connected.
func (s server) goroutines(t *testing.T, name string) int {
	t.Helper()
	re := regexp.MustCompile(`connected name=` + name + ` .*\n.*goroutines=(\d+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m := re.FindStringSubmatch(s.text()); m != nil {
			g, _ := strconv.Atoi(m[1])
			return g
		}
	}
	t.Fatalf("the server never logged its goroutines as %s connected:\n%s", name, tail(s.text()))
	return 0
}

// waitGone waits for the server to log n disconnections.
func (s server) waitGone(t *testing.T, n int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); strings.Count(s.text(), "disconnected") < n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server logged %d of %d disconnections:\n%s", strings.Count(s.text(), "disconnected"), n, tail(s.text()))
		}
	}
}

// status is a field of the server's /proc status, in its units.
func (s server) status(t *testing.T, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc here to read the server's RSS from")
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field+":" {
			v, _ := strconv.ParseInt(f[1], 10, 64)
			return v
		}
	}
	return 0
}

// cpu is the CPU time the server has used, user and system, from
// /proc/PID/stat (in clock ticks of 1/100 s).
func (s server) cpu(t *testing.T) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc here to read the server's CPU time from")
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// alive reports whether the server is running: not exited (a zombie,
// until the test's cleanup waits for it) nor gone.
func (s server) alive(t *testing.T) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		t.Skip("no /proc here to see the server in")
	}
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func (s server) rss(t *testing.T) int64     { return s.status(t, "VmRSS") << 10 }
func (s server) threads(t *testing.T) int64 { return s.status(t, "Threads") }

// requestOf is the "request N/M" a header shows.
func requestOf(screen string) string {
	return regexp.MustCompile(`request [0-9,]+/[0-9,]+`).FindString(screen)
}

func mb(b int64) string { return fmt.Sprintf("%.0f MB", float64(b)/1e6) }
