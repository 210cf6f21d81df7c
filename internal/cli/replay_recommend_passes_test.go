package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"charm.land/fang/v2"
)

// windowlabIn is windowlab with stdin as its standard input.
func windowlabIn(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := NewRootCommand(&out)
	root.SetIn(strings.NewReader(stdin))
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := fang.Execute(context.Background(), root, fang.WithErrorHandler(printError))
	return out.String(), errOut.String(), ExitCode(err)
}

// --recommend on a file longer than the requests windowlab keeps reads it
// again for each pass, keeping none, and recommends what it does keeping
// the log (at the limit as shipped); standard input, read once, is still
// kept, and refused at the line.
func TestReplayRecommendStreamsPastTheRequestLimit(t *testing.T) {
	base := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range 30_000 {
		fmt.Fprintf(&b, "10.0.%d.%d - - [%s] \"GET /items/%d HTTP/1.1\" 200 512 \"-\" \"test agent\"\n", i%7, i%97, base.Add(time.Duration(i)*50*time.Millisecond).Format("02/Jan/2006:15:04:05 -0700"), i%1000)
	}
	long := writeFile(t, "long.log", []byte(b.String()))
	args := []string{"replay", long, "--recommend", "--window", "10s", "--deny-at-most", "5%"}
	kept, errOut, code := windowlab(t, args...)
	if code != 0 || !strings.Contains(kept, "30,000 requests") {
		t.Fatalf("kept: exit %d\n%s\n%s", code, kept, errOut)
	}
	js, errOut, code := windowlab(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("kept --json: exit %d\n%s", code, errOut)
	}
	withRequestLimit(t, 2_000)
	out, errOut, code := windowlab(t, args...)
	if code != 0 || out != kept {
		t.Fatalf("in passes: exit %d\n%s\nwant\n%s\n%s", code, out, kept, errOut)
	}
	if got, errOut, code := windowlab(t, append(args, "--json")...); code != 0 || got != js {
		t.Fatalf("in passes --json: exit %d\n%s\nwant\n%s\n%s", code, got, js, errOut)
	}
	_, errOut, code = windowlabIn(t, b.String(), "replay", "-", "--recommend")
	if code != 2 || !strings.Contains(errOut, "more than 2,000 requests; windowlab keeps every one") {
		t.Errorf("standard input: exit %d, want refused at the line:\n%s", code, errOut)
	}
}

// --recommend in passes gives, byte for byte, the report it gives keeping
// the log: random logs, a little out of order, some lines bad, in one
// file or two rotated ones, at random windows, zones and shares.
func TestReplayRecommendInPassesAsKept(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		rng := rand.New(rand.NewPCG(seed, 35))
		var lines []string
		at := time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)
		for range 100 + rng.IntN(600) {
			at = at.Add(time.Duration(rng.IntN(900)) * time.Millisecond)
			line := at.Add(-time.Duration(rng.IntN(2)*rng.IntN(8)) * time.Second)
			if rng.IntN(60) == 0 {
				lines = append(lines, "garbage\n")
				continue
			}
			lines = append(lines, fmt.Sprintf("10.0.0.%d - - [%s] \"GET /x HTTP/1.1\" 200 1 \"-\" \"-\"\n", rng.IntN(12), line.Format("02/Jan/2006:15:04:05.000 -0700")))
		}
		cut := rng.IntN(len(lines))
		files := []string{writeFile(t, fmt.Sprintf("r%d.log", seed), []byte(strings.Join(lines, "")))}
		if seed%2 == 0 {
			files = []string{writeFile(t, fmt.Sprintf("r%d.log.1", seed), []byte(strings.Join(lines[:cut], ""))),
				writeFile(t, fmt.Sprintf("r%d.log", seed), []byte(strings.Join(lines[cut:], "")))}
		}
		args := append([]string{"replay"}, files...)
		args = append(args, "--recommend", "--window", fmt.Sprintf("%ds", 1+rng.IntN(20)), "--deny-at-most", fmt.Sprintf("%d%%", rng.IntN(40)),
			"--algorithms", []string{"fixed-window,sliding-log,sliding-counter", "token-bucket,sliding-log", "sliding-counter"}[rng.IntN(3)])
		if seed%3 == 0 {
			args = append(args, "--tz", "Asia/Kolkata")
		}
		if seed%4 == 1 {
			args = append(args, "--json")
		}
		kept, errKept, code := windowlab(t, args...)
		if code != 0 {
			t.Fatalf("seed %d kept: exit %d: %s", seed, code, errKept)
		}
		old := recommendKeepsAtMost
		recommendKeepsAtMost = -1 // every file in passes
		out, errOut, code := windowlab(t, args...)
		recommendKeepsAtMost = old
		if code != 0 || out != kept || errOut != errKept {
			t.Fatalf("seed %d in passes: exit %d\n%s\n%s\nwant\n%s\n%s", seed, code, out, errOut, kept, errKept)
		}
	}
}
