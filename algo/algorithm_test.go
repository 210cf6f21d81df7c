package algo

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAlgorithmRoundTrips(t *testing.T) {
	for _, name := range AlgorithmNames() {
		a, err := ParseAlgorithm(name)
		if err != nil {
			t.Fatalf("ParseAlgorithm(%q): %v", name, err)
		}
		if a.String() != name {
			t.Errorf("ParseAlgorithm(%q).String() = %q", name, a.String())
		}
	}
	if a, _ := ParseAlgorithm("sliding-counter/httprate"); a.Rules != PresetHTTPRate.Rules || a.Title() != "Sliding window counter · go-chi/httprate" {
		t.Errorf("sliding-counter/httprate parsed as %+v, %q", a, a.Title())
	}
	for bad, want := range map[string]string{
		"sliding-countr":           "unknown algorithm",
		"sliding-log/httprate":     "use sliding-counter/httprate",
		"sliding-counter/nonesuch": "unknown preset",
	} {
		if _, err := ParseAlgorithm(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAlgorithm(%q) = %v, want an error containing %q", bad, err, want)
		}
	}
	_, err := ParseAlgorithm("sliding-log/httprate")
	var pk *PresetKindError
	if !errors.As(err, &pk) || pk.Preset != "httprate" || pk.Kind != KindSlidingCounter || pk.Asked != KindSlidingLog {
		t.Errorf("sliding-log/httprate: %#v, want a PresetKindError naming both kinds", err)
	}
	if _, err := ParseAlgorithm("sliding-counter/nonesuch"); errors.As(err, &pk) {
		t.Error("an unknown preset is not a PresetKindError")
	}
}

func TestAlgorithmNewAppliesItsRules(t *testing.T) {
	a, _ := ParseAlgorithm("sliding-counter/upstash")
	l, err := a.New(Config{Limit: 50, Window: 60_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if Of(l) != a {
		t.Errorf("Of(New) = %v, want %v", Of(l), a)
	}
}
