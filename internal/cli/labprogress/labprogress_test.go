package labprogress

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"windowlab/sim/lab"
)

// Off a terminal: plain lines, then the final one with the totals.
func TestPlainLines(t *testing.T) {
	o := lab.DefaultOptions
	o.Sources, o.Requests = 1000, 100_000
	r, err := lab.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Show(r, Options{Out: &out, Every: time.Millisecond})
	last := strings.TrimSpace(out.String())
	last = last[strings.LastIndex(last, "\n")+1:]
	if !strings.HasPrefix(last, "lab: 100,000 requests from 1,000 sources in ") || strings.Contains(out.String(), "\x1b[") {
		t.Errorf("output:\n%q", out.String())
	}
}

// The status line: counts, rate and the time left, from the counters alone.
func TestStatus(t *testing.T) {
	p := lab.Progress{Requests: 100_000_000, TotalRequests: 400_000_000}
	if got, want := status(p, 2*time.Second), "100M of 400M requests · 50M/s · 6s left"; got != want {
		t.Errorf("status = %q, want %q", got, want)
	}
}

// One source is "1 source"; a lab refused for memory shows no totals, only
// the error its caller prints.
func TestOneSourceAndARefusal(t *testing.T) {
	o := lab.DefaultOptions
	o.Sources, o.Requests = 1, 1000
	r, _ := lab.Start(context.Background(), o)
	var out bytes.Buffer
	Show(r, Options{Out: &out, Every: time.Millisecond})
	if !strings.Contains(out.String(), "lab: 1,000 requests from 1 source in ") {
		t.Errorf("one source:\n%q", out.String())
	}
	o.Limit, o.Window, o.Model.Median, o.Requests = 1_000_000_000, 7*24*time.Hour, 100, lab.MaxRequests
	r, _ = lab.Start(context.Background(), o)
	out.Reset()
	Show(r, Options{Out: &out, Every: time.Millisecond})
	if r.Err() == nil || strings.Contains(out.String(), "requests from") || strings.Contains(out.String(), "stopped after") {
		t.Errorf("refused (%v):\n%q", r.Err(), out.String())
	}
}
