package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"text/tabwriter"
	"time"

	"windowlab/algo"
	"windowlab/human"
)

// MemoryQuestion is what the memory calculator is asked.
type MemoryQuestion struct {
	Limit    int64
	Window   time.Duration
	Clients  int64
	KeyBytes int
	Kinds    []algo.Kind
}

// MaxClients bounds the calculator to figures that stay meaningful.
const MaxClients = 1_000_000_000_000

// MaxKeyBytes bounds the length of a client id.
const MaxKeyBytes = 1024

// Validate reports the first setting out of range, as an *algo.OptionError.
func (q MemoryQuestion) Validate() error {
	if err := (algo.Config{Limit: q.Limit, Window: q.Window}).Validate(); err != nil {
		return err
	}
	if q.Clients < 1 || q.Clients > MaxClients {
		return algo.Problem("clients", "%d is out of range: it must be from 1 to %d", q.Clients, int64(MaxClients))
	}
	if q.KeyBytes < 0 || q.KeyBytes > MaxKeyBytes {
		return algo.Problem("key-bytes", "%d is out of range: it must be from 0 to %d", q.KeyBytes, MaxKeyBytes)
	}
	return nil
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
		human.Int(q.Clients), human.Int(q.Limit), human.Duration(q.Window))
	tw := tabwriter.NewWriter(w, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "\tstate kept at worst\tin windowlab's memory\tin Redis\t")
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t\n", f.Kind, human.BigInt(f.Entries), unitName(f.Kind, f.Entries),
			human.SIBytes(f.Bytes), human.SIBytes(f.RedisBytes))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, f := range fs {
		if f.Kind == algo.KindSlidingLog {
			fmt.Fprintf(w, "The sliding log keeps %s timestamps: its memory grows with the limit, not with the number of active clients.\n",
				human.Words(f.Entries))
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

// unitName is the word for a footprint's entries: "timestamps", "counter".
func unitName(k algo.Kind, n *big.Int) string {
	if n.Cmp(big.NewInt(1)) == 0 {
		return k.Unit().One
	}
	return k.Unit().Many
}
