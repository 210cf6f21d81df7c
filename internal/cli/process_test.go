package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"windowlab/human"
	"windowlab/internal/long"
	"windowlab/internal/redisclustertest"
)

// beMain makes this test binary be windowlab itself: a test that needs the
// real process (its signals, its exit status, its terminal) runs the binary
// again with this variable set and the command line after "--".
const beMain = "WINDOWLAB_TEST_BE_MAIN"

// watching is the file a process run by start creates once it watches its
// stop signals (see signalsWatched).
const watching = "WINDOWLAB_TEST_WATCHING"

func TestMain(m *testing.M) {
	if os.Getenv(beMain) == "1" {
		if path := os.Getenv(watching); path != "" {
			signalsWatched = func() { _ = os.WriteFile(path, nil, 0o600) }
		}
		for i, a := range os.Args {
			if a == "--" {
				os.Args = append([]string{"windowlab"}, os.Args[i+1:]...)
				break
			}
		}
		Main(version, commit) // exits, as the main package's main does
	}
	redisclustertest.Main(m) // stops the tests' shared Redis Cluster, if one started
}

// process is windowlab run as its own process, with what it writes.
type process struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	watching       string // the file it creates once it watches its signals
}

// start runs windowlab args in a process of its own.
func start(t *testing.T, args ...string) *process {
	t.Helper()
	p := &process{watching: filepath.Join(t.TempDir(), "watching")}
	p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	p.cmd.Env = append(os.Environ(), beMain+"=1", watching+"="+p.watching)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.cmd.Process.Kill() })
	return p
}

// patience is how long a process may take to stop after a signal before the
// test calls it stuck: generous, since a loaded machine is slow, and never
// a measurement.
const patience = 60 * time.Second

// wait returns the exit status, failing the test if the process has not
// exited within patience.
func (p *process) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(patience):
		_ = p.cmd.Process.Kill()
		t.Fatalf("still running %v after the signal; it wrote:\n%s\n%s", patience, p.stdout.String(), p.stderr.String())
		return -1
	}
}

// busy waits until the process has been running a moment, so a signal finds
// it in the middle of its work rather than before it began.
func busy() { time.Sleep(300 * time.Millisecond) }

// busyWatching waits until the process watches its stop signals (on a loaded
// machine that can take longer than busy's moment; a signal before it would
// kill the process rather than stop it), then busy's moment more.
func (p *process) busyWatching(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		if _, err := os.Stat(p.watching); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not watching its signals after %v; it wrote:\n%s\n%s", patience, p.stdout.String(), p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	busy()
}

// Every long command stops at a signal, writes what it finished and exits
// 128 + the signal's number.
func TestSignalsStopEveryCommand(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	write := func(name, text string) string { return writeFile(t, name, []byte(text)) }
	// 50 million requests at one instant: seconds of work for any command.
	burst := write("burst.yaml", "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 50000000}\n")
	checked := write("checked.yaml", "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 50000000}\nexpect:\n  - {algorithm: fixed-window, allowed: 100}\n")
	// Twenty questions about the end of a stream of 8.6 million requests.
	var questions strings.Builder
	questions.WriteString("limit: 100\nwindow: 1m\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59.990\", every: 10ms}\nquestions:\n")
	for range 20 {
		questions.WriteString("  - {ask: \"How many?\", answer: \"1\", at: \"23:59:59\", algorithm: fixed-window}\n")
	}
	quiz := write("quiz.yaml", questions.String())
	// A log of 1,000,000 requests, swept at 24 settings: seconds of work,
	// even on an idle machine (200,000 were done before the signal).
	var logText strings.Builder
	for i := range 1_000_000 {
		fmt.Fprintf(&logText, "10.0.%d.%d - - [01/Dec/2026:00:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", i/250%250, i%250, i/60000%60, i/1000%60)
	}
	accessLog := write("access.log", logText.String())
	fifo := filepath.Join(t.TempDir(), "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name string
		args []string
		sig  syscall.Signal
		want []string // in stdout or stderr
	}{
		{"run", []string{"run", burst}, syscall.SIGINT, []string{"STOPPED EARLY", "requests decided", "stopped by SIGINT"}},
		{"run --json", []string{"run", burst, "--json"}, syscall.SIGTERM, []string{`"complete":false`, "stopped by SIGTERM"}},
		{"run --trace", []string{"run", burst, "--trace"}, syscall.SIGINT, []string{"STOPPED EARLY"}},
		{"check", []string{"check", burst + ".missing", checked, burst}, syscall.SIGINT, []string{"no such file", "stopped while checking; 1 of 3 files"}},
		{"a fifo nobody writes", []string{"check", fifo}, syscall.SIGINT, []string{"stopped while reading"}},
		{"quiz --print", []string{"quiz", "--print", "--seed", "1", quiz}, syscall.SIGINT, []string{"STOPPED EARLY"}},
		{"lab, one source of 100G requests", []string{"lab", "--sources", "1", "--requests", "100G"}, syscall.SIGINT, []string{"STOPPED EARLY"}},
		{"lab", []string{"lab", "--requests", "400M"}, syscall.SIGTERM, []string{"STOPPED EARLY"}},
		{"replay, a fifo nobody writes", []string{"replay", fifo}, syscall.SIGINT, []string{"stopped while waiting for the log's next line", "stopped by SIGINT"}},
		{"replay, a sweep", []string{"replay", accessLog, "--limits", "1,2,3,4,5,6,7,8,9,10,11,12", "--windows", "1s,1m"},
			syscall.SIGINT, []string{"STOPPED EARLY", "stopped by SIGINT"}},
		{"serve", []string{"serve", "--addr", "127.0.0.1:0", "--host-key", filepath.Join(t.TempDir(), "host_ed25519"), "--seed", "3"},
			syscall.SIGTERM, []string{"students: ssh -p ", " localhost", "--seed 3", "stopped by SIGTERM"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := start(t, c.args...)
			p.busyWatching(t)
			if err := p.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			code := p.wait(t)
			out := p.stdout.String() + p.stderr.String()
			if code != 128+int(c.sig) {
				t.Errorf("exit %d, want %d:\n%s", code, 128+int(c.sig), out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// tmux runs a tmux command on the test's own server and returns its output.
func tmux(t *testing.T, socket string, args ...string) string {
	t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A signal to the interactive view (a closed terminal, a kill, ctrl+c from
// outside) ends it with the terminal put back: no alternate screen, no
// mouse reporting, and the signal's exit status.
func TestSignalRestoresTheTerminal(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux (.ci/run installs it)")
	}
	for _, c := range []struct {
		sig   syscall.Signal
		twice bool // a second signal exits at once, the terminal put back all the same
	}{{syscall.SIGHUP, false}, {syscall.SIGTERM, false}, {syscall.SIGINT, false}, {syscall.SIGINT, true}, {syscall.SIGTERM, true}} {
		sig := c.sig
		name := sig.String()
		if c.twice {
			name += " twice"
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			socket := fmt.Sprintf("windowlab-test-%d-%d-%t", os.Getpid(), int(sig), c.twice) // a server of its own
			pidFile, statusFile := filepath.Join(dir, "pid"), filepath.Join(dir, "status")
			// The inner shell records its pid and becomes windowlab; the outer
			// one records how it ended.
			errFile := filepath.Join(dir, "stderr")
			inner := "echo $$ > " + pidFile + "; exec env " + beMain + "=1 " + os.Args[0] + " -test.run=^$ -- tui 2> " + errFile
			outer := "sh -c '" + inner + "'; echo $? > " + statusFile + "; sleep 60"
			tmux(t, socket, "new-session", "-d", "-x", "100", "-y", "30", outer)
			t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
			deadline := time.Now().Add(patience)
			for tmux(t, socket, "display", "-p", "#{alternate_on}") != "1" {
				if time.Now().After(deadline) {
					t.Fatalf("the view never opened:\n%s", tmux(t, socket, "capture-pane", "-p"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			pid, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			n, err := strconv.Atoi(strings.TrimSpace(string(pid)))
			if err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(n, sig); err != nil {
				t.Fatal(err)
			}
			if c.twice {
				_ = syscall.Kill(n, sig) // it may have gone already
			}
			for {
				status, err := os.ReadFile(statusFile)
				if err == nil && len(status) > 0 {
					if got := strings.TrimSpace(string(status)); got != fmt.Sprint(128+int(sig)) {
						t.Errorf("exit status %s, want %d", got, 128+int(sig))
					}
					break
				}
				if time.Now().After(deadline) {
					_ = syscall.Kill(n, syscall.SIGQUIT) // for its goroutines, in its standard error
					time.Sleep(time.Second)
					stderr, _ := os.ReadFile(errFile)
					t.Fatalf("still running %v after %v:\n%s\nstandard error:\n%s", patience, sig, tmux(t, socket, "capture-pane", "-p"), stderr)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if got := tmux(t, socket, "display", "-p", "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag}"); got != "0 0 0" {
				t.Errorf("after %v: alternate screen, mouse any, mouse button = %s; want all off", sig, got)
			}
		})
	}
}

// A full disk is an error of its own: exit 3 and one line saying so, for
// every command, and never "Try --help".
func TestOutputThatCannotBeWritten(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	for _, args := range [][]string{{"list"}, {"memory"}, {"run", "boundary-burst"}, {"run", "boundary-burst", "--json"},
		{"check", filepath.Join("..", "..", "scenarios", "builtin", "boundary-burst.yaml")}, {"quiz", "--print", "--seed", "1"},
		{"lab", "--requests", "10k", "--sources", "10"}, {"record", "boundary-burst", "-o", "-", "--until", "12:01:01"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			p := &process{}
			p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
			p.cmd.Env = append(os.Environ(), beMain+"=1")
			p.cmd.Stdout, p.cmd.Stderr = full, &p.stderr
			if err := p.cmd.Run(); err == nil {
				t.Fatal("exit 0 after writing nothing")
			}
			if code := p.cmd.ProcessState.ExitCode(); code != 3 {
				t.Errorf("exit %d, want 3", code)
			}
			msg := p.stderr.String()
			if !strings.Contains(msg, "windowlab: could not write the output:") || !strings.Contains(msg, "no space left on device") || strings.Contains(msg, "--help") {
				t.Errorf("standard error:\n%s", msg)
			}
		})
	}
}

// The memory budget's reproducers, run as a user runs them: a burst of
// fifty million requests at one instant through a sliding log with a limit
// of a billion a week (killed at 4 GB before runs were stored) replays and
// reports exactly; a file that cannot fit, and a lab that cannot, are
// refused up front with the figure and the budget, exit 2, before any
// request is decided.
func TestMemoryAtTheLimits(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	write := func(name, text string) string { return writeFile(t, name, []byte(text)) }
	count := long.N(5_000_000, 50_000_000)
	burst := write("burst.yaml", fmt.Sprintf("limit: 1000000000\nwindow: 168h\nalgorithms: [sliding-log, fixed-window]\ntraffic:\n  - {at: \"12:00:00\", count: %d}\n", count))
	p := start(t, "run", burst)
	if code := p.wait(t); code != 0 {
		t.Fatalf("the burst: exit %d\n%s", code, p.stderr.String())
	}
	for _, want := range []string{
		"sliding-log: at most " + human.Int(int64(count)) + " allowed to one client in any 168h",
		"fixed-window: at most " + human.Int(int64(count)) + " allowed to one client in any 168h",
	} {
		if !strings.Contains(p.stdout.String(), want) {
			t.Errorf("the burst's report does not say %q:\n%s", want, p.stdout.String())
		}
	}

	big := write("big.yaml", "limit: 1000000000\nwindow: 168h\ntraffic:\n  - {from: \"00:00:00\", to: \"23:59:59\", rate: 578/s, clients: 1000000, seed: 1}\n")
	for _, args := range [][]string{
		{"run", big},
		{"lab", "--sources", "1", "--requests", "100G", "--limit", "1000000000", "--window", "168h", "--median", "100"},
	} {
		p := start(t, args...)
		if code := p.wait(t); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, p.stderr.String())
		}
		msg := p.stderr.String()
		if !strings.Contains(msg, "memory budget of 1,024 MiB") || !strings.Contains(msg, "shorter") || p.stdout.Len() > 0 {
			t.Errorf("%v: standard error says\n%s\nand standard output\n%s", args, msg, p.stdout.String())
		}
	}
}

// ctrl+c in the view is the key a shell's SIGINT comes from: it quits with
// 130, as ctrl+c stops every other command, where q quits with 0 (it
// exited 0, against the table in docs/exit-status.md). Typed into a real terminal.
func TestCtrlCInTheView(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux (.ci/run installs it)")
	}
	for _, c := range []struct {
		args []string
		key  string
		want int
	}{
		{[]string{"tui"}, "C-c", 130},
		{[]string{"tui"}, "q", 0},
		{[]string{"lesson"}, "C-c", 130},
		{[]string{"quiz", "--seed", "1"}, "C-c", 130},
	} {
		t.Run(strings.Join(c.args, " ")+" "+c.key, func(t *testing.T) {
			dir := t.TempDir()
			socket := fmt.Sprintf("windowlab-test-%d-%s-%s", os.Getpid(), c.args[0], c.key) // a server of its own
			statusFile, errFile := filepath.Join(dir, "status"), filepath.Join(dir, "stderr")
			inner := "exec env " + beMain + "=1 " + os.Args[0] + " -test.run=^$ -- " + strings.Join(c.args, " ") + " 2> " + errFile
			outer := "sh -c '" + inner + "'; echo $? > " + statusFile + "; sleep 60"
			tmux(t, socket, "new-session", "-d", "-x", "100", "-y", "30", outer)
			t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
			deadline := time.Now().Add(patience)
			for tmux(t, socket, "display", "-p", "#{alternate_on}") != "1" {
				if time.Now().After(deadline) {
					t.Fatalf("the view never opened:\n%s", tmux(t, socket, "capture-pane", "-p"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			busy() // the view reads keys once it has drawn
			tmux(t, socket, "send-keys", c.key)
			for {
				status, err := os.ReadFile(statusFile)
				if err == nil && len(status) > 0 {
					if got := strings.TrimSpace(string(status)); got != fmt.Sprint(c.want) {
						stderr, _ := os.ReadFile(errFile)
						t.Errorf("exit status %s, want %d\nstandard error:\n%s", got, c.want, stderr)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still running %v after %s:\n%s", patience, c.key, tmux(t, socket, "capture-pane", "-p"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			if got := tmux(t, socket, "display", "-p", "#{alternate_on} #{mouse_any_flag} #{mouse_button_flag}"); got != "0 0 0" {
				t.Errorf("after %s: alternate screen, mouse any, mouse button = %s; want all off", c.key, got)
			}
		})
	}
}
