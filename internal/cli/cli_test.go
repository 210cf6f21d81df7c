package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/fang/v2"
)

// windowlab runs the command line as main does (fang, the same error
// handler) and returns what it wrote to standard output and standard error,
// and the exit status main would return.
func windowlab(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := NewRootCommand(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	err := fang.Execute(context.Background(), root, fang.WithErrorHandler(printError))
	return out.String(), errOut.String(), ExitCode(err)
}

// writeFile writes a file into a fresh directory and returns its path.
func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const validScenario = "limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:59\", count: 100}\n  - {at: \"12:01:00\", count: 100}\n"

// The exit status is 0 on success, 1 when an expectation fails, 2 for
// invalid input or usage, and the message says what was wrong (and, for a
// mistyped command or flag, what was meant).
func TestExitCodes(t *testing.T) {
	good := writeFile(t, "good.yaml", []byte(validScenario+"expect:\n  - {algorithm: fixed-window, allowed: 200}\n"))
	failing := writeFile(t, "failing.yaml", []byte(validScenario+"expect:\n  - {algorithm: fixed-window, allowed: 100}\n"))
	invalid := writeFile(t, "invalid.yaml", []byte("limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:60:00\"}\n"))
	wrongAnswer := writeFile(t, "wrong.yaml", []byte(validScenario+"questions:\n  - {ask: \"How many get through?\", answer: \"150\", at: \"12:01:00\", algorithm: fixed-window}\n"))
	notScenario := writeFile(t, "deployment.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"))
	dir := t.TempDir()
	missing := filepath.Join(dir, "nowhere.yaml")

	cases := []struct {
		name string
		args []string
		code int
		want []string // each must appear in stdout or stderr
	}{
		{"a built-in scenario runs", []string{"run", "boundary-burst"}, 0, []string{"200 requests allowed within 1s"}},
		{"a shell completion does not know", []string{"completion", "tcsh"}, 2, []string{`"tcsh" is not a shell windowlab completes; use bash, fish, powershell, zsh`}},
		{"completion alone is its help", []string{"completion"}, 0, []string{"windowlab completion [command]"}},
		{"a file whose expectations hold", []string{"check", good}, 0, []string{"good.yaml: ok, 1 expectation holds"}},
		{"a wrong answer to a question", []string{"check", wrongAnswer}, 1, []string{"wrong.yaml:7:5: questions[0].answer: 150, but the replay gives 200"}},
		{"a failed expectation", []string{"check", failing}, 1, []string{"failing.yaml:7:", "got 200"}},
		{"a failed expectation beside a good file", []string{"check", good, failing}, 1, []string{"good.yaml: ok"}},
		{"an invalid file outranks a failed expectation", []string{"check", failing, invalid, good}, 2,
			[]string{"invalid.yaml:4:10: traffic[0].at: \"12:60:00\" is not a clock time; use HH:MM:SS or HH:MM:SS.mmm with minutes 00–59"}},
		{"an invalid file for run", []string{"run", invalid}, 2, []string{"invalid.yaml:4:10: traffic[0].at"}},
		{"an invalid file for tui, before any terminal is touched", []string{"tui", invalid}, 2, []string{"invalid.yaml:4:10"}},
		{"an invalid file for quiz", []string{"quiz", "--print", invalid}, 2, []string{"invalid.yaml:4:10"}},
		{"valid YAML that is not a scenario", []string{"run", notScenario}, 2, []string{
			"deployment.yaml:1:1: apiVersion: unknown field; valid fields here are `name`, `title`",
			"deployment.yaml:1:1: missing `limit`; give the requests allowed per window, such as limit: 100",
			"deployment.yaml:1:1: missing `traffic`",
			"deployment.yaml:2:1: kind: unknown field",
		}},
		{"a file that does not exist", []string{"run", missing}, 2, []string{missing + ": no such file"}},
		{"a file that does not exist, for check", []string{"check", missing}, 2, []string{missing + ": no such file"}},
		{"a directory given as a file", []string{"run", dir}, 2, []string{dir + ": is a directory"}},
		{"a directory given to check", []string{"check", dir}, 2, []string{dir + ": is a directory"}},
		{"an unknown command suggests the right one", []string{"rn", "boundary-burst"}, 2,
			[]string{`unknown command "rn" for "windowlab"; did you mean run?`, "commands: challenge, check, completion, lab, lesson, list, man, memory, play, presets, quiz, record, replay, run, serve, tui", "Try --help for usage."}},
		{"another unknown command", []string{"chek", "x.yaml"}, 2, []string{`unknown command "chek" for "windowlab"; did you mean check?`}},
		{"an unknown command nearest one of two", []string{"lst"}, 2, []string{`did you mean list?`}},
		{"an unknown command as near two", []string{"lbt"}, 2, []string{`did you mean lab or list?`}},
		{"an unknown command like none", []string{"frobnicate"}, 2, []string{`unknown command "frobnicate" for "windowlab"`, "commands: challenge, check,"}},
		{"an unknown flag suggests the right one", []string{"run", "--jsn", "boundary-burst"}, 2,
			[]string{"unknown flag: --jsn; did you mean --json?", "Try --help for usage."}},
		{"an unknown flag of another command", []string{"memory", "--limt", "5"}, 2, []string{"unknown flag: --limt; did you mean --limit?"}},
		{"an unknown flag like none", []string{"run", "--verbose", "boundary-burst"}, 2, []string{"unknown flag: --verbose"}},
		{"an unknown shorthand flag", []string{"run", "-x", "boundary-burst"}, 2, []string{"unknown shorthand flag: 'x' in -x"}},
		{"a missing argument", []string{"run"}, 2, []string{"accepts 1 arg(s), received 0"}},
		{"too many arguments", []string{"run", "boundary-burst", "worked-example"}, 2, []string{"accepts 1 arg(s), received 2"}},
		{"a flag value out of range", []string{"memory", "--clients", "0"}, 2, []string{"--clients: 0 is out of range"}},
		{"a flag value of the wrong type", []string{"memory", "--limit", "lots"}, 2, []string{`invalid argument "lots" for "--limit"`}},
		{"flags that exclude each other", []string{"run", "--trace", "--json", "boundary-burst"}, 2, []string{"[json trace] were all set"}},
		{"an unknown built-in scenario", []string{"run", "boundry-burst"}, 2, []string{`did you mean boundary-burst?`}},
		{"a lesson step that is not there", []string{"lesson", "--step", "7"}, 2, []string{"--step 7: the lesson has steps 1 to 6"}},
		{"a lesson step before the first", []string{"lesson", "--step", "0"}, 2, []string{"--step 0: the lesson has steps 1 to 6"}},
		{"a step past many-bouncers' last", []string{"lesson", "many-bouncers", "--step", "5"}, 2, []string{"--step 5: the lesson many-bouncers has steps 1 to 4"}},
		{"a lesson that is not there", []string{"lesson", "many-doormen"}, 2, []string{`no lesson is called "many-doormen"; the lessons are windows and many-bouncers`}},
		{"serve with two programmes", []string{"serve", "--lesson", "--scenario", "boundary-burst"}, 2, []string{"--lesson, --scenario and --play each name the programme; give one"}},
		{"serve with too many questions", []string{"serve", "--questions", "500"}, 2, []string{"--questions 500 is out of range; ask for 0 to 200"}},
		{"serve an unknown scenario", []string{"serve", "--scenario", "boundry-burst"}, 2, []string{"did you mean boundary-burst?"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := windowlab(t, c.args...)
			if code != c.code {
				t.Errorf("windowlab %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), code, c.code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out+errOut, w) {
					t.Errorf("windowlab %s: output lacks %q\nstdout:\n%s\nstderr:\n%s", strings.Join(c.args, " "), w, out, errOut)
				}
			}
			if code == 2 && strings.Contains(errOut, "goroutine ") {
				t.Errorf("a stack trace:\n%s", errOut)
			}
		})
	}
}

// The size limit: a file of exactly 1 MiB is read, one byte more is refused
// with its real size, however large it is.
func TestFileSizeLimit(t *testing.T) {
	const mib = 1 << 20
	pad := func(size int) []byte {
		b := []byte(validScenario + "# ")
		b = append(b, bytes.Repeat([]byte("x"), size-len(b)-1)...)
		return append(b, '\n')
	}
	atLimit := writeFile(t, "at-limit.yaml", pad(mib))
	if out, errOut, code := windowlab(t, "check", atLimit); code != 0 {
		t.Errorf("a file of exactly 1 MiB: exit %d\n%s%s", code, out, errOut)
	}
	for _, size := range []int{mib + 1, 5_000_000} {
		p := writeFile(t, "big.yaml", pad(size))
		want := p + ": the file is " + map[int]string{mib + 1: "1,048,577", 5_000_000: "5,000,000"}[size] +
			" bytes; a scenario file may be at most 1 MiB (1,048,576 bytes)\n"
		if out, errOut, code := windowlab(t, "check", p); code != 2 || errOut != want {
			t.Errorf("check, %d bytes: exit %d, stderr %q, want %q (stdout %q)", size, code, errOut, want, out)
		}
		if _, errOut, code := windowlab(t, "run", p); code != 2 || !strings.Contains(errOut, strings.TrimSuffix(want, "\n")) {
			t.Errorf("run, %d bytes: exit %d, stderr:\n%s", size, code, errOut)
		}
	}
}

// The request limit: 50,000,000 requests are allowed, one more is refused,
// with the message the catalogue records.
func TestRequestLimit(t *testing.T) {
	at := writeFile(t, "at-limit.yaml", []byte("limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 30000000}\n  - {at: \"12:00:01\", count: 20000000}\n"))
	if _, errOut, code := windowlab(t, "check", at); code != 0 {
		t.Errorf("50,000,000 requests: exit %d\n%s", code, errOut)
	}
	over := writeFile(t, "over.yaml", []byte("limit: 100\nwindow: 1m\ntraffic:\n  - {at: \"12:00:00\", count: 30000000}\n  - {at: \"12:00:01\", count: 20000001}\n"))
	want := over + ":5:5: traffic[1]: brings the scenario to about 50,000,001 requests; a scenario may make at most 50,000,000 in all\n"
	if _, errOut, code := windowlab(t, "check", over); code != 2 || errOut != want {
		t.Errorf("50,000,001 requests: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// Every file of the bad-input catalogue, given to check, exits 2 and prints
// exactly the message its .err file records, nothing more.
func TestBadCatalogueOnTheCommandLine(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "bad", "*.yaml"))
	if err != nil || len(files) < 100 {
		t.Fatalf("%d files in testdata/bad: %v", len(files), err)
	}
	t.Chdir(filepath.Join("..", "..", "testdata", "bad")) // messages name the file as given
	for _, path := range files {
		name := filepath.Base(path)
		want, err := os.ReadFile(strings.TrimSuffix(name, ".yaml") + ".err")
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := windowlab(t, "check", name)
		if code != 2 || errOut != string(want) || out != "" {
			t.Errorf("check %s: exit %d, stdout %q\nstderr:\n%s\nwant:\n%s", name, code, out, errOut, want)
		}
	}
}

// "-" is standard input wherever a scenario file is accepted.
func TestStandardInput(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		stdin string
		code  int
		want  string
	}{
		{"run reads the scenario", []string{"run", "-"}, validScenario, 0, "fixed-window: 200 requests allowed within 1s"},
		{"run --json reads it too", []string{"run", "-", "--json"}, validScenario, 0, `"scenario"`},
		{"check names it in its verdict", []string{"check", "-"}, validScenario + "expect:\n  - {algorithm: fixed-window, allowed: 200}\n", 0, "standard input: ok, 1 expectation holds"},
		{"and in its errors, by line and field", []string{"check", "-"}, "limit: 0\nwindow: 1m\ntraffic: [{at: \"12:00:00\"}]\n", 2, "standard input:1:8: limit: 0 is too small"},
		{"an empty input is an error, not a hang", []string{"run", "-"}, "", 2, "standard input"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &process{}
			p.cmd = exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, c.args...)...)
			p.cmd.Env = append(os.Environ(), beMain+"=1")
			p.cmd.Stdin = strings.NewReader(c.stdin)
			p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if code := p.wait(t); code != c.code {
				t.Errorf("exit status %d, want %d\n%s%s", code, c.code, p.stdout.String(), p.stderr.String())
			}
			if out := p.stdout.String() + p.stderr.String(); !strings.Contains(out, c.want) {
				t.Errorf("output does not hold %q:\n%s", c.want, out)
			}
		})
	}
}

// The byte-exact fixtures keep LF line endings in any checkout: git is told
// so for every kind the tests compare byte for byte.
func TestFixturesKeepLF(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	files := []string{"testdata/bad/absurd-count.err", "testdata/examples/boundary-burst.yaml", "ui/render/testdata/TestGoldenLanes/fixed-window/80.golden", "algo/testdata/fuzz/FuzzFixedWindow/03740eee5977f4fa", "redisstore/lua/fixed.lua"}
	for _, f := range files { // check-attr answers for any path: each must be a real fixture
		if _, err := os.Stat(filepath.Join("..", "..", f)); err != nil {
			t.Errorf("the fixture %s is gone: %v", f, err)
		}
	}
	check := exec.Command("git", append([]string{"check-attr", "eol", "--"}, files...)...)
	check.Dir = filepath.Join("..", "..") // the paths are the module root's
	out, err := check.Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasSuffix(line, ": eol: lf") {
			t.Errorf("git check-attr: %s", line)
		}
	}
}
