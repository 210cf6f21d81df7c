package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file over the memory budget is one refusal from every command that
// reads it: located at the traffic entry that needs the most, with the
// figure and the budget, exit 2, nothing on standard output, never "Try
// --help". check refused it as a failed expectation (":0:0: algorithms:
// … want a scenario an engine can replay", exit 1) when the file had an
// expect block, and said ok without one, while run and tui refused it.
// check measures against the view, the most any command holds, so its ok
// means every command can open the file. testdata/budget/*.err holds what
// check says of each.
func TestBudgetRefusedByEveryCommand(t *testing.T) {
	t.Chdir(filepath.Join("testdata", "budget")) // messages name the file as given
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) < 5 {
		t.Fatalf("%d files in testdata/budget: %v", len(files), err)
	}
	for _, name := range files {
		want, err := os.ReadFile(strings.TrimSuffix(name, ".yaml") + ".err")
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := windowlab(t, "check", name)
		if code != 2 || errOut != string(want) || out != "" {
			t.Errorf("check %s: exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", name, code, out, errOut, want)
		}
	}
	record := filepath.Join(t.TempDir(), "x.cast")
	for _, c := range []struct {
		args  []string
		where string // the file, line, column and entry
		view  bool   // refused as the view would hold it
	}{
		{[]string{"run", "big.yaml"}, "big.yaml:5:5: traffic[0]: ", false},
		{[]string{"run", "big-expect.yaml", "--json"}, "big-expect.yaml:5:5: traffic[0]: ", false},
		{[]string{"run", "two-entries.yaml", "--trace"}, "two-entries.yaml:6:5: traffic[1]: ", false},
		{[]string{"tui", "big.yaml"}, "big.yaml:5:5: traffic[0]: ", true},
		{[]string{"tui", "view-only.yaml"}, "view-only.yaml:5:5: traffic[0]: ", true},
		{[]string{"quiz", "big-questions.yaml"}, "big-questions.yaml:5:5: traffic[0]: ", true},
		{[]string{"quiz", "--print", "big-questions.yaml"}, "big-questions.yaml:5:5: traffic[0]: ", false},
		{[]string{"record", "big.yaml", "-o", record}, "big.yaml:5:5: traffic[0]: ", true},
		{[]string{"record", "view-only.yaml", "-o", "-"}, "view-only.yaml:5:5: traffic[0]: ", true},
	} {
		out, errOut, code := windowlab(t, c.args...)
		what := "replaying the file would need"
		if c.view {
			what = "viewing the file (the view keeps every decision for its timeline) would need"
		}
		if code != 2 || out != "" || !strings.Contains(errOut, c.where+what) || !strings.Contains(errOut, "memory budget of 1,024 MiB") ||
			strings.Contains(errOut, "--help") || strings.Count(strings.TrimSpace(errOut), "\n") > 2 {
			t.Errorf("%v: exit %d, stdout %q\nstderr:\n%s\nwant exit 2 and %q", c.args, code, out, errOut, c.where+what)
		}
	}
	if _, err := os.Stat(record); err == nil {
		t.Errorf("record wrote %s for a file it refused", record)
	}
}
