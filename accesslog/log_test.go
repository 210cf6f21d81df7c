package accesslog

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"windowlab/algo"
	"windowlab/sim"
)

func at(s string) algo.Instant {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return algo.Instant(t.UnixMilli())
}

// arrivals reads every request of a log.
func arrivals(l *Log) []sim.Arrival {
	var out []sim.Arrival
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		// Each arrival carries its client's number in the log, one up, so
		// the engine finds the client without hashing its name.
		if want := l.ClientNumber(a.Client) + 1; a.Number != want || want <= 0 {
			panic(fmt.Sprintf("arrival %+v: number %d, want %d", a, a.Number, want))
		}
		a.Number = 0
		out = append(out, a)
	}
	return out
}

func read(t *testing.T, text string, opts Options) *Log {
	t.Helper()
	if opts.Name == "" {
		opts.Name = "test.log"
	}
	if opts.Reorder == 0 {
		opts.Reorder = DefaultReorder
	}
	l, err := Read(strings.NewReader(text), opts)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func same(t *testing.T, got []sim.Arrival, want []sim.Arrival) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d requests, want %d:\n got %v\nwant %v", len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("request %d: %v %q, want %v %q", i+1, got[i].At, got[i].Client, want[i].At, want[i].Client)
		}
	}
}

// A Combined log: a request from 2000 and a night across midnight, in the
// order they happened (a line 8 s back put in its place), IPv6, a time
// with milliseconds and a zone, escaped quotes; a garbage line, an
// impossible date and a line too far back named with their numbers.
func TestCombinedLog(t *testing.T) {
	data, err := os.ReadFile("testdata/combined.log")
	if err != nil {
		t.Fatal(err)
	}
	l := read(t, string(data), Options{})
	if l.Format != FormatCombined {
		t.Errorf("format %v, want combined", l.Format)
	}
	same(t, arrivals(l), []sim.Arrival{
		{At: at("2000-10-10T20:55:36Z"), Client: "127.0.0.1"},
		{At: at("2026-11-30T23:59:50Z"), Client: "10.0.0.4"},
		{At: at("2026-11-30T23:59:58Z"), Client: "10.0.0.2"},
		{At: at("2026-11-30T23:59:59Z"), Client: "2001:db8::1"},
		{At: at("2026-12-01T00:00:00Z"), Client: "10.0.0.2"},
		{At: at("2026-12-01T00:00:00Z"), Client: "10.0.0.3"},
		{At: at("2026-12-01T00:00:01.250Z"), Client: "10.0.0.5"},
		{At: at("2026-12-01T00:00:10Z"), Client: "10.0.0.7"},
	})
	if l.Lines != 12 || l.BadLines != 2 || l.LateLines != 1 || l.Digits != 3 {
		t.Errorf("lines %d, bad %d, late %d, digits %d; want 12, 2, 1, 3", l.Lines, l.BadLines, l.LateLines, l.Digits)
	}
	if len(l.Bad) != 2 || l.Bad[0].Line != 4 || l.Bad[1].Line != 12 || !strings.Contains(l.Bad[0].Why, `"a" is not a time`) {
		t.Errorf("bad lines %+v", l.Bad)
	}
	if len(l.Late) != 1 || l.Late[0].Line != 11 || !strings.Contains(l.Late[0].Why, "2026-11-30 23:59:57.000 is more than --reorder 5s before 2026-12-01 00:00:10.000") {
		t.Errorf("late lines %+v", l.Late)
	}
	if l.Resolution() != "times are to the millisecond" {
		t.Errorf("resolution %q", l.Resolution())
	}
}

// --key picks who a client is, as real limiters key.
func TestKeys(t *testing.T) {
	line := `10.0.0.2 - alice [01/Dec/2026:00:00:00 +0000] "GET /api/items?x=1 HTTP/1.1" 429 512 "-" "curl/8.0"` + "\n" +
		`10.0.0.3 - - [01/Dec/2026:00:00:01 +0000] "-" 400 0 "-" "-"` + "\n"
	for key, want := range map[string][]string{
		"ip":            {"10.0.0.2", "10.0.0.3"},
		"user":          {"alice", "-"},
		"path":          {"/api/items", "-"},
		"status":        {"429", "400"},
		"ip+path":       {"10.0.0.2 /api/items", "10.0.0.3 -"},
		"method+status": {"GET 429", "- 400"},
		"field:agent":   {"curl/8.0", "-"},
	} {
		k, err := ParseKey(key)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range arrivals(read(t, line, Options{Key: k})) {
			got = append(got, a.Client)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("--key %s: %q, want %q", key, got, want)
		}
	}
	if _, err := ParseKey("ip+port"); err == nil || !strings.Contains(err.Error(), `"port" is not a part of a key`) {
		t.Errorf("--key ip+port: %v", err)
	}
}

// JSON Lines, CSV and TSV: the time and client by their usual names or
// the ones given, times in RFC 3339 or since the epoch (by magnitude).
func TestFieldFormats(t *testing.T) {
	want := []sim.Arrival{
		{At: at("2026-11-30T23:59:59.250Z"), Client: "a"},
		{At: at("2026-12-01T00:00:00Z"), Client: "b"},
		{At: at("2026-12-01T00:00:00.500Z"), Client: "c, d"},
		{At: at("2026-12-01T00:00:01Z"), Client: "e"},
	}
	jsonl := `{"ts":"2026-11-30T23:59:59.250Z","remote_addr":"a","nested":{"x":[1,{"y":"}"}]}}
{"ts":1796083200,"remote_addr":"b","status":200}
{"ts":"1796083200500","remote_addr":"c, d"}
not json
{"ts":1796083201000000,"remote_addr":"e","note":"caf\u00e9 \"quoted\""}
`
	l := read(t, jsonl, Options{})
	same(t, arrivals(l), want)
	if l.Format != FormatJSON || l.BadLines != 1 || l.Bad[0].Line != 4 {
		t.Errorf("json: format %v, bad %+v", l.Format, l.Bad)
	}
	csv := "when,who,path\n2026-11-30T23:59:59.250Z,a,/x\n2026-12-01T00:00:00Z,b,/x\n2026-12-01 00:00:00.500+00:00,\"c, d\",/x\n1796083201,e,/y\n"
	same(t, arrivals(read(t, csv, Options{TimeField: "when", ClientField: "who"})), want)
	tsv := "ip\ttime\n a\t2026-11-30T23:59:59.250Z\nb\t01/Dec/2026:00:00:00 +0000\nc, d\t2026-12-01T01:00:00.500+01:00\ne\t1796083201.000\n"
	tl := read(t, tsv, Options{})
	if tl.Format != FormatTSV {
		t.Fatalf("tsv detected as %v", tl.Format)
	}
	got := arrivals(tl)
	if len(got) == 4 {
		got[0].Client = strings.TrimSpace(got[0].Client)
	}
	same(t, got, want)
	// A field that is not there is named, with the fields that are.
	_, err := Read(strings.NewReader(jsonl), Options{Name: "x.jsonl", TimeField: "time"})
	if err == nil || !strings.Contains(err.Error(), `x.jsonl:1: the time's field "time" is not in the first record, which has ts, remote_addr, nested`) {
		t.Errorf("a missing time field: %v", err)
	}
}

// A gzip-compressed log reads as the plain one; a cut one says so.
func TestGzip(t *testing.T) {
	data, err := os.ReadFile("testdata/combined.log")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(data)
	w.Close()
	l, err := Read(bytes.NewReader(z.Bytes()), Options{Name: "access.log.gz", Reorder: DefaultReorder})
	if err != nil {
		t.Fatal(err)
	}
	same(t, arrivals(l), arrivals(read(t, string(data), Options{})))
	_, err = Read(bytes.NewReader(z.Bytes()[:z.Len()/2]), Options{Name: "cut.gz", Reorder: DefaultReorder})
	if err == nil || !strings.Contains(err.Error(), "cut.gz: after line") || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("a truncated gzip: %v", err)
	}
}

// --strict stops at the first bad line, naming it.
func TestStrict(t *testing.T) {
	data, _ := os.ReadFile("testdata/combined.log")
	_, err := Read(bytes.NewReader(data), Options{Name: "access.log", Strict: true, Reorder: DefaultReorder})
	if err == nil || !strings.HasPrefix(err.Error(), `access.log:4: "a" is not a time`) {
		t.Errorf("--strict: %v", err)
	}
}

// A log of more clients than windowlab keeps stops with a message that
// says so, naming the line, rather than running out of memory.
func TestTooManyClients(t *testing.T) {
	clientLimit = 2000
	t.Cleanup(func() { clientLimit = MaxClients })
	var b strings.Builder
	for i := 0; i <= clientLimit; i++ {
		fmt.Fprintf(&b, "{\"ts\":%d,\"ip\":\"c%d\"}\n", 1796083200+i/1000, i)
	}
	_, err := Read(strings.NewReader(b.String()), Options{Name: "many.jsonl", Reorder: DefaultReorder})
	if err == nil || !strings.Contains(err.Error(), "many.jsonl:2001: more than 2,000 clients by --key ip") {
		t.Fatalf("%d clients: %v", clientLimit+1, err)
	}
}

// A time past 9999-12-31T23:59:59.999Z in UTC (a year-9999 date with a
// western offset) is refused, naming its line, as a number past it is:
// reports write times in RFC 3339, which has no year 10000.
func TestNoYear10000(t *testing.T) {
	for _, line := range []string{
		`{"time":"9999-12-31T23:59:59-01:00","ip":"a"}`,
		`1.2.3.4 - - [31/Dec/9999:23:59:59 -0100] "GET / HTTP/1.1" 200 1 "-" "-"`,
		`{"ts":253402300800,"ip":"a"}`,
	} {
		_, err := Read(strings.NewReader(line+"\n"), Options{Name: "late.log", Strict: true, Reorder: DefaultReorder})
		if err == nil || !strings.HasPrefix(err.Error(), `late.log:1: "`) || !strings.Contains(err.Error(), "is not a time") {
			t.Errorf("%s: %v, want the line refused", line, err)
		}
	}
	if _, err := Read(strings.NewReader(`{"time":"9999-12-31T23:59:59+01:00","ip":"a"}`+"\n"), Options{Name: "ok.log", Strict: true, Reorder: DefaultReorder}); err != nil {
		t.Errorf("the year 9999 in UTC: %v", err)
	}
}
