// Package loggen writes the benchmark's access log: deterministic for a
// seed, a 24-hour day of a busy site's requests, clients drawn Zipf-like
// (a few send much, most little) plus a few heavy clients that send far
// more than any limit, in nginx's Combined or as JSON Lines, gzip or not.
// BENCHMARKS.md's figures are measured on its logs (cmd/genlog writes
// one); it draws with floats, which only shape the log, never a decision.
package loggen

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Options say which log to write.
type Options struct {
	Seed    uint64
	Lines   int64
	Clients int    // the Zipf-like clients, 1 or more
	Heavy   int    // heavy clients besides, 0 or more
	Format  string // "combined" or "jsonl"
	Gzip    bool
	// Start is the first day's first instant; zero is 2026-11-30 00:00 UTC.
	Start time.Time
	// Days spreads the lines over that many days, each the same shape and
	// as busy (0 is 1): a longer log at the same clients and the same rate.
	Days int
}

// maxDays is the most days a log may be spread over: ten years.
const maxDays = 3650

// heavyShare is the share of the lines the heavy clients send together.
const heavyShare = 0.05

// Validate says what is wrong with o, naming the flag.
func (o Options) Validate() error {
	switch {
	case o.Lines < 0:
		return errors.New("-lines: give 0 or more lines")
	case o.Clients < 1:
		return errors.New("-clients: give 1 or more clients")
	case o.Heavy < 0:
		return errors.New("-heavy: give 0 or more heavy clients")
	case o.Days < 0 || o.Days > maxDays:
		return fmt.Errorf("-days: give 1 to %d days", maxDays)
	case o.Format != "combined" && o.Format != "jsonl":
		return fmt.Errorf("-format %q: give combined or jsonl", o.Format)
	}
	return nil
}

var (
	paths  = []string{"/", "/api/items", "/api/items?page=2", "/api/cart", "/login", "/static/app.js", "/static/app.css", "/health", "/search?q=rate+limit"}
	agents = []string{"Mozilla/5.0 (X11; Linux x86_64)", "Mozilla/5.0 (Windows NT 10.0; Win64; x64)", "curl/8.5.0", "Go-http-client/1.1", "python-requests/2.31"}
)

// Write writes the log o describes to w: the same bytes for the same
// options.
func Write(w io.Writer, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	start := o.Start
	if start.IsZero() {
		start = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	}
	var gz *gzip.Writer
	if o.Gzip {
		gz, _ = gzip.NewWriterLevel(w, gzip.DefaultCompression)
		w = gz
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	var zipf *rand.Zipf
	if o.Clients > 1 {
		zipf = rand.NewZipf(rng, 1.1, 10, uint64(o.Clients-1)) // v 10: the busiest sends some 2%
	}
	day := float64(24 * time.Hour / time.Millisecond)
	days := int64(max(o.Days, 1))
	buf := make([]byte, 0, 512)
	var d, lo, hi int64 = -1, 0, 0 // line i is day d's, which holds lines [lo, hi)
	for i := range o.Lines {
		for i >= hi { // a day may hold no line when the days outnumber the lines
			d++
			lo, hi = ceilDiv(d*o.Lines, days), ceilDiv((d+1)*o.Lines, days)
		}
		// The day's shape: quiet at night, busiest in the afternoon.
		at := start.Add(time.Duration(d)*24*time.Hour + time.Duration(dayAt((float64(i-lo)+0.5)/float64(hi-lo))*day)*time.Millisecond)
		ip := clientIP(rng, zipf, o)
		buf = line(buf[:0], o.Format, at, ip, rng)
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if gz != nil {
		return gz.Close()
	}
	return nil
}

// ceilDiv is ⌈a / b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// dayAt is the fraction of the day by which a share u of its requests
// has come: the inverse of the integral of 1 − 0.6·cos(2π(t − 1/24)),
// busiest at 13:00, found by bisection.
func dayAt(u float64) float64 {
	cdf := func(t float64) float64 {
		return t - 0.6*(math.Sin(2*math.Pi*(t-1.0/24))+math.Sin(2*math.Pi/24))/(2*math.Pi)
	}
	lo, hi := 0.0, 1.0
	for range 40 {
		mid := (lo + hi) / 2
		if cdf(mid) < u {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// clientIP draws the line's client: a heavy one (198.18.0.x) for
// heavyShare of the lines, else a Zipf-like one in 10/8, its rank
// scattered over the addresses.
func clientIP(rng *rand.Rand, zipf *rand.Zipf, o Options) string {
	if o.Heavy > 0 && rng.Float64() < heavyShare {
		return "198.18.0." + strconv.Itoa(1+rng.IntN(o.Heavy)%254)
	}
	var c uint64
	if zipf != nil {
		c = zipf.Uint64()
	}
	c = (c*0x9e3779b1 + 12345) & (1<<24 - 1) // a bijection of 24 bits
	return fmt.Sprintf("10.%d.%d.%d", c>>16, c>>8&255, c&255)
}

// line appends one request in format.
func line(b []byte, format string, at time.Time, ip string, rng *rand.Rand) []byte {
	path, agent := paths[rng.IntN(len(paths))], agents[rng.IntN(len(agents))]
	status, size := 200, 200+rng.IntN(20000)
	if rng.IntN(50) == 0 {
		status = 404
	}
	if format == "jsonl" {
		b = append(b, `{"time":"`...)
		b = at.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
		b = append(b, `","remote_addr":"`...)
		b = append(b, ip...)
		b = append(b, `","method":"GET","path":`...)
		b = strconv.AppendQuote(b, path)
		b = append(b, `,"status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, int64(size), 10)
		b = append(b, `,"user_agent":`...)
		b = strconv.AppendQuote(b, agent)
		return append(b, "}\n"...)
	}
	b = append(b, ip...)
	b = append(b, " - - ["...)
	b = at.AppendFormat(b, "02/Jan/2006:15:04:05 -0700")
	b = append(b, `] "GET `...)
	b = append(b, path...)
	b = append(b, ` HTTP/1.1" `...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(size), 10)
	b = append(b, ` "-" "`...)
	b = append(b, agent...)
	return append(b, "\"\n"...)
}
