package scenarios

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"windowlab/algo"
)

func TestBuiltinsParseInTeachingOrder(t *testing.T) {
	all := Builtins()
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
		if s.Title == "" || s.Description == "" || len(s.Captions) == 0 || len(s.Expect) == 0 {
			t.Errorf("%s: wants a title, a description, captions and expectations", s.Name)
		}
		if !strings.HasPrefix(s.File, "builtin/") {
			t.Errorf("%s: File = %q", s.Name, s.File)
		}
	}
	want := []string{"boundary-burst", "check-yourself-1", "worked-example", "steady-stream",
		"sliding-log-memory", "forgotten-ttl", "many-servers", "shared-tally-race", "replica-lag", "synced-tallies", "split-quota", "random-traffic", "presets-cloudflare-example", "token-bucket", "segmented-window"}
	if !slices.Equal(names, want) || !slices.Equal(BuiltinNames(), want) {
		t.Errorf("built-ins = %v, want %v", names, want)
	}
	if names[0] != DefaultBuiltin {
		t.Errorf("first built-in is %s, want the default %s", names[0], DefaultBuiltin)
	}
}

func TestBuiltinsVerify(t *testing.T) {
	for _, s := range Builtins() {
		t.Run(s.Name, func(t *testing.T) {
			for _, f := range s.Verify() {
				t.Error(f)
			}
		})
	}
}

// The lesson's numbers, stated here independently of the YAML files, so an
// edit to a file cannot quietly change what it teaches.
func TestBuiltinsTeachTheLesson(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  algo.Kind
		allow int64
	}{
		{"boundary-burst", algo.KindFixedWindow, 200},
		{"boundary-burst", algo.KindSlidingLog, 100},
		{"boundary-burst", algo.KindSlidingCounter, 100},
		{"check-yourself-1", algo.KindFixedWindow, 200},
		{"check-yourself-1", algo.KindSlidingLog, 100},
		{"check-yourself-1", algo.KindSlidingCounter, 104},
		{"worked-example", algo.KindFixedWindow, 115},
		{"worked-example", algo.KindSlidingLog, 100},
		{"worked-example", algo.KindSlidingCounter, 115},
	} {
		s, err := Builtin(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		e, err := s.Engine(simOptions())
		if err != nil {
			t.Fatal(err)
		}
		e.RunToEnd()
		if got := e.Stats()[slices.Index(s.Algorithms, algo.Algorithm{Kind: tc.kind})].Allowed; got != tc.allow {
			t.Errorf("%s: %v allows %d, want %d", tc.name, tc.kind, got, tc.allow)
		}
	}
	s, _ := Builtin("worked-example")
	q := s.Questions[0]
	if q.Answer != "The share of the previous window that still falls inside the last 60 seconds" || len(q.Choices) < 2 {
		t.Errorf("worked-example question 2 = %+v", q)
	}
	s, _ = Builtin("check-yourself-1")
	if s.Questions[0].Answer != "200" {
		t.Errorf("check-yourself-1 question 1 answer = %q", s.Questions[0].Answer)
	}
}

func TestBuiltinUnknown(t *testing.T) {
	for _, name := range []string{"nope", "../etc/passwd", "Boundary-Burst", ""} {
		_, err := Builtin(name)
		if err == nil || !strings.Contains(err.Error(), "boundary-burst, check-yourself-1") {
			t.Errorf("Builtin(%q) error = %v, want one listing the built-ins", name, err)
		}
	}
	if _, err := Builtin("worked-exmaple"); err == nil || !strings.Contains(err.Error(), "did you mean worked-example?") {
		t.Errorf("typo not caught: %v", err)
	}
}

func TestBuiltinReturnsFreshScenario(t *testing.T) {
	a, _ := Builtin("boundary-burst")
	a.Config.Limit = 1
	b, _ := Builtin("boundary-burst")
	if b.Config.Limit != 100 {
		t.Error("changing one Builtin result changed another")
	}
}

// statesFigure finds what makes a caption a claim about the screen: a
// number that is not a clock time, or a verdict.
var statesFigure = regexp.MustCompile(`(?i)\b(allow|allows|allowed|deny|denies|denied|refuse|refuses|refused)\b|(^|[^:\d])\d+([.,]\d+)*($|[^:\d])`)

// Every caption of a built-in or a lesson step that states a number or a
// verdict carries claims the replay bears out (Verify checks them), except
// those before the first request, which set the scene; and no caption tells
// the reader to press a key, which the view's own hints do for the state
// it is in.
func TestCaptionsCarryTheirClaims(t *testing.T) {
	for _, s := range append(Builtins(), everyLessonStep(t)...) {
		first, _ := firstArrival(s)
		for i, c := range s.Captions {
			if regexp.MustCompile(`(?i)\bpress\b`).MatchString(c.Text) {
				t.Errorf("%s: captions[%d] at %s tells the reader to press a key: %q", s.Name, i, c.At.Short(), c.Text)
			}
			if c.At < first || !statesFigure.MatchString(c.Text) {
				continue
			}
			if len(c.Shows) == 0 {
				t.Errorf("%s: captions[%d] at %s states %q but claims nothing the screen shows (add shows:)",
					s.Name, i, c.At.Short(), statesFigure.FindString(c.Text))
			}
		}
	}
}

// The fast titles are the parsed scenarios' own.
func TestBuiltinTitlesAreTheScenarios(t *testing.T) {
	all := Builtins()
	titles := BuiltinTitles()
	if len(titles) != len(all) {
		t.Fatalf("%d titles for %d built-ins", len(titles), len(all))
	}
	for i, s := range all {
		if titles[i] != (Title{s.Name, s.Title}) {
			t.Errorf("title %d is %+v, the built-in says %q %q", i, titles[i], s.Name, s.Title)
		}
	}
}
