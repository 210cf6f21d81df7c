package cli

import (
	"strings"
	"testing"

	"windowlab/algo"
	"windowlab/scenarios"
)

// complete asks cobra's __complete, as a shell does, and returns the
// values offered (without descriptions), the descriptions by value, and
// the directive's line.
func complete(t *testing.T, args ...string) (values []string, descs map[string]string, directive string) {
	t.Helper()
	out, errOut, code := windowlab(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %q: exit %d\n%s", args, code, errOut)
	}
	descs = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, ":") {
			directive = line
			continue
		}
		v, d, _ := strings.Cut(line, "\t")
		values = append(values, v)
		descs[v] = d
	}
	return values, descs, directive
}

func TestCompletion(t *testing.T) {
	builtins := scenarios.Builtins()
	for _, cmd := range []string{"run", "tui", "quiz", "check"} {
		values, descs, directive := complete(t, cmd, "")
		if len(values) != len(builtins) {
			t.Errorf("%s: %d names offered, want the %d built-ins: %q", cmd, len(values), len(builtins), values)
		}
		for _, s := range builtins {
			if descs[s.Name] != s.Title {
				t.Errorf("%s: %s offered with %q, want its title %q", cmd, s.Name, descs[s.Name], s.Title)
			}
		}
		if directive != ":0" { // the shell's own: files complete too
			t.Errorf("%s: directive %s, want :0 (files too)", cmd, directive)
		}
	}
	if values, _, _ := complete(t, "run", "worked"); len(values) != 1 || values[0] != "worked-example" {
		t.Errorf("run worked<tab>: %q", values)
	}
	if values, _, _ := complete(t, "run", "boundary-burst", ""); len(values) != 0 {
		t.Errorf("run takes one scenario; a second was offered: %q", values)
	}
	if values, _, _ := complete(t, "serve", "--scenario", "many"); len(values) != 1 || values[0] != "many-servers" {
		t.Errorf("serve --scenario many<tab>: %q", values)
	}

	rules, descs, _ := complete(t, "lab", "--rules", "")
	want := []string{"lesson"}
	for _, p := range algo.Presets {
		want = append(want, p.Name)
		if !strings.Contains(descs[p.Name], p.Rule) {
			t.Errorf("--rules %s is offered as %q, without its rule", p.Name, descs[p.Name])
		}
	}
	if strings.Join(rules, " ") != strings.Join(want, " ") {
		t.Errorf("lab --rules: %q, want %q", rules, want)
	}
	if values, _, _ := complete(t, "lab", "--model", ""); strings.Join(values, " ") != "pareto lognormal" {
		t.Errorf("lab --model: %q", values)
	}
	if values, _, _ := complete(t, "lesson", "--step", ""); len(values) != len(scenarios.Lesson()) || values[0] != "1" {
		t.Errorf("lesson --step: %q", values)
	}
	if values, _, _ := complete(t, "lesson", "many-bouncers", "--step", ""); strings.Join(values, " ") != "1 2 3 4" {
		t.Errorf("lesson many-bouncers --step: %q", values)
	}
	if values, _, _ := complete(t, "lesson", ""); strings.Join(values, " ") != "windows many-bouncers" {
		t.Errorf("lesson's argument: %q", values)
	}

	values, _, directive := complete(t, "replay", "access.log", "--algorithms", "fixed-window,sliding-counter/")
	var presets []string
	for _, p := range algo.Presets {
		if p.Kind == algo.KindSlidingCounter {
			presets = append(presets, "fixed-window,sliding-counter/"+p.Name)
		}
	}
	if strings.Join(values, " ") != strings.Join(presets, " ") || directive != ":6" {
		t.Errorf("replay --algorithms fixed-window,sliding-counter/<tab>: %q %s, want %q :6 (no space, no files)", values, directive, presets)
	}
	for _, a := range values {
		if _, err := algo.ParseAlgorithm(strings.TrimPrefix(a, "fixed-window,")); err != nil {
			t.Errorf("--algorithms offers %q, which does not parse: %v", a, err)
		}
	}
	if values, _, _ := complete(t, "replay", "access.log", "--algorithms", "token-bucket/"); strings.Join(values, " ") != "token-bucket/gcra token-bucket/envoy token-bucket/redis-cell token-bucket/spring token-bucket/nginx token-bucket/nginx-nodelay" {
		t.Errorf("replay --algorithms token-bucket/<tab>: %q, want token-bucket/gcra token-bucket/envoy token-bucket/redis-cell token-bucket/spring token-bucket/nginx token-bucket/nginx-nodelay", values)
	}
	if values, _, _ := complete(t, "replay", "access.log", "--algorithms", "fixed-window/"); strings.Join(values, " ") != "fixed-window/express-rate-limit fixed-window/envoy-ratelimit fixed-window/kong" {
		t.Errorf("replay --algorithms fixed-window/<tab>: %q, want express-rate-limit, envoy-ratelimit, kong", values)
	}
	if values, _, _ := complete(t, "run", "x.yaml", "--store", ""); len(values) != 2 || values[0] != "redis" {
		t.Errorf("--store: %q", values)
	}
}
