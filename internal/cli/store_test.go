package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
)

func dbsize(t *testing.T, url string) int64 {
	t.Helper()
	opt, _ := redis.ParseURL(url)
	c := redis.NewClient(opt)
	defer c.Close()
	n, err := c.DBSize(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// The issue's done-means: `windowlab run boundary-burst --store
// redis://…` prints the same report as without --store, byte for byte
// (text and JSON), says on stderr where it was decided and what Redis
// held, and leaves nothing behind.
func TestRunOnRedisPrintsTheSameReport(t *testing.T) {
	srv := redistest.Start(t)
	for _, args := range [][]string{{"run", "boundary-burst"}, {"run", "worked-example", "--json"}, {"run", "many-servers"}, {"run", "token-bucket", "--trace"}} {
		want, _, code := windowlab(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d", args, code)
		}
		got, errOut, code := windowlab(t, append(args, "--store", srv.URL)...)
		if code != 0 {
			t.Fatalf("%v --store: exit %d: %s", args, code, errOut)
		}
		if got != want {
			t.Errorf("%v: the report on Redis differs:\n%s\nwithout --store:\n%s", args, got, want)
		}
		if !strings.Contains(errOut, "every decision the same as in process") || !strings.Contains(errOut, "MEMORY USAGE") {
			t.Errorf("%v: stderr says nothing of Redis: %q", args, errOut)
		}
		if n := dbsize(t, srv.URL); n != 0 {
			t.Errorf("%v: %d keys left in Redis after the run", args, n)
		}
	}
	_, errOut, _ := windowlab(t, "run", "boundary-burst", "--store", srv.URL)
	if !strings.Contains(errOut, "held 3 keys with TTLs") {
		t.Errorf("the boundary burst should leave 3 keys with TTLs at its end (a counter, a log, a counter): %q", errOut)
	}
}

// Without TTLs (the forgotten-TTL scenario) the window counters pile up:
// more keys than clients at the end.
func TestForgottenTTLPilesUpKeysOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	t.Setenv("REDIS_URL", srv.URL) // --store redis reads it
	_, errOut, code := windowlab(t, "run", "forgotten-ttl", "--store", "redis")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "63 keys with no TTL: they pile up") {
		t.Errorf("forgotten-ttl should pile up 63 keys (three clients, a counter a window for two limiters, three logs): %q", errOut)
	}
}

// A Redis that is not there, or not writable, is one line and exit 2,
// with any password hidden; never a hang.
func TestUnusableRedis(t *testing.T) {
	primary := redistest.Start(t)
	replica := redistest.Start(t, "--replicaof", strings.Replace(strings.TrimPrefix(primary.Addr, ""), ":", " ", 1))
	locked := redistest.Start(t, "--requirepass", "opensesame")
	lockedAt := strings.TrimPrefix(locked.URL, "redis://")
	cases := []struct{ url, want string }{
		{"redis://:hunter2@127.0.0.1:1/0", "cannot connect"},
		{locked.URL, "it needs a password"},
		{"redis://:hunter2@" + lockedAt, "refused the user name and password"},
		{strings.TrimSuffix(primary.URL, "/0") + "/99", "no such database"},
		{strings.TrimSuffix(primary.URL, "/0") + "/-1", "numbered from 0"},
		{"http://127.0.0.1:6379", "not a Redis URL"},
		{"redis://127.0.0.1:99999", "redis://"},
		{replica.URL, "read-only replica"},
	}
	for _, c := range cases {
		out, errOut, code := windowlab(t, "run", "boundary-burst", "--store", c.url)
		if code != exitInvalid || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want 2 and nothing", c.url, code, out)
		}
		if !strings.Contains(errOut, c.want) || strings.Contains(errOut, "hunter2") {
			t.Errorf("%s: stderr %q should say %q and hide the password", c.url, errOut, c.want)
		}
		if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 4 { // fang's ERROR box is three lines around it
			t.Errorf("%s: %d lines on stderr, want one message: %q", c.url, lines, errOut)
		}
	}
}

// `windowlab memory --store` writes a sample of the worst case with the
// real scripts and prints its MEMORY USAGE beside the model: less than
// the model (which has Redis's tables in it) but more than half of it;
// a log too big to write is said so, and nothing is left behind.
func TestMemoryMeasuredOnRedis(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	srv := redistest.Start(t)
	out, errOut, code := windowlab(t, "memory", "--limit", "100", "--window", "1m", "--clients", "1000", "--store", srv.URL, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Algorithms []struct {
			Name    string `json:"name"`
			Redis   int64  `json:"redis_bytes"`
			Clients int64  `json:"measured_clients"`
			Keys    int64  `json:"measured_keys"`
			Scaled  int64  `json:"measured_memory_usage_scaled"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string]int64{"fixed-window": 1000, "sliding-log": 500, "sliding-counter": 2000, "token-bucket": 1000, "segmented-window": 1000}
	for _, a := range doc.Algorithms {
		model, got := a.Redis, a.Scaled
		if a.Keys != wantKeys[a.Name] {
			t.Errorf("%s: %d keys measured, want %d", a.Name, a.Keys, wantKeys[a.Name])
		}
		if got <= model/2 || got >= model {
			t.Errorf("%s: MEMORY USAGE %d B against the model's %d B: want between half of it and it", a.Name, got, model)
		}
	}
	if n := dbsize(t, srv.URL); n != 0 {
		t.Errorf("%d keys left behind", n)
	}
	out, _, code = windowlab(t, "memory", "--limit", "1000000", "--window", "1m", "--clients", "10", "--store", srv.URL)
	if code != 0 || !strings.Contains(out, "sliding-log: not measured: one client at its limit is 1,000,000 timestamps") {
		t.Errorf("a log too big to write: exit %d\n%s", code, out)
	}
}

// A Redis that goes away in the middle of a run stops it with one line
// and exit 2, and nothing of the report is printed: no byte of it was
// confirmed by Redis.
func TestRedisGoneMidRun(t *testing.T) {
	srv := redistest.Start(t)
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := windowlab(t, "run", "sliding-log-memory", "--store", srv.URL)
		done <- result{out, errOut, code}
	}()
	for dbsize(t, srv.URL) == 0 { // the run has begun writing
		select {
		case r := <-done:
			t.Fatalf("the run ended before Redis could be stopped: exit %d: %s", r.code, r.errOut)
		default:
		}
	}
	srv.Stop()
	r := <-done
	// Killed mid-batch it resets the connection; between batches the next
	// dial is refused.
	why := strings.Contains(r.errOut, "closed the connection") || strings.Contains(r.errOut, "cannot connect")
	if r.code != exitInvalid || r.out != "" || !why {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, and why", r.code, r.out, r.errOut)
	}
}

// `replay --store` prints the same report and the same sweep as without
// it (the golden files of TestReplayReports), decided on Redis, and leaves
// nothing behind.
func TestReplayOnRedis(t *testing.T) {
	srv := redistest.Start(t)
	log := filepath.Join("testdata", "replay", "combined.log")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"combined.txt", []string{"--limit", "2", "--window", "10s"}},
		{"combined-sweep.txt", []string{"--limits", "1,2", "--windows", "10s,1h"}},
	} {
		out, errOut, code := windowlab(t, append([]string{"replay", log, "--store", srv.URL}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "replay", c.golden))
		if err != nil {
			t.Fatal(err)
		}
		if out != string(want) {
			t.Errorf("%v on Redis differs from %s:\n%s", c.args, c.golden, out)
		}
		if !strings.Contains(errOut, "every decision the same as in process") {
			t.Errorf("%v: stderr says nothing of Redis: %q", c.args, errOut)
		}
		if n := dbsize(t, srv.URL); n != 0 {
			t.Errorf("%v: %d keys left behind", c.args, n)
		}
	}
}

// A malformed --store URL (or $REDIS_URL) is refused with what is wrong
// and exit 2, from every command that takes one, and never with its
// password: url.Parse and go-redis quote the whole URL in their errors.
func TestMalformedRedisURLHidesThePassword(t *testing.T) {
	log := filepath.Join("testdata", "replay", "combined.log")
	commands := [][]string{
		{"run", "boundary-burst"},
		{"replay", log, "--limit", "2", "--window", "10s"},
		{"memory", "--clients", "10"},
		{"tui", "boundary-burst"},
		{"lesson"},
	}
	cases := []struct {
		name, url string
		secret    []string // none of these may be printed
		want      string   // what is wrong, as said
	}{
		{"a space in the password", "redis://u:S3CRET pa ss@127.0.0.1:1/0", []string{"S3CRET", "pa ss"}, "holds a space"},
		{"a bad percent escape", "redis://:p%40S3CRET%zz@127.0.0.1:1", []string{"S3CRET", "%zz", "p@"}, "not followed by two hex digits"},
		{"a percent escape cut short", "redis://:S3CRET%4@127.0.0.1:1", []string{"S3CRET"}, "not followed by two hex digits"},
		{"a missing host", "redis://:S3CRET@:1/0", []string{"S3CRET"}, "cannot connect"},
		{"a port that is not a number", "redis://:S3CRET@127.0.0.1:abc/0", []string{"S3CRET"}, `invalid port ":abc"`},
		{"a port out of range", "redis://:S3CRET@127.0.0.1:99999", []string{"S3CRET"}, "invalid port"},
		{"an unclosed IPv6 host", "redis://:S3CRET@[::1:1", []string{"S3CRET"}, "missing ']' in host"},
		{"an unknown scheme", "http://:S3CRET@127.0.0.1:1", []string{"S3CRET"}, "not a Redis URL"},
		{"one slash after the scheme", "redis:/:S3CRET@127.0.0.1:1", []string{"S3CRET"}, "not a Redis URL"},
		{"no scheme", ":S3CRET@127.0.0.1:1", []string{"S3CRET"}, "not a Redis URL"},
		{"a control character in the password", "redis://:S3CRET\x01x@127.0.0.1:1", []string{"S3CRET"}, "control character"},
		{"a newline in the password", "redis://:S3CRET\nx@127.0.0.1:1", []string{"S3CRET"}, "control character"},
		{"a control character in the host", "redis://:S3CRET@127.0.0.1\x7f:1", []string{"S3CRET"}, "control character"},
		{"an @ in the password", "redis://:S3CRET@x@127.0.0.1:1", []string{"S3CRET"}, "cannot connect"},
		{"a : in the password", "redis://u:S3CRET:x@127.0.0.1:1", []string{"S3CRET"}, "cannot connect"},
		{"an escaped @ in the password", "redis://:S3CRET%40x@127.0.0.1:1", []string{"S3CRET"}, "cannot connect"},
		{"a / in the password", "redis://:S3/CRET@127.0.0.1:1", []string{"S3/", "/CRET", "CRET"}, "ends it early"},
		{"a # in the password", "redis://:S3CR#ET@127.0.0.1:1", []string{"S3CR", "#ET"}, "ends it early"},
		{"a ? in the password", "redis://:S3CR?ET@127.0.0.1:1", []string{"S3CR", "?ET"}, "ends it early"},
		{"a quote in the password", `redis://:S3CR"ET@127.0.0.1:1`, []string{"S3CR"}, "cannot hold there"},
		{"a letter beyond ASCII in the password", "redis://:S3CRETé@127.0.0.1:1", []string{"S3CRET"}, "cannot hold there"},
		{"TLS and a space", "rediss://:S3CRET x@127.0.0.1:1", []string{"S3CRET"}, "holds a space"},
		{"a database that is not a number", "redis://:S3CRET@127.0.0.1:1/abc", []string{"S3CRET"}, `invalid database number: "abc"`},
		{"two databases", "redis://:S3CRET@127.0.0.1:1/0/1", []string{"S3CRET"}, "invalid URL path"},
		{"an unknown option", "redis://:S3CRET@127.0.0.1:1/0?foo=bar", []string{"S3CRET"}, "unexpected option: foo"},
		{"a bad option value", "redis://:S3CRET@127.0.0.1:1/0?dial_timeout=x", []string{"S3CRET"}, "invalid dial_timeout"},
		{"an option value with an @", "redis://:S3CRET@127.0.0.1:1/0?client_name=a@b", []string{"S3CRET"}, "%40"},
		{"a bidi control in the host", "redis://:S3CRET@127.0.0.1%e2%80%ae:1", []string{"S3CRET", "\u202e"}, "cannot connect"},
		{"invalid UTF-8 in the password", "redis://:S3CRET\xff@127.0.0.1:1", []string{"S3CRET", "\xff"}, "cannot hold there"},
		{"escapes in the user name", "redis://%1b%5d0%3bx%07:S3CRET@127.0.0.1:1", []string{"S3CRET"}, "cannot connect"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, viaEnv := range []bool{false, true} {
				for _, args := range commands {
					if viaEnv {
						t.Setenv("REDIS_URL", c.url)
						args = append(args, "--store", "redis")
					} else {
						args = append(args, "--store", c.url)
					}
					out, errOut, code := windowlab(t, args...)
					if code != exitInvalid {
						t.Errorf("%v (REDIS_URL: %v): exit %d, want 2: %s", args[0], viaEnv, code, errOut)
					}
					for _, s := range c.secret {
						if strings.Contains(out+errOut, s) {
							t.Errorf("%v (REDIS_URL: %v): %q printed:\n%s%s", args[0], viaEnv, s, out, errOut)
						}
					}
					if !strings.Contains(errOut, c.want) {
						t.Errorf("%v (REDIS_URL: %v): stderr should say %q:\n%s", args[0], viaEnv, c.want, errOut)
					}
					if i := strings.IndexFunc(out+errOut, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }); i >= 0 {
						t.Errorf("%v (REDIS_URL: %v): a control character printed: %q", args[0], viaEnv, out+errOut)
					}
				}
			}
		})
	}
}
