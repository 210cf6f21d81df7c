package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"windowlab/algo"
)

// MemoryQuestion is what the memory calculator is asked.
type MemoryQuestion struct {
	Limit    int64
	Window   time.Duration
	Clients  int64
	KeyBytes int
	Kinds    []algo.Kind
}

// Footprints answers q for each of its kinds.
func Footprints(q MemoryQuestion) ([]algo.Footprint, error) {
	var out []algo.Footprint
	for _, k := range q.Kinds {
		f, err := algo.WorstCase(k, algo.Config{Limit: q.Limit, Window: q.Window}, q.Clients, q.KeyBytes)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// MemoryText writes the worst-case state of each limiter, in process and in
// Redis, with the assumptions behind the figures.
func MemoryText(w io.Writer, q MemoryQuestion) error {
	fs, err := Footprints(q)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Worst case: %s clients, each at its limit of %s per %s\n\n",
		Thousands(big.NewInt(q.Clients)), Thousands(big.NewInt(q.Limit)), Duration(q.Window))
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "\tstate kept at worst\tin windowlab's memory\tin Redis\t")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t\n", f.Kind, Thousands(f.Entries), unitName(f.Kind, f.Entries),
			SIBytes(f.Bytes), SIBytes(f.RedisBytes))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, f := range fs {
		if f.Kind == algo.KindSlidingLog {
			fmt.Fprintf(w, "The sliding log keeps %s timestamps: its memory grows with the limit, not with the number of active clients.\n",
				Words(f.Entries))
		}
		if f.Kind == algo.KindSlidingCounter {
			fmt.Fprintln(w, "The sliding counter keeps two counters per client, whatever the limit.")
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Assumptions:")
	fmt.Fprintln(w, "- the worst case: every client has used its whole limit within the last window;")
	fmt.Fprintf(w, "- in windowlab's memory: its own structures, per client a map slot (24 B), the client id (%d B) and the\n", q.KeyBytes)
	fmt.Fprintln(w, "  state (fixed window 16 B, sliding counter 24 B, sliding log 32 B plus 8 B a timestamp, token bucket 16 B);")
	fmt.Fprintln(w, "  a Go map keeps spare capacity on top, up to about twice the slot figure;")
	m := algo.RedisModel
	fmt.Fprintf(w, "- in Redis: 7.0.15 with jemalloc on 64 bits, measured as INFO used_memory over 100,000 keys: a counter\n")
	fmt.Fprintf(w, "  (string with a TTL) %d B; a sorted set %d B plus %d B a member up to %d members (listpack) or\n",
		m.StringWithTTL, m.SortedSetKeyWithTTL, m.ListpackMember, m.ListpackMaxMembers)
	fmt.Fprintf(w, "  %d B a member beyond (skiplist); a bucket (hash of two fields with a TTL) %d B.\n", m.SkiplistMember, m.HashWithTTL)
	return nil
}

// MemoryJSON writes the same figures as one JSON object; byte counts are
// decimal strings, since they can exceed what a JSON number holds exactly.
func MemoryJSON(w io.Writer, q MemoryQuestion) error {
	fs, err := Footprints(q)
	if err != nil {
		return err
	}
	type row struct {
		Name           string `json:"name"`
		Entries        string `json:"entries"`
		Unit           string `json:"unit"`
		Bytes          string `json:"bytes"`
		PerClientBytes int64  `json:"per_client_bytes"`
		PerEntryBytes  int64  `json:"per_entry_bytes"`
		RedisBytes     string `json:"redis_bytes"`
		RedisStructure string `json:"redis_structure"`
	}
	doc := struct {
		Limit      int64 `json:"limit"`
		WindowMs   int64 `json:"window_ms"`
		Clients    int64 `json:"clients"`
		KeyBytes   int   `json:"key_bytes"`
		Algorithms []row `json:"algorithms"`
	}{q.Limit, int64(q.Window / time.Millisecond), q.Clients, q.KeyBytes, nil}
	for _, f := range fs {
		doc.Algorithms = append(doc.Algorithms, row{f.Kind.String(), f.Entries.String(), unitName(f.Kind, f.Entries),
			f.Bytes.String(), f.PerClient, f.PerEntry, f.RedisBytes.String(), f.RedisStructure})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func unitName(k algo.Kind, n *big.Int) string {
	one := n.Cmp(big.NewInt(1)) == 0
	switch {
	case k == algo.KindSlidingLog && one:
		return "timestamp"
	case k == algo.KindSlidingLog:
		return "timestamps"
	case k == algo.KindTokenBucket && one:
		return "bucket"
	case k == algo.KindTokenBucket:
		return "buckets"
	case one:
		return "counter"
	}
	return "counters"
}

// Thousands writes n with commas: 10,000,000,000.
func Thousands(n *big.Int) string { return commas(n.String()) }

// Count writes n with commas: 400,000,000.
func Count(n int64) string { return commas(strconv.FormatInt(n, 10)) }

// commas groups the digits of a decimal integer in threes.
func commas(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// Words says a large count the way the lesson does: "10 billion".
func Words(n *big.Int) string {
	for _, u := range []struct {
		name string
		exp  int64
	}{{"trillion", 12}, {"billion", 9}, {"million", 6}} {
		unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(u.exp), nil)
		if n.Cmp(unit) >= 0 {
			return ratString(new(big.Rat).SetFrac(n, unit)) + " " + u.name
		}
	}
	return Thousands(n)
}

// ratString prints r with at most one decimal, without a trailing .0.
func ratString(r *big.Rat) string {
	s := r.FloatString(1)
	return strings.TrimSuffix(s, ".0")
}

// SIBytes prints a byte count in decimal units (kB, MB, GB, TB), as storage
// is sold and as Redis's INFO reports it in its human fields.
func SIBytes(n *big.Int) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	r := new(big.Rat).SetInt(n)
	thousand := big.NewRat(1000, 1)
	i := 0
	for i < len(units)-1 && r.Cmp(thousand) >= 0 {
		r.Quo(r, thousand)
		i++
	}
	if i == 0 {
		return n.String() + " B"
	}
	return r.FloatString(1) + " " + units[i]
}
