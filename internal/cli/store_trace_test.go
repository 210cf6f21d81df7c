package cli

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
)

// policyTrace is a scenario of about 30,000 requests over two limiters:
// seconds of decisions one by one on Redis, under a policy, so a Redis
// killed as soon as it holds a key is killed mid-run.
const policyTrace = "limit: 10\nwindow: 1s\nalgorithms: [fixed-window, sliding-log]\ntraffic:\n  - {from: \"12:00:00\", to: \"12:05:00\", rate: 100/s, clients: 20, seed: 1}\n"

// runKilledMidway runs windowlab with args on a Redis of its own (--store
// and --on-store-error allow added), kills the Redis by its PID once the
// run has written to it, and returns the run's output and how many
// decisions its summary says were made without Redis.
func runKilledMidway(t *testing.T, args ...string) (out string, without int64) {
	t.Helper()
	srv := redistest.Start(t)
	type result struct {
		out, errOut string
		code        int
	}
	done := make(chan result, 1)
	go func() {
		out, errOut, code := windowlab(t, append(args, "--store", srv.URL, "--on-store-error", "allow")...)
		done <- result{out, errOut, code}
	}()
	for keysOfARun(srv.Addr) <= 0 { // the run has begun deciding on it (not only probing it)
		select {
		case r := <-done:
			t.Fatalf("the run ended before Redis could be killed: exit %d: %s", r.code, r.errOut)
		default:
		}
	}
	srv.Stop()
	r := <-done
	if r.code != 0 {
		t.Fatalf("%v: exit %d: %s", args, r.code, r.errOut)
	}
	m := regexp.MustCompile(`Decided without Redis \(--on-store-error allow\): ([\d,]+) requests?, admitted\.`).FindStringSubmatch(r.errOut)
	if m == nil {
		t.Fatalf("no line of decisions made without Redis:\n%s", r.errOut)
	}
	without, _ = strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	if without == 0 {
		t.Fatalf("Redis killed mid-run, and no decision made without it:\n%s", r.errOut)
	}
	return r.out, without
}

// keysOfARun is how many keys of a run (under windowlab:{ID}:, not the
// probe Open writes) the Redis at addr holds; -1: it does not answer.
func keysOfARun(addr string) int {
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, ReadTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	keys, err := c.Keys(ctx, "windowlab:{*").Result()
	if err != nil {
		return -1
	}
	return len(keys)
}

// traceBlocks splits a trace into its requests' blocks: a request's line,
// then its decisions' (each with its code's lines, under --code).
func traceBlocks(out string) [][]string {
	var blocks [][]string
	for line := range strings.Lines(out) {
		switch {
		case line == "\n" && len(blocks) > 0:
			return blocks // the summary follows
		case strings.HasPrefix(line, "#"):
			blocks = append(blocks, []string{line})
		case len(blocks) > 0 && strings.HasPrefix(line, "    "):
			blocks[len(blocks)-1] = append(blocks[len(blocks)-1], line)
		}
	}
	return blocks
}

// A decision made without the store has its own words in the trace
// (and no code under --code: none ran): Redis killed mid-run, the trace
// is the in-process one, request for request, until the first such
// decision, and from there on (Redis never answers again) every decision
// is the policy's, as many as the summary counts.
func TestTraceSaysWhatWasDecidedWithoutTheStore(t *testing.T) {
	file := writeFile(t, "policy.yaml", []byte(policyTrace))
	const words = "◌ allow: decided without the store (--on-store-error allow): Redis did not answer"
	for _, extra := range [][]string{{"--trace"}, {"--trace", "--code"}} {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			want, errOut, code := windowlab(t, append([]string{"run", file}, extra...)...)
			if code != 0 {
				t.Fatalf("in process: exit %d: %s", code, errOut)
			}
			got, without := runKilledMidway(t, append([]string{"run", file}, extra...)...)
			gb, wb := traceBlocks(got), traceBlocks(want)
			if len(gb) != len(wb) || len(wb) < 20_000 {
				t.Fatalf("%d requests traced on Redis, %d in process: want the same, thousands", len(gb), len(wb))
			}
			var seen int64
			for i := range gb {
				g, w := gb[i], wb[i]
				if g[0] != w[0] {
					t.Fatalf("request %d: %q, in process %q", i+1, g[0], w[0])
				}
				// The decisions: by limiter name, each with its lines.
				gd, wd := decisionsOf(g[1:]), decisionsOf(w[1:])
				if len(gd) != 2 || len(wd) != 2 {
					t.Fatalf("request %d: %d and %d decisions, want 2", i+1, len(gd), len(wd))
				}
				for k := range gd {
					if strings.Contains(gd[k][0], "◌") {
						seen++
						if len(gd[k]) != 1 || !strings.HasSuffix(strings.TrimRight(gd[k][0], "\n"), "  "+words) {
							t.Fatalf("request %d: a decision without the store reads %q", i+1, gd[k])
						}
						continue
					}
					if seen > 0 {
						t.Fatalf("request %d: Redis was killed, yet it decided after a decision without it: %q", i+1, gd[k])
					}
					if strings.Join(gd[k], "") != strings.Join(wd[k], "") {
						t.Fatalf("request %d: on Redis %q, in process %q", i+1, gd[k], wd[k])
					}
				}
			}
			if seen != without {
				t.Errorf("%d decisions traced as made without the store; the summary says %d", seen, without)
			}
		})
	}
}

// decisionsOf splits a request's lines (its request line cut) into its
// decisions: each a line at four spaces, then its code's at eight.
func decisionsOf(lines []string) [][]string {
	var ds [][]string
	for _, l := range lines {
		if strings.HasPrefix(l, "        ") && len(ds) > 0 {
			ds[len(ds)-1] = append(ds[len(ds)-1], l)
			continue
		}
		ds = append(ds, []string{l})
	}
	return ds
}

// run --json marks each decision made without the store
// (without_store), as many as decided_without_store counts, every one
// admitted under allow; a decision Redis made has no such field.
func TestJSONMarksWhatWasDecidedWithoutTheStore(t *testing.T) {
	file := writeFile(t, "policy.yaml", []byte(policyTrace))
	out, without := runKilledMidway(t, "run", file, "--json")
	var doc struct {
		Requests []struct {
			Decisions map[string]map[string]any `json:"decisions"`
		} `json:"requests"`
		Algorithms []struct {
			Without *int64 `json:"decided_without_store"`
		} `json:"algorithms"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var marked, counted int64
	for _, q := range doc.Requests {
		for name, d := range q.Decisions {
			v, ok := d["without_store"]
			if !ok {
				continue
			}
			marked++
			if v != true || d["allowed"] != true {
				t.Errorf("%s: without_store %v, allowed %v; want true, true under allow", name, v, d["allowed"])
			}
		}
	}
	for _, a := range doc.Algorithms {
		if a.Without != nil {
			counted += *a.Without
		}
	}
	if marked != counted || marked != without || marked == 0 {
		t.Errorf("%d decisions marked without_store; decided_without_store sums to %d, the summary says %d", marked, counted, without)
	}
}
