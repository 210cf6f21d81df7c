package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/sim"
)

// The JSON report's shapes. Instants are milliseconds since midnight
// (at_ms); the same instants are also given as text for people.

type jsonScenario struct {
	Name     string `json:"name"`
	Title    string `json:"title,omitempty"`
	Limit    int64  `json:"limit"`
	WindowMs int64  `json:"window_ms"`
	Window   string `json:"window"`
	Expiry   bool   `json:"expiry"`
	// OffsetMs moves the window edges (Config.Offset): windows start at
	// offset_ms plus multiples of window_ms since the Unix epoch. Left out
	// when 0, as every scenario without tz: has it.
	OffsetMs int64 `json:"offset_ms,omitempty"`
	Requests int64 `json:"requests"`
}

type jsonMemory struct {
	Clients int64 `json:"clients"`
	Entries int64 `json:"entries"`
	Bytes   int64 `json:"bytes"`
}

type jsonAlgorithm struct {
	Name               string     `json:"name"`
	Allowed            int64      `json:"allowed"`
	Denied             int64      `json:"denied"`
	MaxInWindow        int64      `json:"max_in_window"`
	MaxInWindowClient  string     `json:"max_in_window_client,omitempty"`
	MaxInWindowFirstMs int64      `json:"max_in_window_first_ms"`
	MaxInWindowLastMs  int64      `json:"max_in_window_last_ms"`
	Summary            string     `json:"summary"`
	PeakMemory         jsonMemory `json:"peak_memory"`
	Memory             jsonMemory `json:"memory"`
	// Servers are a fleet's (fixed-window@3) figures server by server.
	Servers []jsonServer `json:"servers,omitempty"`
}

type jsonServer struct {
	Allowed int64 `json:"allowed"`
	Denied  int64 `json:"denied"`
}

// jsonDecision holds the evidence of one kind; fields of other kinds are omitted.
type jsonDecision struct {
	Allowed       bool     `json:"allowed"`
	Explain       string   `json:"explain"`
	WindowStartMs *int64   `json:"window_start_ms,omitempty"`
	Count         *int64   `json:"count,omitempty"`
	InWindow      *int64   `json:"in_window,omitempty"`
	OldestMs      *int64   `json:"oldest_ms,omitempty"`
	Previous      *int64   `json:"previous,omitempty"`
	Current       *int64   `json:"current,omitempty"`
	ElapsedMs     *int64   `json:"elapsed_ms,omitempty"`
	Weight        *float64 `json:"weight,omitempty"`   // for display; exact: weight_fraction
	Estimate      *float64 `json:"estimate,omitempty"` // for display; exact: estimate_fraction
	WeightFrac    []int64  `json:"weight_fraction,omitempty"`
	EstimateFrac  []int64  `json:"estimate_fraction,omitempty"`
}

type jsonRequest struct {
	Index     int64                   `json:"index"`
	AtMs      int64                   `json:"at_ms"`
	At        string                  `json:"at"`
	Time      string                  `json:"time,omitempty"` // a dated instant's date and time, RFC 3339 in UTC; at_ms is then since the epoch
	Client    string                  `json:"client"`
	Decisions map[string]jsonDecision `json:"decisions"`
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
		Window: human.Duration(cfg.Window), Expiry: !cfg.NoExpiry, OffsetMs: int64(cfg.Offset / time.Millisecond), Requests: e.Len(),
	})
	bw.WriteString(`{"scenario":`)
	bw.Write(sc)
	bw.WriteString(",\n\"requests\":[")
	enc := json.NewEncoder(bw)
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
		if r.Arrival.At.IsDated() {
			req.Time = r.Arrival.At.Time().Format("2006-01-02T15:04:05.000Z07:00")
		}
		for i, d := range r.Decisions {
			req.Decisions[names[i]] = decisionJSON(d)
		}
		if err := enc.Encode(req); err != nil {
			return err
		}
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
	}
	if err := enc.Encode(algos); err != nil {
		return err
	}
	fmt.Fprintf(bw, ",\"complete\":%t}\n", complete)
	if err := bw.Flush(); err != nil {
		return err
	}
	if !complete {
		return ErrInterrupted
	}
	return nil
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
