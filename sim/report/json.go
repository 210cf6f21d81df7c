package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// The JSON report's shapes, the schema's source (schema/run.schema.json,
// generated from them by the tests). Instants are milliseconds since
// midnight (at_ms), or since the Unix epoch for a dated replay; the same
// instants are also given as text for people.

// SchemaVersion is the version of the JSON outputs' contract (run, replay,
// memory, lab): it changes when a field is renamed, removed or changes its
// meaning, not when one is added.
const SchemaVersion = 1

type jsonScenario struct {
	Name     string `json:"name" jsonschema_description:"the scenario's name: a built-in's, or the file's without its extension"`
	Title    string `json:"title,omitempty" jsonschema_description:"its title, when it has one"`
	Limit    int64  `json:"limit" jsonschema_description:"requests allowed per window"`
	WindowMs int64  `json:"window_ms" jsonschema_description:"the window, in milliseconds"`
	Window   string `json:"window" jsonschema_description:"the window, for people: 1m, 1h30m"`
	// Burst is the token bucket's capacity (a scenario's burst:, replay's
	// --burst) when one runs and it is not the limit.
	Burst  int64 `json:"burst,omitempty" jsonschema_description:"the token bucket's capacity in tokens, when a token bucket runs and it is not the limit; absent otherwise"`
	Expiry bool  `json:"expiry" jsonschema_description:"whether limiters drop state that can no longer matter (false: the lesson's forgotten TTL)"`
	// OffsetMs moves the window edges (Config.Offset): windows start at
	// offset_ms plus multiples of window_ms since the Unix epoch. Left out
	// when 0, as every scenario without tz: has it.
	OffsetMs int64 `json:"offset_ms,omitempty" jsonschema_description:"window edges lie at offset_ms plus multiples of window_ms since the Unix epoch; absent when 0"`
	Requests int64 `json:"requests" jsonschema_description:"how many requests the scenario makes"`
}

type jsonMemory struct {
	Clients int64 `json:"clients" jsonschema_description:"clients with state"`
	Entries int64 `json:"entries" jsonschema_description:"counters, timestamps or buckets held"`
	Bytes   int64 `json:"bytes" jsonschema_description:"bytes a map keyed by client name holds for them"`
}

type jsonAlgorithm struct {
	Name               string     `json:"name" jsonschema_description:"the limiter as the CLI names it: sliding-counter, sliding-counter/httprate, fixed-window@3"`
	Allowed            int64      `json:"allowed"`
	Denied             int64      `json:"denied"`
	MaxInWindow        int64      `json:"max_in_window" jsonschema_description:"the most requests admitted to one client in any interval one window long"`
	MaxInWindowClient  string     `json:"max_in_window_client,omitempty" jsonschema_description:"that client"`
	MaxInWindowFirstMs int64      `json:"max_in_window_first_ms" jsonschema_description:"the first admitted request of that interval"`
	MaxInWindowLastMs  int64      `json:"max_in_window_last_ms" jsonschema_description:"and its last"`
	Summary            string     `json:"summary" jsonschema_description:"the lesson's line for this limiter"`
	PeakMemory         jsonMemory `json:"peak_memory" jsonschema_description:"the most held after any decision, each figure its own peak"`
	Memory             jsonMemory `json:"memory" jsonschema_description:"held at the end, as a store with TTLs holds it"`
	Delayed            *int64     `json:"delayed,omitempty" jsonschema_description:"a delaying limiter's (token-bucket/nginx): of the allowed, how many it held before serving"`
	MaxDelayMs         *int64     `json:"max_delay_ms,omitempty" jsonschema_description:"a delaying limiter's: the longest hold, in ms"`
	// Without is set on a limiter deciding on a store under --on-store-error allow or deny.
	Without *int64 `json:"decided_without_store,omitempty" jsonschema_description:"on a Redis store under --on-store-error allow or deny: how many decisions were that policy's, the store not answering (a primary failing over); absent otherwise"`
	// Servers are a fleet's (fixed-window@3) figures server by server.
	Servers []jsonServer `json:"servers,omitempty" jsonschema_description:"a fleet's figures, server by server"`
	// ReplicaLost is a lagged tally's (fixed-window~lag=200ms@12:00:31).
	ReplicaLost *int64 `json:"replica_lost,omitempty" jsonschema_description:"a tally whose replica trails (~lag=): the writes lost when the replica took over"`
}

type jsonServer struct {
	Allowed int64 `json:"allowed"`
	Denied  int64 `json:"denied"`
}

// jsonDecision holds the evidence of one kind; fields of other kinds are omitted.
type jsonDecision struct {
	Allowed       bool     `json:"allowed"`
	Explain       string   `json:"explain" jsonschema_description:"the decision's arithmetic in the lesson's words: 30 + 84 × 0.75 = 93 → allow (93 < 100)"`
	WindowStartMs *int64   `json:"window_start_ms,omitempty" jsonschema_description:"fixed window, sliding counter: the start of the window holding the request"`
	Count         *int64   `json:"count,omitempty" jsonschema_description:"fixed window: requests counted in the window before this one"`
	InWindow      *int64   `json:"in_window,omitempty" jsonschema_description:"sliding log: timestamps in the last window before this request"`
	OldestMs      *int64   `json:"oldest_ms,omitempty" jsonschema_description:"sliding log: the oldest of them, when there is one"`
	Previous      *int64   `json:"previous,omitempty" jsonschema_description:"sliding counter: the previous window's count"`
	Current       *int64   `json:"current,omitempty" jsonschema_description:"sliding counter: the current window's count before this request"`
	ElapsedMs     *int64   `json:"elapsed_ms,omitempty" jsonschema_description:"sliding counter: milliseconds since the current window began"`
	Weight        *float64 `json:"weight,omitempty" jsonschema_description:"sliding counter: the overlap weight, for display; exact: weight_fraction"`
	Estimate      *float64 `json:"estimate,omitempty" jsonschema_description:"sliding counter: the estimate, for display; exact: estimate_fraction"`
	WeightFrac    []int64  `json:"weight_fraction,omitempty" jsonschema_description:"sliding counter: the weight exactly, [numerator, denominator]"`
	EstimateFrac  []int64  `json:"estimate_fraction,omitempty" jsonschema_description:"sliding counter: the estimate exactly, [numerator, denominator]; the numerator may pass 2^53 (see estimate_fraction_exact)"`
	EstimateExact string   `json:"estimate_fraction_exact,omitempty" jsonschema_description:"sliding counter: the same fraction as decimal text, numerator/denominator, exact for a reader whose numbers are doubles"`
	TokensFrac    []int64  `json:"tokens_fraction,omitempty" jsonschema_description:"token bucket: the tokens before this request exactly, [numerator, denominator]; the numerator may pass 2^53 (see tokens_fraction_exact)"`
	TokensExact   string   `json:"tokens_fraction_exact,omitempty" jsonschema_description:"token bucket: the same fraction as decimal text"`
	Capacity      *int64   `json:"capacity,omitempty" jsonschema_description:"token bucket: its capacity in tokens"`
	Segments      *int64   `json:"segments,omitempty" jsonschema_description:"segmented window: S, the segments its window is split into"`
	SegmentStart  *int64   `json:"segment_start_ms,omitempty" jsonschema_description:"segmented window: the start of the segment holding the request; its S segments start S − 1 segments (of window_ms/S) before"`
	InSegments    *int64   `json:"in_segments,omitempty" jsonschema_description:"segmented window: requests counted in the last S segments before this one"`
	OldestSegment *int64   `json:"oldest_segment,omitempty" jsonschema_description:"segmented window: how many of them are in the oldest segment, which leaves the window next"`
	DelayMs       *int64   `json:"delay_ms,omitempty" jsonschema_description:"a delaying limiter (token-bucket/nginx), an allowed request: how long it is held before it is served, in ms (0: at once)"`
	WithoutStore  bool     `json:"without_store,omitempty" jsonschema_description:"on a Redis store under --on-store-error allow or deny: true when Redis did not answer and the policy decided (allowed is the policy's verdict, the other fields the in-process limiter's); absent otherwise"`
}

type jsonRequest struct {
	Index     int64                   `json:"index" jsonschema_description:"the request's place in the scenario, from 0"`
	AtMs      int64                   `json:"at_ms" jsonschema_description:"milliseconds since the scenario's midnight, or since the Unix epoch when time is given"`
	At        string                  `json:"at" jsonschema_description:"the instant for people: 12:00:59.000"`
	Time      string                  `json:"time,omitempty" jsonschema_description:"a dated instant (a replayed log's) in RFC 3339, UTC"`
	Client    string                  `json:"client"`
	Decisions map[string]jsonDecision `json:"decisions" jsonschema_description:"each limiter's decision, by its name"`
}

// JSON replays e from its start and writes one object:
// {"scenario": …, "requests": [...], "algorithms": [...], "complete": true}.
// Requests stream out as they are decided; the totals follow them.
// Interrupted (sim.Options.Interrupt), the object closes on what was
// decided, with "complete": false, and JSON returns ErrInterrupted.
func JSON(w io.Writer, h Header, e *sim.Engine) error {
	bw := bufio.NewWriter(w)
	e.SeekIndex(0)
	cfg := e.Config()
	sc, _ := json.Marshal(jsonScenario{
		Name: h.Name, Title: h.Title, Limit: cfg.Limit, WindowMs: int64(cfg.Window / time.Millisecond),
		Window: human.Duration(cfg.Window), Burst: bucketBurst(e), Expiry: !cfg.NoExpiry, OffsetMs: int64(cfg.Offset / time.Millisecond), Requests: e.Len(),
	})
	fmt.Fprintf(bw, `{"schema_version":%d,"scenario":`, SchemaVersion)
	bw.Write(escapeActs(sc))
	bw.WriteString(",\n\"requests\":[")
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var names []string
	for _, l := range e.Limiters() {
		names = append(names, algo.Of(l).String())
	}
	complete := true
	for r, ok := e.Step(); ok; r, ok = e.Step() {
		if r.Index > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		req := jsonRequest{Index: r.Index, AtMs: int64(r.Arrival.At), At: r.Arrival.At.String(),
			Client: r.Arrival.Client, Decisions: make(map[string]jsonDecision, len(r.Decisions))}
		if t := r.Arrival.At.Time(); r.Arrival.At.IsDated() && t.Year() <= 9999 { // RFC 3339 has four digits for the year
			req.Time = t.Format("2006-01-02T15:04:05.000Z07:00")
		}
		for i, d := range r.Decisions {
			j := decisionJSON(d)
			j.WithoutStore = r.WithoutStore&(1<<i) != 0
			req.Decisions[names[i]] = j
		}
		buf.Reset()
		if err := enc.Encode(req); err != nil {
			return err
		}
		bw.Write(escapeActs(buf.Bytes()))
		if (r.Index+1)%checkEvery == 0 {
			if err := bw.Flush(); err != nil {
				return err // a closed pipe or a full disk: no use going on
			}
			if e.StopRequested() {
				complete = false
				break
			}
		}
	}
	bw.WriteString("],\n\"algorithms\":")
	algos := algorithmsJSON(e)
	buf.Reset()
	if err := enc.Encode(algos); err != nil {
		return err
	}
	bw.Write(escapeActs(buf.Bytes()))
	fmt.Fprintf(bw, ",\"complete\":%t}\n", complete)
	if err := bw.Flush(); err != nil {
		return err
	}
	if !complete {
		return ErrInterrupted
	}
	return nil
}

// algorithmsJSON is each limiter's totals, the JSON report's "algorithms".
func algorithmsJSON(e *sim.Engine) []jsonAlgorithm {
	cfg := e.Config()
	var algos []jsonAlgorithm
	for _, s := range e.Stats() {
		algos = append(algos, jsonAlgorithm{
			Name: s.Algorithm.String(), Allowed: s.Allowed, Denied: s.Denied,
			MaxInWindow: s.MaxInWindow, MaxInWindowClient: s.MaxInWindowClient,
			MaxInWindowFirstMs: int64(s.MaxInWindowFirst), MaxInWindowLastMs: int64(s.MaxInWindowLast),
			Summary:    LessonLine(s, cfg.Limit, cfg.Window),
			PeakMemory: jsonMemory(s.PeakMemory), Memory: jsonMemory(s.Memory),
			Servers: servers(s.Servers),
		})
		if s.Algorithm.Lagged {
			n := s.ReplicaLost
			algos[len(algos)-1].ReplicaLost = &n
		}
		if delays(s) {
			n, ms := s.Delayed, s.MaxDelay.Milliseconds()
			algos[len(algos)-1].Delayed, algos[len(algos)-1].MaxDelayMs = &n, &ms
		}
		if n, ok := decidedWithoutStore(e, len(algos)-1); ok {
			algos[len(algos)-1].Without = &n
		}
	}
	return algos
}

// escapeActs writes, in JSON b, every character a terminal would act on
// (human.Acts) that encoding/json leaves as it is (DEL, C1, bidirectional
// controls) as its \u escape: the same string to a reader of JSON, and
// nothing a terminal acts on when the report is printed on one.
func escapeActs(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append([]byte(nil), b[:i]...)
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if human.Acts(string(r)) == 0 {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}

func decisionJSON(d algo.Decision) jsonDecision {
	j := jsonDecision{Allowed: d.Allowed, Explain: d.Explain()}
	count := d.Count
	switch d.Kind {
	case algo.KindFixedWindow:
		start := int64(d.WindowStart)
		j.WindowStartMs, j.Count = &start, &count
	case algo.KindSlidingLog:
		j.InWindow = &count
		if d.Count > 0 {
			oldest := int64(d.Oldest)
			j.OldestMs = &oldest
		}
	case algo.KindSlidingCounter:
		start, prev, elapsed := int64(d.WindowStart), d.Previous, int64(d.Elapsed/time.Millisecond)
		weight, estimate := d.Weight(), d.Estimate()
		wn, wd := d.WeightRat()
		en, ed := d.EstimateRat()
		j.WindowStartMs, j.Previous, j.Current, j.ElapsedMs = &start, &prev, &count, &elapsed
		j.Weight, j.Estimate = &weight, &estimate
		j.WeightFrac, j.EstimateFrac = []int64{wn, wd}, []int64{en, ed}
		// Exact whatever the counts: EstimateRat's int64 holds it while both
		// counts are at most MaxInt64/2W, as they are unless rejected
		// requests are counted by the billion.
		if lim := math.MaxInt64 / 2 / wd; d.Count <= lim && d.Previous <= lim {
			j.EstimateExact = strconv.FormatInt(en, 10) + "/" + strconv.FormatInt(wd, 10)
		} else {
			num := new(big.Int).Mul(big.NewInt(d.Count), big.NewInt(wd))
			num.Add(num, new(big.Int).Mul(big.NewInt(d.Previous), big.NewInt(wn)))
			j.EstimateExact = num.String() + "/" + strconv.FormatInt(wd, 10)
		}
	case algo.KindTokenBucket:
		tn, td := d.TokensRat()
		capacity := d.Capacity
		j.TokensFrac, j.TokensExact, j.Capacity = []int64{tn, td}, fmt.Sprintf("%d/%d", tn, td), &capacity
		if d.Rules.Bucket == algo.BucketNginx && d.Allowed {
			ms := d.Delay.Milliseconds()
			j.DelayMs = &ms
		}
	case algo.KindSegmentedWindow:
		segs, start, oldest := d.Segments, int64(d.WindowStart), d.Previous
		j.Segments, j.SegmentStart, j.InSegments, j.OldestSegment = &segs, &start, &count, &oldest
	default:
		j.Count = &count
	}
	return j
}

func servers(ts []algo.ServerTally) []jsonServer {
	var out []jsonServer
	for _, t := range ts {
		out = append(out, jsonServer{t.Allowed, t.Denied})
	}
	return out
}

// decidedWithoutStore is how many of limiter i's decisions its store's
// policy made, when it decides on a store that has one.
func decidedWithoutStore(e *sim.Engine, i int) (int64, bool) {
	if l, ok := e.Limiters()[i].(interface{ DecidedWithoutStore() (int64, bool) }); ok {
		return l.DecidedWithoutStore()
	}
	return 0, false
}
