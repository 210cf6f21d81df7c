package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// windowlab lab, end to end: the table beside Cloudflare's, JSON, and every
// invalid flag refused with exit status 2 and a message naming the flag.
func TestLabCommand(t *testing.T) {
	run := func(args ...string) (stdout, stderr string, code int) {
		var out, errOut bytes.Buffer
		cmd := NewRootCommand(&out)
		cmd.SetErr(&errOut)
		cmd.SetArgs(append([]string{"lab"}, args...))
		err := cmd.Execute()
		return out.String(), errOut.String(), ExitCode(err)
	}
	t.Run("the table beside Cloudflare's, with the model and seed", func(t *testing.T) {
		out, progress, code := run("--requests", "200K", "--sources", "2000", "--seed", "3")
		for _, want := range []string{"Cloudflare 2017 (theirs)", "0.003%", "requests decided unlike the log",
			"sources allowed while above the threshold", "Pareto rates (α = 1.5)", "seed 3", "200,000 requests", "Definitions"} {
			if !strings.Contains(out, want) {
				t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
			}
		}
		if code != 0 || !strings.Contains(progress, "lab: 200,000 requests from 2,000 sources in") {
			t.Errorf("exit %d, standard error:\n%s", code, progress)
		}
	})
	t.Run("json", func(t *testing.T) {
		out, _, code := run("--requests", "50k", "--sources", "500", "--rules", "lesson", "--bursts", "5s/15s", "--json")
		var doc struct {
			Complete bool
			Seed     uint64
			Rules    string
			Requests int64
			Model    struct {
				Rates     string
				BurstOnMs int64 `json:"burst_on_ms"`
			}
			Approximations []struct {
				Name       string
				WrongShare float64 `json:"wrong_share"`
			}
			Cloudflare map[string]any
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
			t.Fatalf("exit %d, %v:\n%s", code, err, out)
		}
		if !doc.Complete || doc.Seed != 1 || doc.Rules != "lesson" || doc.Requests != 50_000 || doc.Model.Rates != "pareto" ||
			doc.Model.BurstOnMs != 5000 || len(doc.Approximations) != 2 || doc.Approximations[0].Name != "sliding-counter" ||
			doc.Cloudflare["wrong_share"] != 0.00003 {
			t.Errorf("unexpected document: %+v", doc)
		}
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--requests", "0"}, "--requests: 0 is out of range: it must be from 1 to"},
		{[]string{"--requests", "lots"}, `--requests: "lots" is not a count`},
		{[]string{"--sources", "20M"}, "--sources: 20000000 is out of range: it must be from 1 to 10,000,000"},
		{[]string{"--limit", "0"}, "--limit: 0 is out of range"},
		{[]string{"--window", "0s"}, "--window: 0s is out of range: it must be from 1ms to 168h"},
		{[]string{"--model", "zipf"}, `--model: "zipf" is not a model; use pareto or lognormal`},
		{[]string{"--rules", "strict"}, `--rules: "strict" is not a rule set; use lesson, httprate`},
		{[]string{"--bursts", "5s"}, `--bursts: "5s" is not on/off periods`},
		{[]string{"--bursts", "1ms/1ms"}, "--bursts: 1ms/1ms: the traffic runs 9m48s, so periods this short make about 79,393,635,000 on and off periods, more than 4 for each of the 10,000,000 requests; give periods of 3.843s or more together (ON+OFF), or off"},
		{[]string{"--alpha", "0.5"}, "--alpha: 0.5 is out of range"},
		{[]string{"--model", "lognormal", "--sigma", "9"}, "--sigma: 9 is out of range"},
		{[]string{"--median", "0"}, "--median: 0 is out of range"},
		{[]string{"--workers", "-1"}, "--workers: -1 is out of range"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errOut, code := run(c.args...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(out, "theirs") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q, and no figures", code, errOut, c.want)
			}
		})
	}
}
