package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
)

// Result is an experiment's figures: complete, or for the sources finished
// before it was stopped.
type Result struct {
	Options  Options
	Duration time.Duration // the virtual time the traffic spans, [0, D)
	Complete bool
	Totals
}

func (r *Run) collect(chunks []Totals) Result {
	res := Result{Options: r.opts, Duration: time.Duration(r.plan.duration) * time.Millisecond}
	for i := range chunks {
		res.Totals.add(&chunks[i]) // in chunk order, whatever the worker count
	}
	res.Complete = res.Sources == int64(r.opts.Sources)
	return res
}

// WrongShare is the share of requests approximation i decided unlike the log.
func (r Result) WrongShare(i int) float64 {
	a := r.Approx[i]
	return share(a.WronglyAllowed+a.WronglyLimited, r.Requests)
}

// MeanRelative is approximation i's mean |estimate − exact| / exact.
func (r Result) MeanRelative(i int) float64 {
	a := r.Approx[i]
	if a.RelativeCount == 0 {
		return 0
	}
	return a.RelativeSum / float64(a.RelativeCount)
}

func share(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Cloudflare's published figures, from "Counting things, a lot of different
// things" (2017-06-07), measured on their real traffic.
var Cloudflare = struct {
	Requests, Sources  int64
	WrongShare         float64 // requests wrongly allowed or rate limited
	MeanRelative       float64 // average difference between the real and the approximate rate
	AllowedAbove       int64   // sources allowed despite being above the threshold
	AllowedAboveAtMost float64 // … all of them less than this far above
	LimitedBelow       int64   // sources below the threshold that were limited
	Source             string
}{
	Requests: 400_000_000, Sources: 270_000,
	WrongShare: 0.00003, MeanRelative: 0.06, AllowedAbove: 3, AllowedAboveAtMost: 0.15, LimitedBelow: 0,
	Source: "https://blog.cloudflare.com/counting-things-a-lot-of-different-things/",
}

var (
	requests = human.Noun{One: "request", Many: "requests"}
	sources  = human.Noun{One: "source", Many: "sources"}
)

// Definitions are the figures' definitions, written out with every report.
var Definitions = []struct{ Term, Meaning string }{
	{"exact count", "the sliding log's count at the request's instant t: the requests it counts in (t − W, t], before this one"},
	{"estimate", "the sliding counter's current + previous × (W − elapsed) / W; the fixed window's count in its calendar window"},
	{"decided unlike the log", "a request the approximation allowed and the log limited (wrongly allowed), or the reverse (wrongly limited), as a share of all requests"},
	{"mean relative difference", "the mean of |estimate − exact count| / exact count over every decision with an exact count above 0"},
	{"above the threshold", "a source the exact log limited at least once: it sent more in some window than the rules let through"},
	{"allowed while above", "a source above the threshold that the approximation never limited; the figure in brackets is how far above the limit the busiest of them went (most requests in one window ÷ limit − 1)"},
	{"limited while below", "a source the exact log never limited that the approximation limited at least once"},
}

// Text writes the figures beside Cloudflare's, with the model, its
// parameters, the seed and the definitions.
func Text(w io.Writer, r Result) error {
	o := r.Options
	b := &strings.Builder{}
	fmt.Fprintf(b, "The sliding window counter and the fixed window against the exact sliding log\n\n")
	if !r.Complete {
		fmt.Fprintf(b, "STOPPED EARLY: %s of %s sources decided; the figures are for those only.\n\n",
			human.Int(r.Sources), human.Int(int64(o.Sources)))
	}
	fmt.Fprintf(b, "traffic    %s (%s sent requests), %s over %s of virtual time\n",
		sources.Of(r.Sources), human.Int(r.ActiveSources), requests.Of(r.Requests), human.Duration(roundDuration(r.Duration)))
	fmt.Fprintf(b, "model      %s; seed %d\n", o.Model, o.Seed)
	fmt.Fprintf(b, "limit      %s per %s; rules: %s\n", requests.Of(o.Limit), human.Duration(o.Window), rulesText(o.Rules))
	fmt.Fprintf(b, "exact log  limited %s requests (%s); %s sources above the threshold\n",
		human.Int(r.ExactLimited), human.Percent(share(r.ExactLimited, r.Requests)), human.Int(r.SourcesAbove))
	fmt.Fprintf(b, "busiest    %s requests in one window from one source (%s)\n\n", human.Int(r.Peak), human.Times(r.Peak, o.Limit))

	c, f := r.Approx[counterIdx], r.Approx[fixedIdx]
	writeTable(b, [][]string{
		{"", "sliding counter", "fixed window", "Cloudflare 2017 (theirs)"},
		{"requests decided unlike the log", human.Percent(r.WrongShare(counterIdx)), human.Percent(r.WrongShare(fixedIdx)), human.Percent(Cloudflare.WrongShare)},
		{"  wrongly allowed", countShare(c.WronglyAllowed, r.Requests), countShare(f.WronglyAllowed, r.Requests), ""},
		{"  wrongly limited", countShare(c.WronglyLimited, r.Requests), countShare(f.WronglyLimited, r.Requests), ""},
		{"mean relative difference from the exact count", human.Percent(r.MeanRelative(counterIdx)), human.Percent(r.MeanRelative(fixedIdx)), human.Percent(Cloudflare.MeanRelative)},
		{"sources allowed while above the threshold", allowedAbove(c, o.Limit), allowedAbove(f, o.Limit),
			fmt.Sprintf("%d (all < %s above)", Cloudflare.AllowedAbove, human.Percent(Cloudflare.AllowedAboveAtMost))},
		{"sources limited while below the threshold", human.Int(c.LimitedBelow), human.Int(f.LimitedBelow), human.Int(Cloudflare.LimitedBelow)},
	})

	fmt.Fprintf(b, "\nCloudflare's figures are theirs, measured on %s requests from %s sources of their real traffic:\n%s (2017).\n",
		human.Abbrev(Cloudflare.Requests), human.Int(Cloudflare.Sources), Cloudflare.Source)
	b.WriteString("windowlab's come from the synthetic traffic above; the same options and seed give the same figures.\n\nDefinitions\n")
	for _, d := range Definitions {
		fmt.Fprintf(b, "  %-25s %s\n", d.Term, d.Meaning)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTable writes rows with the first column aligned left and the others
// right, three spaces apart.
func writeTable(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		line := fmt.Sprintf("%-*s", widths[0], row[0]) // fmt counts widths in runes
		for i, cell := range row[1:] {
			line += "   " + fmt.Sprintf("%*s", widths[i+1], cell)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

func rulesText(r algo.Rules) string {
	name := r.Name()
	if name == "" {
		return "the lesson's (estimate < limit; only allowed requests are counted)"
	}
	for _, p := range algo.Presets {
		if p.Rules == r {
			return fmt.Sprintf("%s (%s)", p.Name, p.Rule)
		}
	}
	return name
}

func allowedAbove(a ApproxTotals, limit int64) string {
	if a.AllowedAbove == 0 {
		return "0"
	}
	return fmt.Sprintf("%s (≤ %s above)", human.Int(a.AllowedAbove), human.Percent(float64(a.PeakAllowedAbove)/float64(limit)-1))
}

func countShare(n, of int64) string {
	return fmt.Sprintf("%s (%s)", human.Int(n), human.Percent(share(n, of)))
}

func roundDuration(d time.Duration) time.Duration {
	if d >= time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// SchemaVersion is the version of lab --json's contract: it changes when a
// field is renamed, removed or changes its meaning, not when one is added.
const SchemaVersion = 1

// document is lab --json's object, the schema's source
// (schema/lab.schema.json, generated by the tests).
type document struct {
	SchemaVersion    int               `json:"schema_version" jsonschema_description:"the version of this contract"`
	Complete         bool              `json:"complete" jsonschema_description:"false when a signal stopped the lab: the figures are then of the sources finished"`
	Seed             uint64            `json:"seed"`
	Model            docModel          `json:"model"`
	Limit            int64             `json:"limit" jsonschema_description:"requests allowed per window"`
	WindowMs         int64             `json:"window_ms"`
	Rules            string            `json:"rules" jsonschema_description:"the rules the three limiters decide by: lesson, or a preset's name"`
	Sources          int64             `json:"sources" jsonschema_description:"sources decided"`
	SourcesRequested int               `json:"sources_requested" jsonschema_description:"sources asked for (--sources)"`
	ActiveSources    int64             `json:"active_sources" jsonschema_description:"sources that sent at least one request"`
	Requests         int64             `json:"requests" jsonschema_description:"requests decided"`
	RequestsAsked    int64             `json:"requests_requested" jsonschema_description:"requests asked for (--requests)"`
	DurationMs       int64             `json:"duration_ms" jsonschema_description:"the traffic's length in virtual time"`
	ExactLimited     int64             `json:"exact_limited" jsonschema_description:"requests the exact sliding log limited"`
	SourcesAbove     int64             `json:"sources_above" jsonschema_description:"sources above the threshold: ones the log limited"`
	Peak             int64             `json:"peak" jsonschema_description:"the most requests one source sent in one window"`
	Approximations   []docApprox       `json:"approximations" jsonschema_description:"the sliding counter and the fixed window against the log"`
	Cloudflare       docCloudflare     `json:"cloudflare" jsonschema_description:"Cloudflare's 2017 figures, theirs"`
	Definitions      map[string]string `json:"definitions" jsonschema_description:"each figure's definition, by its name in the text report"`
}

type docApprox struct {
	Name                string  `json:"name"`
	Limited             int64   `json:"limited"`
	WronglyAllowed      int64   `json:"wrongly_allowed" jsonschema_description:"requests it allowed that the log limited"`
	WronglyLimited      int64   `json:"wrongly_limited" jsonschema_description:"requests it limited that the log allowed"`
	WrongShare          float64 `json:"wrong_share" jsonschema_description:"both, as a share of all requests (0.0018 is 0.18%)"`
	MeanRelative        float64 `json:"mean_relative_difference" jsonschema_description:"the mean of |estimate - exact count| / exact count at decision time"`
	RelativeDecisions   int64   `json:"relative_decisions" jsonschema_description:"the decisions that mean is over"`
	SourcesAllowedAbove int64   `json:"sources_allowed_above" jsonschema_description:"sources above the threshold it never limited"`
	PeakAllowedAbove    int64   `json:"peak_allowed_above" jsonschema_description:"the busiest of them, in requests per window"`
	SourcesLimitedBelow int64   `json:"sources_limited_below" jsonschema_description:"sources below the threshold it limited"`
}

type docModel struct {
	Rates  string  `json:"rates" jsonschema_description:"pareto or lognormal"`
	Alpha  float64 `json:"alpha,omitempty" jsonschema_description:"the Pareto shape"`
	Sigma  float64 `json:"sigma,omitempty" jsonschema_description:"the log-normal spread"`
	Median float64 `json:"median" jsonschema_description:"the median source's rate, in limits per window"`
	OnMs   int64   `json:"burst_on_ms,omitempty" jsonschema_description:"bursts: the mean ON period"`
	OffMs  int64   `json:"burst_off_ms,omitempty" jsonschema_description:"bursts: the mean OFF period"`
	Text   string  `json:"description"`
}

type docCloudflare struct {
	Requests      int64   `json:"requests"`
	Sources       int64   `json:"sources"`
	WrongShare    float64 `json:"wrong_share"`
	MeanRelative  float64 `json:"mean_relative_difference"`
	AllowedAbove  int64   `json:"sources_allowed_above"`
	AllowedAtMost float64 `json:"allowed_above_less_than" jsonschema_description:"how far above the threshold those were, at most (0.15: 15%)"`
	LimitedBelow  int64   `json:"sources_limited_below"`
	Source        string  `json:"source" jsonschema_description:"where they were published"`
}

// JSON writes the result as one object.
func JSON(w io.Writer, r Result) error {
	o := r.Options
	m := docModel{Rates: o.Model.Rates.String(), Median: o.Model.Median, Text: o.Model.String(),
		OnMs: o.Model.On.Milliseconds(), OffMs: o.Model.Off.Milliseconds()}
	if o.Model.Rates == Pareto {
		m.Alpha = o.Model.Alpha
	} else {
		m.Sigma = o.Model.Sigma
	}
	out := document{
		SchemaVersion: SchemaVersion,
		Complete:      r.Complete, Seed: o.Seed, Model: m, Limit: o.Limit, WindowMs: o.Window.Milliseconds(),
		Rules: rulesName(o.Rules), Sources: r.Sources, SourcesRequested: o.Sources, ActiveSources: r.ActiveSources,
		Requests: r.Requests, RequestsAsked: o.Requests, DurationMs: r.Duration.Milliseconds(),
		ExactLimited: r.ExactLimited, SourcesAbove: r.SourcesAbove, Peak: r.Peak,
		Cloudflare: docCloudflare{
			Requests: Cloudflare.Requests, Sources: Cloudflare.Sources, WrongShare: Cloudflare.WrongShare,
			MeanRelative: Cloudflare.MeanRelative, AllowedAbove: Cloudflare.AllowedAbove,
			AllowedAtMost: Cloudflare.AllowedAboveAtMost, LimitedBelow: Cloudflare.LimitedBelow, Source: Cloudflare.Source,
		},
		Definitions: map[string]string{},
	}
	for i, k := range Approximations {
		a := r.Approx[i]
		out.Approximations = append(out.Approximations, docApprox{
			Name: k.String(), Limited: a.Limited, WronglyAllowed: a.WronglyAllowed, WronglyLimited: a.WronglyLimited,
			WrongShare: r.WrongShare(i), MeanRelative: r.MeanRelative(i), RelativeDecisions: a.RelativeCount,
			SourcesAllowedAbove: a.AllowedAbove, PeakAllowedAbove: a.PeakAllowedAbove, SourcesLimitedBelow: a.LimitedBelow,
		})
	}
	for _, d := range Definitions {
		out.Definitions[d.Term] = d.Meaning
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func rulesName(r algo.Rules) string {
	if n := r.Name(); n != "" {
		return n
	}
	return "lesson"
}

// ParseCount reads a request or source count: digits with an optional
// suffix K (thousand), M (million), G or B (billion), any case, and
// optional _ or , separators: "400M", "270k", "1.5G", "10_000_000".
func ParseCount(s string) (int64, error) {
	t := strings.NewReplacer("_", "", ",", "").Replace(strings.TrimSpace(s))
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1e3
		case 'm', 'M':
			mult = 1e6
		case 'g', 'G', 'b', 'B':
			mult = 1e9
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	if mult == 1 {
		n, err := strconv.ParseInt(t, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not a count; use a whole number with an optional K, M or G suffix, like 400M", s)
		}
		return n, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*mult > 1e18 || strings.ContainsAny(t, "eE") {
		return 0, fmt.Errorf("%q is not a count; use a whole number with an optional K, M or G suffix, like 400M", s)
	}
	n := v * mult
	if n != float64(int64(n)) {
		return 0, fmt.Errorf("%q is not a whole number of requests", s)
	}
	return int64(n), nil
}
