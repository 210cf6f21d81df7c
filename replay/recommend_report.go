package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim/report"
)

// Bucket is one bar of the peaks' histogram: the clients whose sliding
// peak is from From to To.
type Bucket struct {
	From    int64 `json:"from"`
	To      int64 `json:"to"`
	Clients int64 `json:"clients"`
}

// Histogram counts the clients by their sliding peak in buckets that
// double: 1, 2–3, 4–7, 8–15… up to the largest peak.
func (r *Recommendation) Histogram() []Bucket {
	var out []Bucket
	for _, p := range r.Peaks.Of(r.Peaks.Sliding) {
		i := 0
		for v := p; v > 1; v >>= 1 {
			i++
		}
		for len(out) <= i {
			from := int64(1) << len(out)
			out = append(out, Bucket{From: from, To: 2*from - 1})
		}
		out[i].Clients++
	}
	return out
}

// PrintRecommendation is --recommend's text report, its sentences and
// tables within report.Width.
func PrintRecommendation(w io.Writer, r *Recommendation) {
	win := human.Duration(r.Config.Window)
	clientsN := human.Noun{One: "client", Many: "clients"}
	io.WriteString(w, human.Wrap("", "  ", fmt.Sprintf("each client's most requests in one %s window, over the log's %s (percentiles by nearest rank):",
		win, human.Glue(clientsN.Of(r.Clients))), report.Width))
	rows := []struct {
		what  string
		peaks []int64
	}{{"in any " + win + " (sliding)", r.Peaks.Of(r.Peaks.Sliding)}, {"in one aligned " + win + " window (calendar)", r.Peaks.Of(r.Peaks.Aligned)}}
	ww, vw := 0, 0
	for _, row := range rows {
		ww = max(ww, len(row.what))
		for _, v := range Percentiles(row.peaks) {
			vw = max(vw, len(human.Int(v)))
		}
	}
	for _, p := range percentiles {
		vw = max(vw, len(p.name))
	}
	fmt.Fprintf(w, "  %-*s", ww, "")
	for _, p := range percentiles {
		fmt.Fprintf(w, "  %*s", vw, p.name)
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		fmt.Fprintf(w, "  %-*s", ww, row.what)
		for _, v := range Percentiles(row.peaks) {
			fmt.Fprintf(w, "  %*s", vw, human.Int(v))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nclients by their most in any %s:\n", win)
	hist := r.Histogram()
	var top int64
	for _, b := range hist {
		top = max(top, b.Clients)
	}
	for _, b := range hist {
		span := human.Int(b.From)
		if b.To > b.From {
			span += "–" + human.Int(b.To)
		}
		bar := strings.Repeat("█", int((b.Clients*30+top-1)/max(top, 1)))
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  %15s %10s %s", span, human.Int(b.Clients), bar), " "))
	}
	printCandidates(w, r)
	printPicks(w, r)
}

// printCandidates is the table of every limiter at each candidate limit,
// its rows under their limit, as the sweep's are under their setting.
func printCandidates(w io.Writer, r *Recommendation) {
	if len(r.Candidates) == 0 {
		return
	}
	io.WriteString(w, "\n"+human.Wrap("", "  ", "denied at candidate limits (the sliding peaks' percentiles, round limits from their p50 to their max, each limiter's pick):", report.Width))
	tw, cw, qw := len("limiter"), len("clients"), len("requests")
	for _, d := range r.Candidates {
		tw = max(tw, len(rowIndent)+utf8.RuneCountInString(d.Algorithm.Title()))
		cw = max(cw, len(human.Int(d.Clients)))
		qw = max(qw, len(human.Int(d.Requests)))
	}
	row := "  %-*s  %*s  %7s  %*s  %7s"
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(row, tw, "", cw, "clients", "", qw, "requests", ""), " "))
	fmt.Fprintf(w, row+"\n", tw, "limiter", cw, "denied", "share", qw, "denied", "share")
	for i, d := range r.Candidates {
		if i == 0 || r.limitText(d) != r.limitText(r.Candidates[i-1]) {
			fmt.Fprintf(w, "  %s\n", r.limitText(d))
		}
		fmt.Fprintf(w, row+"\n", tw, rowIndent+d.Algorithm.Title(), cw, human.Int(d.Clients), percent(d.Clients, r.Clients),
			qw, human.Int(d.Requests), percent(d.Requests, r.Requests))
	}
}

// printPicks says each limiter's smallest limit, the one below it and the
// smallest round one, a sentence each wrapped within report.Width.
func printPicks(w io.Writer, r *Recommendation) {
	io.WriteString(w, "\n"+human.Wrap("", "  ", fmt.Sprintf("the smallest limit denying at most %s of clients (each limit replayed through the limiter):", r.Share.Text), report.Width))
	share := func(noun human.Noun, n, of int64) string {
		return human.Glue(fmt.Sprintf("%s (%s)", noun.Of(n), percent(n, of)))
	}
	denying := func(d *Denial) string {
		return share(clientsNoun, d.Clients, r.Clients) + " and " + share(requestsNoun, d.Requests, r.Requests)
	}
	for i, p := range r.Picks {
		title := r.Algorithms[i].Title()
		if p != nil {
			title = p.Algorithm.Title()
		}
		var text string
		switch {
		case p == nil:
			text = "not found: stopped early."
		case p.At == nil && p.Algorithm.Kind == algo.KindTokenBucket:
			// A bucket's capacity is --burst whatever the limit: a burst
			// larger than it is turned away at any rate.
			text = fmt.Sprintf("none at %s: a client's burst of more is turned away at every limit tried; try a larger --burst.",
				bucketText(r.Config, p.Algorithm))
		case p.At == nil:
			text = "none: even a limit of a client's every request denies more."
		default:
			text = human.Glue(r.limitText(*p.At)) + " denies " + denying(p.At)
			if b := p.Below; b != nil {
				text += fmt.Sprintf("; %s would deny %s", human.Glue(r.limitText(*b)), share(clientsNoun, b.Clients, r.Clients))
			}
			text += "."
			if d := p.Round; d != nil && d.Limit != p.At.Limit {
				text += fmt.Sprintf(" The smallest round limit meeting it: %s, denying %s.", human.Glue(r.limitText(*d)), denying(d))
			}
		}
		io.WriteString(w, human.Wrap("  "+title+": ", "    ", text, report.Width))
	}
}

// PerWindow is a limit as the report writes it: "20 per 1m".
func PerWindow(limit int64, window time.Duration) string {
	return human.Int(limit) + " per " + human.Duration(window)
}

// percent is n of total, to two decimals.
func percent(n, total int64) string {
	if total == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(n)/float64(total))
}

// RecommendDocument is --recommend --json's report.
type RecommendDocument struct {
	SchemaVersion int    `json:"schema_version"`
	Log           string `json:"log"`
	Clients       int64  `json:"clients"`
	Requests      int64  `json:"requests"`
	WindowMs      int64  `json:"window_ms"`
	OffsetMs      int64  `json:"offset_ms" jsonschema:"description=where the aligned windows' edges fall past multiples of the window since the epoch (--tz)"`
	DenyAtMost    string `json:"deny_at_most" jsonschema:"description=the share of clients as given, such as 0.1%"`
	Complete      bool   `json:"complete" jsonschema:"description=false when interrupted: what is missing was not replayed"`
	// Sliding and Aligned are the peaks' percentiles over clients.
	Sliding    PeakPercentiles `json:"sliding" jsonschema:"description=each client's most requests in any half-open interval one window long"`
	Aligned    PeakPercentiles `json:"aligned" jsonschema:"description=each client's most requests in one aligned (calendar) window"`
	Histogram  []Bucket        `json:"histogram" jsonschema:"description=clients by their sliding peak"`
	Candidates []DenialJSON    `json:"candidates"`
	Smallest   []PickJSON      `json:"smallest" jsonschema:"description=each limiter's smallest limit denying at most deny_at_most of clients"`
}

// PeakPercentiles are nearest-rank percentiles of clients' peaks.
type PeakPercentiles struct {
	P50  int64 `json:"p50"`
	P90  int64 `json:"p90"`
	P99  int64 `json:"p99"`
	P999 int64 `json:"p99_9"`
	Max  int64 `json:"max"`
}

// DenialJSON is one limiter at one limit.
type DenialJSON struct {
	Algorithm      string `json:"algorithm"`
	Limit          int64  `json:"limit"`
	ClientsDenied  int64  `json:"clients_denied"`
	RequestsDenied int64  `json:"requests_denied"`
}

// PickJSON is one limiter's smallest limit; limit is absent when none
// was found (or the search was interrupted), below when it is 1.
type PickJSON struct {
	Algorithm string      `json:"algorithm"`
	Found     bool        `json:"found"`
	At        *DenialJSON `json:"at,omitempty"`
	Below     *DenialJSON `json:"below,omitempty" jsonschema:"description=the limit one less, which denies more than deny_at_most"`
	Round     *DenialJSON `json:"round,omitempty" jsonschema:"description=the smallest round limit (1, 2 or 5 times a power of ten) at or above at denying at most deny_at_most: the one to write in a config"`
	Probes    int         `json:"probes" jsonschema:"description=replays of the whole log the search took"`
}

func denialJSON(d *Denial) *DenialJSON {
	if d == nil {
		return nil
	}
	return &DenialJSON{Algorithm: d.Algorithm.String(), Limit: d.Limit, ClientsDenied: d.Clients, RequestsDenied: d.Requests}
}

func peakPercentiles(peaks []int64) PeakPercentiles {
	p := Percentiles(peaks)
	return PeakPercentiles{P50: p[0], P90: p[1], P99: p[2], P999: p[3], Max: p[4]}
}

// WriteRecommendationJSON writes r as a RecommendDocument.
func WriteRecommendationJSON(w io.Writer, name string, r *Recommendation) error {
	doc := RecommendDocument{SchemaVersion: 1, Log: name, Clients: r.Clients, Requests: r.Requests,
		WindowMs: r.Config.Window.Milliseconds(), OffsetMs: r.Config.Offset.Milliseconds(), DenyAtMost: r.Share.Text,
		Complete: r.Complete, Sliding: peakPercentiles(r.Peaks.Of(r.Peaks.Sliding)), Aligned: peakPercentiles(r.Peaks.Of(r.Peaks.Aligned)),
		Histogram: r.Histogram(), Candidates: []DenialJSON{}, Smallest: []PickJSON{}}
	for _, d := range r.Candidates {
		doc.Candidates = append(doc.Candidates, *denialJSON(&d))
	}
	for i, p := range r.Picks {
		pj := PickJSON{Algorithm: r.Algorithms[i].String()}
		if p != nil {
			pj.Found, pj.At, pj.Below, pj.Round, pj.Probes = p.At != nil, denialJSON(p.At), denialJSON(p.Below), denialJSON(p.Round), p.Probes
		}
		doc.Smallest = append(doc.Smallest, pj)
	}
	if doc.Histogram == nil {
		doc.Histogram = []Bucket{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// bucketText is a token bucket's capacity in words: "burst 0 (a bucket of
// 1)" for nginx's, "burst 10" for the others'.
func bucketText(cfg algo.Config, a algo.Algorithm) string {
	if nginx(a) {
		return fmt.Sprintf("burst %s (a bucket of %s)", human.Int(cfg.Burst), human.Int(cfg.Burst+1))
	}
	return "burst " + human.Int(cfg.Capacity())
}
