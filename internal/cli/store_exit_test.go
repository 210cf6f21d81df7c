package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
)

// longOnRedis is a scenario that takes a minute or more on Redis and
// writes thousands of keys in its first second.
const longOnRedis = "limit: 10\nwindow: 1m\ntraffic:\n  - {from: \"12:00:00\", to: \"14:00:00\", rate: 500/s, clients: 3000, seed: 1}\n"

// redisDo runs one command on url with a connection of its own.
func redisDo(t *testing.T, url string, args ...any) {
	t.Helper()
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	if err := c.Do(context.Background(), args...).Err(); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// waitForKeys waits until the run on url has written at least n keys, or
// failed the test if done (the run's end) comes first.
func waitForKeys(t *testing.T, url string, n int64, done func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for dbsize(t, url) < n {
		if done() || time.Now().After(deadline) {
			t.Fatalf("the run wrote fewer than %d keys before it ended", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// left matches what windowlab says it left on Redis: how many keys and
// the pattern they are under (the count is missing when Redis could not
// even tell it in time).
var left = regexp.MustCompile(`(?:(\d+) keys? of this run (?:are|is) left|this run's keys could not be removed).*; remove them with\n  (redis-cli .* --pattern '(windowlab:\{[0-9a-f]+\}:\*)' .*)\n`)

// A second signal to `run --store` exits at once but for a last cleanup
// of Redis, bounded: every key of the run removed, or, when Redis does
// not answer in time (its writes paused), the exact count of what is left
// and a command that removes it, which does. Before, a double ctrl+c left
// 5,004 keys (6,000 with no TTL) and said nothing.
func TestSecondSignalOnRedis(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	scenario := writeFile(t, "long.yaml", []byte(longOnRedis))
	noExpiry := writeFile(t, "no-expiry.yaml", []byte(strings.Replace(longOnRedis, "window: 1m\n", "window: 1m\nexpiry: false\n", 1)))
	cases := []struct {
		name   string
		file   string
		sig    syscall.Signal
		paused bool // Redis takes no writes from before the first signal on
	}{
		{"SIGINT twice", scenario, syscall.SIGINT, false},
		{"SIGTERM twice, no TTLs", noExpiry, syscall.SIGTERM, false},
		{"SIGHUP twice", scenario, syscall.SIGHUP, false},
		{"SIGINT twice to a Redis that takes no writes", noExpiry, syscall.SIGINT, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			p := start(t, "run", c.file, "--store", srv.URL)
			waitForKeys(t, srv.URL, 5000, func() bool { return p.cmd.ProcessState != nil })
			if c.paused {
				redisDo(t, srv.URL, "CLIENT", "PAUSE", "600000", "WRITE")
			}
			if err := p.cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			// Soon, while the first one's cleanup runs, but not so soon that the
			// kernel merges the two: windowlab would see one, and stop as at one.
			time.Sleep(50 * time.Millisecond)
			_ = p.cmd.Process.Signal(c.sig)
			code := p.wait(t)
			if c.paused {
				redisDo(t, srv.URL, "CLIENT", "UNPAUSE")
			}
			errOut := p.stderr.String()
			if code != 128+int(c.sig) {
				t.Errorf("exit %d, want %d: %s", code, 128+int(c.sig), errOut)
			}
			run, db := runKeys(t, srv.URL)
			m := left.FindStringSubmatch(errOut)
			if c.paused && m == nil {
				t.Fatalf("Redis paused: windowlab should say what it left and how to remove it:\n%s", errOut)
			}
			if m == nil {
				if run != 0 || db != 0 {
					t.Errorf("%d keys of the run left (DBSIZE %d), and nothing said:\n%s", run, db, errOut)
				}
				return
			}
			under, _ := keysOf(t, srv.URL, m[3])
			if under != run || under != db || under == 0 {
				t.Errorf("%d keys under the pattern it printed; %d under windowlab:*, DBSIZE %d:\n%s", under, run, db, errOut)
			}
			if said, err := strconv.ParseInt(m[1], 10, 64); m[1] != "" && (err != nil || said != db) {
				t.Errorf("said %s keys left; DBSIZE %d:\n%s", m[1], db, errOut)
			}
			if _, err := exec.LookPath("redis-cli"); err != nil {
				t.Skip("no redis-cli to try the command with")
			}
			if out, err := exec.Command("sh", "-c", m[2]).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", m[2], err, out)
			}
			if run, db := runKeys(t, srv.URL); run != 0 || db != 0 {
				t.Errorf("the command it printed left %d keys (DBSIZE %d): %s", run, db, m[2])
			}
		})
	}
}

// `tui --store` leaves no key on Redis however it is left while a seek
// (G) replays in the background: q, ctrl+c, esc and then q, SIGINT,
// SIGTERM, SIGHUP; with TTLs and without. Before, q left 180 to 520 keys
// in 5 of 5 tries, 649 with no TTL when expiry was off.
func TestViewOnRedisLeavesNoKeysAtEveryWayOut(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("needs tmux (.ci/run installs it)")
	}
	noExpiry := writeFile(t, "no-expiry.yaml", []byte("title: random traffic, no TTLs\nlimit: 10\nwindow: 1m\nexpiry: false\n"+
		"traffic:\n  - {from: \"12:00:00\", to: \"12:05:00\", rate: 100/s, clients: 500, seed: 7}\n"))
	cases := []struct {
		name, scenario string
		keys           []string // tmux's names
		sig            syscall.Signal
	}{
		{"q", "random-traffic", []string{"q"}, 0},
		{"q, no TTLs", noExpiry, []string{"q"}, 0},
		{"ctrl+c", "random-traffic", []string{"C-c"}, 0},
		{"esc, then q", "random-traffic", []string{"Escape", "q"}, 0},
		{"SIGINT", "random-traffic", nil, syscall.SIGINT},
		{"SIGTERM", noExpiry, nil, syscall.SIGTERM},
		{"SIGHUP", "random-traffic", nil, syscall.SIGHUP},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := redistest.Start(t)
			dir := t.TempDir()
			socket := fmt.Sprintf("windowlab-test-%d-keys-%d", os.Getpid(), i) // a server of its own
			pidFile, statusFile, errFile := filepath.Join(dir, "pid"), filepath.Join(dir, "status"), filepath.Join(dir, "stderr")
			inner := "echo $$ > " + pidFile + "; exec env " + beMain + "=1 " + os.Args[0] + " -test.run=^$ -- tui " + c.scenario + " --store " + srv.URL + " 2> " + errFile
			outer := "sh -c '" + inner + "'; echo $? > " + statusFile + "; sleep 60"
			tmux(t, socket, "new-session", "-d", "-x", "120", "-y", "40", outer)
			t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
			screen := func(want ...string) bool {
				deadline := time.Now().Add(patience)
				for {
					text := tmux(t, socket, "capture-pane", "-p")
					for _, w := range want {
						if strings.Contains(text, w) {
							return true
						}
					}
					if _, err := os.Stat(statusFile); err == nil || time.Now().After(deadline) {
						return false
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			for deadline := time.Now().Add(patience); tmux(t, socket, "display", "-p", "#{alternate_on}") != "1"; {
				if time.Now().After(deadline) {
					t.Fatalf("the view never opened:\n%s", tmux(t, socket, "capture-pane", "-p"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			tmux(t, socket, "send-keys", "G")
			if !screen("replaying…") {
				t.Fatalf("G should replay in the background:\n%s", tmux(t, socket, "capture-pane", "-p"))
			}
			for j, k := range c.keys {
				tmux(t, socket, "send-keys", k)
				if k == "Escape" && j+1 < len(c.keys) {
					screen("stopping…", "stopped replaying") // an esc on its own, not alt+q
				}
			}
			if c.sig != 0 {
				pid, err := os.ReadFile(pidFile)
				if err != nil {
					t.Fatal(err)
				}
				n, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
				if err := syscall.Kill(n, c.sig); err != nil {
					t.Fatal(err)
				}
			}
			deadline := time.Now().Add(patience)
			for {
				status, err := os.ReadFile(statusFile)
				if err == nil && len(status) > 0 {
					if got, want := strings.TrimSpace(string(status)), fmt.Sprint(128+int(c.sig)); c.sig != 0 && got != want {
						t.Errorf("exit status %s, want %s", got, want)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("still running %v after %v %v:\n%s", patience, c.keys, c.sig, tmux(t, socket, "capture-pane", "-p"))
				}
				time.Sleep(50 * time.Millisecond)
			}
			stderr, _ := os.ReadFile(errFile)
			if run, db := runKeys(t, srv.URL); run != 0 || db != 0 {
				t.Errorf("%d keys of the run left (DBSIZE %d); standard error:\n%s", run, db, stderr)
			}
		})
	}
}

// A run that Redis stops mid-way (out of memory: it refuses every write)
// is exit 2 and still removes its keys once Redis takes deletions.
func TestRunStoppedByRedisLeavesNoKeys(t *testing.T) {
	srv := redistest.Start(t)
	scenario := writeFile(t, "long.yaml", []byte(longOnRedis))
	opt, _ := redis.ParseURL(srv.URL)
	c := redis.NewClient(opt)
	defer c.Close()
	refused := make(chan error, 1)
	go func() { // no t here: a goroutine of its own
		ctx := context.Background()
		for n, err := c.DBSize(ctx).Result(); n < 5000; n, err = c.DBSize(ctx).Result() {
			if err != nil {
				refused <- err
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		refused <- c.ConfigSet(ctx, "maxmemory", "1").Err()
	}()
	_, errOut, code := windowlab(t, "run", scenario, "--store", srv.URL)
	if err := <-refused; err != nil {
		t.Fatal(err)
	}
	setMaxMemory(t, srv.URL, "0")
	if code != exitInvalid || !strings.Contains(errOut, "OOM") {
		t.Errorf("exit %d, want 2 and Redis's refusal: %s", code, errOut)
	}
	if run, db := runKeys(t, srv.URL); run != 0 || db != 0 {
		t.Errorf("%d keys of the run left (DBSIZE %d): %s", run, db, errOut)
	}
}
