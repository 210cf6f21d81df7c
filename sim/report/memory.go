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
	// Measured, when set, is what a real store held for a sample of the
	// worst case (windowlab memory --store), by kind; Store names it.
	Measured map[algo.Kind]Measured
	Store    string
}

// Measured is a sample of the worst case written to a real Redis by
// windowlab's own scripts: Clients clients at their limit, whose keys'
// MEMORY USAGE summed to Bytes; Scaled is that per client times the
// question's clients. Skipped, when not "", says why a kind was not.
type Measured struct {
	Clients int64
	Keys    int64
	Bytes   int64
	Skipped string
}

// scaled is m's figure for clients clients.
func (m Measured) scaled(clients int64) *big.Int {
	per := new(big.Rat).SetFrac64(m.Bytes, max(m.Clients, 1))
	per.Mul(per, new(big.Rat).SetInt64(clients))
	return new(big.Int).Quo(per.Num(), per.Denom())
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
	head := "\tstate kept at worst\tin windowlab's memory\tin Redis\t"
	if q.Measured != nil {
		head += "MEMORY USAGE, measured\t"
	}
	fmt.Fprintln(tw, head)
	for _, f := range fs {
		fmt.Fprintf(tw, "%s\t%s %s\t%s\t%s\t", f.Kind, human.BigInt(f.Entries), unitName(f.Kind, f.Entries),
			human.SIBytes(f.Bytes), human.SIBytes(f.RedisBytes))
		if m, ok := q.Measured[f.Kind]; ok {
			if m.Skipped != "" {
				fmt.Fprint(tw, "not measured\t")
			} else {
				fmt.Fprintf(tw, "%s\t", human.SIBytes(m.scaled(q.Clients)))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if q.Measured != nil {
		fmt.Fprintf(w, "\nMeasured on %s: a sample written by windowlab's own scripts, its keys' MEMORY USAGE scaled to\n", q.Store)
		fmt.Fprintln(w, "every client. MEMORY USAGE counts each key alone; Redis's own tables (the keyspace's and the TTLs' entries),")
		fmt.Fprintln(w, "in the model, add some 50 to 70 B a key.")
		for _, k := range q.Kinds {
			if m, ok := q.Measured[k]; ok {
				if m.Skipped != "" {
					fmt.Fprintf(w, "- %s: not measured: %s\n", k, m.Skipped)
					continue
				}
				fmt.Fprintf(w, "- %s: %s at the limit, %s, MEMORY USAGE %s (%s a client)\n", k,
					human.Noun{One: "client", Many: "clients"}.Of(m.Clients), human.Noun{One: "key", Many: "keys"}.Of(m.Keys),
					human.Bytes(m.Bytes), human.Bytes(m.Bytes/max(m.Clients, 1)))
			}
		}
	}
	fmt.Fprintln(w)
	for _, f := range fs {
		if f.Kind == algo.KindSlidingLog {
			fmt.Fprintf(w, "The sliding log keeps %s timestamps: its memory grows with the limit, not with the number of active clients.\n",
				human.Words(f.Entries))
		}
		if f.Kind == algo.KindSlidingCounter {
			fmt.Fprintln(w, "The sliding counter keeps two counters per client, whatever the limit.")
		}
		if f.Kind == algo.KindSegmentedWindow {
			fmt.Fprintf(w, "The segmented window keeps a counter per segment per client (%s here), whatever the limit.\n",
				human.BigInt(new(big.Int).Quo(f.Entries, big.NewInt(max(f.Clients, 1)))))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Assumptions:")
	fmt.Fprintln(w, "- the worst case: every client has used its whole limit within the last window;")
	fmt.Fprintf(w, "- in windowlab's memory: its own structures, per client a map slot (24 B), the client id (%d B) and the\n", q.KeyBytes)
	fmt.Fprintln(w, "  state (fixed window 16 B, sliding counter 24 B, sliding log 32 B plus 8 B a timestamp, token bucket 16 B);")
	fmt.Fprintln(w, "  a Go map keeps spare capacity on top, up to about twice the slot figure;")
	m := algo.RedisModel
	fmt.Fprintf(w, "- in Redis: 7.0.15 with jemalloc on 64 bits, the growth of INFO used_memory for windowlab's own scripts: a counter\n")
	fmt.Fprintf(w, "  (string with a TTL) %d B; a sorted set %d B plus %d B a member up to %d members (listpack) or\n",
		m.StringWithTTL, m.SortedSetKeyWithTTL, m.ListpackMember, m.ListpackMaxMembers)
	fmt.Fprintf(w, "  %d B a member beyond (skiplist); a bucket (hash of two fields with a TTL) %d B; a segmented window's\n", m.SkiplistMember, m.HashWithTTL)
	fmt.Fprintf(w, "  hash %d B plus %d B a segment holding a count (up to %d fields, a listpack).\n", m.SegmentHashWithTTL, m.SegmentField, m.HashListpackMax)
	return nil
}

// memoryDocument is memory --json's object, the schema's source
// (schema/memory.schema.json).
type memoryDocument struct {
	SchemaVersion int         `json:"schema_version" jsonschema_description:"the version of this contract (see run's)"`
	Limit         int64       `json:"limit" jsonschema_description:"requests allowed per window"`
	WindowMs      int64       `json:"window_ms" jsonschema_description:"the window, in milliseconds"`
	Clients       int64       `json:"clients" jsonschema_description:"the clients, each at its limit"`
	KeyBytes      int         `json:"key_bytes" jsonschema_description:"the length of a client id, in bytes"`
	Algorithms    []memoryRow `json:"algorithms"`
}

// memoryRow is one limiter's worst case. A figure that can pass 2^53 is a
// JSON number, exact as written, and again as decimal text (_exact) for a
// reader whose numbers are doubles.
type memoryRow struct {
	Name           string   `json:"name"`
	Entries        *big.Int `json:"entries" jsonschema_description:"counters, timestamps or buckets at worst; may pass 2^53 (see entries_exact)"`
	EntriesExact   string   `json:"entries_exact" jsonschema_description:"the same, as decimal text"`
	Unit           string   `json:"unit" jsonschema_description:"what an entry is: counters, timestamps, buckets"`
	Bytes          *big.Int `json:"bytes" jsonschema_description:"bytes in process, a map keyed by client name; may pass 2^53 (see bytes_exact)"`
	BytesExact     string   `json:"bytes_exact"`
	PerClientBytes int64    `json:"per_client_bytes"`
	PerEntryBytes  int64    `json:"per_entry_bytes"`
	RedisBytes     *big.Int `json:"redis_bytes" jsonschema_description:"bytes in Redis by windowlab's model of its recipes; may pass 2^53 (see redis_bytes_exact)"`
	RedisExact     string   `json:"redis_bytes_exact"`
	RedisStructure string   `json:"redis_structure" jsonschema_description:"the Redis structures that model is of"`
	// With --store: the sample measured and its MEMORY USAGE scaled.
	MeasuredClients int64    `json:"measured_clients,omitempty" jsonschema_description:"with --store: the clients of the sample written to Redis"`
	MeasuredKeys    int64    `json:"measured_keys,omitempty" jsonschema_description:"with --store: its keys"`
	MeasuredBytes   int64    `json:"measured_memory_usage_bytes,omitempty" jsonschema_description:"with --store: their MEMORY USAGE, summed"`
	MeasuredScaled  *big.Int `json:"measured_memory_usage_scaled,omitempty" jsonschema_description:"with --store: that scaled to every client; may pass 2^53"`
	ScaledExact     string   `json:"measured_memory_usage_scaled_exact,omitempty"`
	MeasuredSkipped string   `json:"measured_skipped,omitempty" jsonschema_description:"with --store: why this limiter was not measured"`
}

// MemoryJSON writes the same figures as one JSON object.
func MemoryJSON(w io.Writer, q MemoryQuestion) error {
	fs, err := Footprints(q)
	if err != nil {
		return err
	}
	doc := memoryDocument{SchemaVersion: SchemaVersion, Limit: q.Limit, WindowMs: int64(q.Window / time.Millisecond), Clients: q.Clients, KeyBytes: q.KeyBytes}
	for _, f := range fs {
		r := memoryRow{Name: f.Kind.String(), Entries: f.Entries, EntriesExact: f.Entries.String(), Unit: unitName(f.Kind, f.Entries),
			Bytes: f.Bytes, BytesExact: f.Bytes.String(), PerClientBytes: f.PerClient, PerEntryBytes: f.PerEntry,
			RedisBytes: f.RedisBytes, RedisExact: f.RedisBytes.String(), RedisStructure: f.RedisStructure}
		if m, ok := q.Measured[f.Kind]; ok {
			r.MeasuredSkipped = m.Skipped
			if m.Skipped == "" {
				r.MeasuredClients, r.MeasuredKeys, r.MeasuredBytes = m.Clients, m.Keys, m.Bytes
				r.MeasuredScaled = m.scaled(q.Clients)
				r.ScaledExact = r.MeasuredScaled.String()
			}
		}
		doc.Algorithms = append(doc.Algorithms, r)
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
