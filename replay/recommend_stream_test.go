package replay

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"windowlab/accesslog"
	"windowlab/algo"
)

// randomLines are a log's lines of a few clients, some bursting, a little
// out of order (some past --reorder), with a bad line now and then.
func randomLines(rng *rand.Rand) []string {
	var out []string
	at := time.Date(2026, 11, 30, 23, 59, 50, 0, time.UTC)
	clients := 1 + rng.IntN(8)
	for range 50 + rng.IntN(400) {
		if rng.IntN(4) > 0 {
			at = at.Add(time.Duration(rng.IntN(700)) * time.Millisecond)
		}
		line := at.Add(-time.Duration(rng.IntN(2)*rng.IntN(8)) * time.Second)
		if rng.IntN(50) == 0 {
			out = append(out, "not a log line\n")
			continue
		}
		out = append(out, fmt.Sprintf("10.0.%d.%d - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", rng.IntN(2), rng.IntN(clients), line.Format("02/Jan/2006:15:04:05.000 -0700")))
	}
	return out
}

// recommendKept is Recommend on the files read whole and kept.
func recommendKept(t *testing.T, paths []string, opts accesslog.Options, s Setting, share Share) string {
	t.Helper()
	l, err := ReadLogs(context.Background(), paths, nil, opts, nil, Beside{})
	if err != nil {
		t.Fatal(err)
	}
	s = s.Aligned(time.UTC, l.First())
	r, err := Recommend(context.Background(), l, s, share, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	PrintRecommendation(&b, r)
	return b.String()
}

// recommendInPasses is RecommendPasses on the files read again for each
// pass, and how many passes it read them in.
func recommendInPasses(t *testing.T, paths []string, opts accesslog.Options, s Setting, share Share) (string, int) {
	t.Helper()
	first := opts
	tail := accesslog.NewTail()
	first.Tail = tail
	peaks := PeaksWhileReading(tail, s, time.UTC)
	l, err := ReadLogs(context.Background(), paths, nil, first, nil, Beside{})
	if err != nil {
		t.Fatal(err)
	}
	s = s.Aligned(time.UTC, l.First())
	ps := NewPasses(paths, opts, nil, l)
	r, err := RecommendPasses(context.Background(), ps, s, share, <-peaks, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	PrintRecommendation(&b, r)
	return b.String(), ps.n
}

// --recommend reading the files again for each pass recommends, byte for
// byte, what it does keeping the log: random logs, in one file or split in
// two, at random windows, limiters and shares; and its passes are the
// peaks', one a step of the searches going in step, and the candidates'.
func TestRecommendPassesMatchKept(t *testing.T) {
	algos := []algo.Algorithm{}
	for _, name := range []string{"fixed-window", "sliding-log", "sliding-counter", "token-bucket"} {
		algos = append(algos, mustAlgorithm(t, name))
	}
	dir := t.TempDir()
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 35))
		lines := randomLines(rng)
		paths := []string{filepath.Join(dir, fmt.Sprintf("%d.log", seed))}
		parts := []string{strings.Join(lines, "")}
		if seed%3 == 0 { // two rotated files
			cut := rng.IntN(len(lines))
			paths = append(paths, paths[0]+".2")
			parts = []string{strings.Join(lines[:cut], ""), strings.Join(lines[cut:], "")}
		}
		for i, p := range paths {
			if err := os.WriteFile(p, []byte(parts[i]), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		opts := accesslog.Options{Name: LogName(paths), Reorder: 3 * time.Second}
		s := Setting{Config: algo.Config{Limit: 1, Window: time.Duration(1+rng.IntN(30)) * time.Second}}
		for _, a := range algos {
			if rng.IntN(2) == 0 || len(s.Algorithms) == 0 {
				s.Algorithms = append(s.Algorithms, a)
			}
		}
		share := Share{Num: int64(rng.IntN(30)), Den: 100, Text: "some%"}
		want := recommendKept(t, paths, opts, s, share)
		got, passes := recommendInPasses(t, paths, opts, s, share)
		if got != want {
			t.Fatalf("seed %d: in passes\n%s\nkept\n%s", seed, got, want)
		}
		if passes < 3 {
			t.Errorf("seed %d: %d passes; want the peaks', a search's at least, the candidates'", seed, passes)
		}
	}
}

// streamPeaks, which keeps each client's last window, finds FindPeaks's
// peaks, which groups the log kept by client, at random offsets.
func TestStreamPeaksMatchFindPeaks(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 36))
		l := randomLog(t, rng)
		w := time.Duration(1+rng.IntN(5000)) * time.Millisecond
		cfg := algo.Config{Window: w, Offset: time.Duration(rng.IntN(int(w.Milliseconds()))) * time.Millisecond}
		want, got := FindPeaks(l, cfg), streamPeaks(l.Source(), cfg)
		for _, v := range []struct {
			name      string
			want, got []int64
		}{{"sliding", want.Sliding, got.Sliding}, {"aligned", want.Aligned, got.Aligned}, {"total", want.Total, got.Total}} {
			if fmt.Sprint(want.Of(v.want)) != fmt.Sprint(got.Of(v.got)) {
				t.Fatalf("seed %d, %s: %v, want %v", seed, v.name, got.Of(v.got), want.Of(v.want))
			}
		}
	}
}
