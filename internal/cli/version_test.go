package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	vcs := func(rev, at string, modified bool) []debug.BuildSetting {
		m := "false"
		if modified {
			m = "true"
		}
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: at}, {Key: "vcs.modified", Value: m}}
	}
	const rev = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
	cases := []struct {
		name            string
		version, commit string // as -ldflags -X set them
		main            string
		settings        []debug.BuildSetting
		want            string
	}{
		{"a go build in a checkout", "", "", "(devel)", vcs(rev, "2026-12-01T21:00:19Z", false), "devel 0a1b2c3d4e5f, 2026-12-01T21:00:19Z"},
		{"with changes not committed", "", "", "(devel)", vcs(rev, "2026-12-01T21:00:19Z", true), "devel 0a1b2c3d4e5f-modified, 2026-12-01T21:00:19Z"},
		{"a tagged install", "", "", "v1.4.0", nil, "v1.4.0"},
		{"a pseudo-version names its commit", "", "", "v0.0.0-20261201210019-0a1b2c3d4e5f", vcs(rev, "2026-12-01T21:00:19Z", false), "v0.0.0-20261201210019-0a1b2c3d4e5f"},
		{"a packager's version", "1.4.0", "", "(devel)", vcs(rev, "2026-12-01T21:00:19Z", false), "1.4.0 (0a1b2c3d4e5f, 2026-12-01T21:00:19Z)"},
		{"a packager's version and commit", "1.4.0", "fedcba987654", "(devel)", nil, "1.4.0 (fedcba987654)"},
		{"nothing known", "", "", "(devel)", nil, "unknown (built without version control: go build in a git checkout records the commit)"},
	}
	defer func(v, c string) { version, commit = v, c }(version, commit)
	for _, c := range cases {
		version, commit = c.version, c.commit
		info := &debug.BuildInfo{Main: debug.Module{Path: "windowlab", Version: c.main}, Settings: c.settings}
		if got := buildVersion(info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A real build: go build in this checkout records the commit, and a
// packager's -ldflags -X sets the version, both shown by --version.
func TestVersionOfABuild(t *testing.T) {
	t.Parallel() // a process of its own: runs beside the package's other slow tests
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout, or no git: %v", err)
	}
	top, _ := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree: go build records the commit only in a checkout whose .git is a directory")
	}
	bin := filepath.Join(t.TempDir(), "windowlab")
	build := exec.Command("go", "build", "-buildvcs=true", "-ldflags", "-X main.version=9.9.9-test", "-o", bin, ".")
	build.Dir = filepath.Join("..", "..") // the module root: windowlab's main package
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "windowlab version 9.9.9-test (" + strings.TrimSpace(string(head))[:12]
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("--version printed %q, want it to start %q", out, want)
	}
}
