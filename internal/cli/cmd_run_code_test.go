package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"windowlab/scenarios"
)

// run --trace --code is a handout: every decision of the trace followed by
// its limiter's code with the values it held, as a golden file; the
// worked example's 93 on its line.
func TestRunTraceCode(t *testing.T) {
	// The handout whole, as a golden, on a small burst over an edge that
	// every limiter both allows and denies in.
	small := writeFile(t, "small.yaml", []byte("title: two over an edge\nlimit: 2\nwindow: 1m\n"+
		"algorithms: [fixed-window, sliding-log, sliding-counter, token-bucket, sliding-counter/httprate]\n"+
		"traffic:\n  - {at: \"12:00:59\", count: 2}\n  - {at: \"12:01:00\", count: 2}\n  - {at: \"12:01:15\", count: 1}\n"))
	out, errOut, code := windowlab(t, "run", small, "--trace", "--code")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	goldenFile(t, filepath.Join("testdata", "run", "small-code.txt"), out)
	// The lesson's worked example: 93 on its line.
	out, errOut, code = windowlab(t, "run", "worked-example", "--trace", "--code")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	_, last, _ := strings.Cut(out, "#115  12:01:15.000  client-1\n")
	for _, line := range []string{
		"        estimate := previous*weight + current     // 84*0.75 + 30 = 93\n",
		"        if estimate < limit {                     // 93 < 100\n",
		"            return allow                          // ← here\n",
		"        return deny                // ← here\n", // the log's 100 < 100 fails
	} {
		if !strings.Contains(last, line) {
			t.Errorf("the worked example's request lacks %q:\n%s", line, last)
		}
	}
}

// --code prints under a trace: alone, or with --json, it is a usage error.
func TestRunCodeNeedsTrace(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--code", "worked-example"},
		{"run", "--code", "--json", "worked-example"},
	} {
		out, errOut, code := windowlab(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "--code follows each decision of the trace with its code: add --trace") {
			t.Errorf("windowlab %s: exit %d, want 2 and the reason\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
		}
	}
}

// TestRunFitsEighty: every built-in scenario's report fits 80 columns,
// the fleets' six limiters too (in tables of as many columns as fit, one
// below another: many-servers took 125 columns in one), and still names
// every limiter, in order.
func TestRunFitsEighty(t *testing.T) {
	for _, s := range scenarios.Builtins() {
		out, errOut, code := windowlab(t, "run", s.Name)
		if code != 0 {
			t.Fatalf("run %s: exit %d\n%s", s.Name, code, errOut)
		}
		fits(t, out)
		rest := out
		for _, a := range s.Algorithms {
			i := strings.Index(rest, " "+a.String()+"\n")
			if i < 0 {
				i = strings.Index(rest, " "+a.String()+" ")
			}
			if i < 0 {
				t.Fatalf("run %s: the table lacks %s (in order):\n%s", s.Name, a, out)
			}
			rest = rest[i+len(a.String()):]
		}
	}
}
