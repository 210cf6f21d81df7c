package algo

import (
	"fmt"
	"math/big"
	"unsafe"
)

// MemoryBudget is the memory windowlab promises to stay within on any
// scenario it accepts and any lab it runs: a replay or a lab whose estimate
// is over BudgetLive is refused before it starts.
const MemoryBudget = 1 << 30

// BudgetLive is the most an estimate may come to: seven eighths of the
// budget. Estimates err high (by 5% to 2× of the heap measured), so what a
// replay at the threshold really holds stays near GCLimit, and the rest of
// the budget is the runtime's.
const BudgetLive = MemoryBudget / 8 * 7

// GCLimit is the heap the garbage collector is asked to stay under (its
// soft memory limit): near the limits it collects more often instead of
// doubling the heap past the budget.
const GCLimit = MemoryBudget / 4 * 3

// Footprint is the state a limiter holds at worst: every client active and
// at its limit at once. Its in-process bytes come from this package's own
// data structures; its Redis bytes from measurements of the structures a
// shared store would use (see RedisModel).
type Footprint struct {
	Kind    Kind
	Clients int64
	// Entries are counters, timestamps or buckets, in the limiter's own unit.
	Entries *big.Int
	// Bytes is what this program's structures hold for them.
	Bytes *big.Int
	// PerClient and PerEntry are the parts Bytes is made of.
	PerClient, PerEntry int64
	// RedisBytes is the same state in Redis, with RedisStructure naming how.
	RedisBytes     *big.Int
	RedisStructure string
}

// RedisModel is the memory Redis 7.0.15 (jemalloc 5.3.0, 64-bit) uses for
// windowlab's own recipes (package redisstore): growth of INFO
// used_memory per key and per member, with client ids 12 characters long
// and each key's TTL, so Redis's own tables (the keyspace's and the TTLs'
// entries) are in it. MEMORY USAGE of a key leaves those out and reports
// some 50 to 70 bytes a key less. A test (redisstore's
// TestRedisModelMatchesARealRedis) writes every limiter's worst case into
// a real redis-server and keeps this model within 10% of what it uses.
var RedisModel = struct {
	StringWithTTL       int64 // a counter: INCR plus PEXPIRE (a fixed window's 172, a sliding counter's 156)
	HashWithTTL         int64 // a bucket: HSET of its level and last refill, plus PEXPIRE
	SortedSetKeyWithTTL int64 // a sorted set's own cost, beyond its members
	ListpackMember      int64 // a member of a sorted set of at most 128 members
	SkiplistMember      int64 // a member of a larger sorted set
	ListpackMaxMembers  int64 // zset-max-listpack-entries
	SegmentHashWithTTL  int64 // a segmented window's hash (HINCRBY a field a segment, plus PEXPIRE), before its fields
	SegmentField        int64 // a segment's field and count in it, up to HashListpackMax fields
	HashListpackMax     int64 // hash-max-listpack-entries; windowlab models no more fields
}{
	StringWithTTL:       164,
	HashWithTTL:         204,
	SortedSetKeyWithTTL: 190,
	ListpackMember:      15,
	SkiplistMember:      111,
	ListpackMaxMembers:  128,
	SegmentHashWithTTL:  160,
	SegmentField:        10,
	HashListpackMax:     512,
}

// WorstCase is the footprint of kind k under c with clients clients at
// their limit, with client ids keyBytes long.
func WorstCase(k Kind, c Config, clients int64, keyBytes int) (Footprint, error) {
	if err := c.Validate(); err != nil {
		return Footprint{}, err
	}
	if clients < 1 || keyBytes < 0 {
		return Footprint{}, fmt.Errorf("clients must be at least 1 and key bytes not negative")
	}
	f := Footprint{Kind: k, Clients: clients}
	n := big.NewInt(clients)
	var perClientEntries, redisPerClient int64
	switch k {
	case KindFixedWindow:
		f.PerClient = clientBytes[fixedState](keyBytes)
		perClientEntries = 1
		redisPerClient, f.RedisStructure = RedisModel.StringWithTTL, "one string per client, with a TTL"
	case KindSlidingCounter:
		f.PerClient = clientBytes[counterState](keyBytes)
		perClientEntries = countersPerClient
		redisPerClient, f.RedisStructure = countersPerClient*RedisModel.StringWithTTL, "two strings per client, with TTLs"
	case KindSlidingLog:
		f.PerClient = clientBytes[logState](keyBytes)
		f.PerEntry = timestampBytes
		perClientEntries = c.Limit
		member := RedisModel.SkiplistMember
		if c.Limit <= RedisModel.ListpackMaxMembers {
			member = RedisModel.ListpackMember
		}
		redisPerClient = RedisModel.SortedSetKeyWithTTL + c.Limit*member
		f.RedisStructure = "one sorted set per client, a member per timestamp"
	case KindTokenBucket:
		f.PerClient = clientBytes[bucketState](keyBytes)
		perClientEntries = 1
		redisPerClient, f.RedisStructure = RedisModel.HashWithTTL, "one hash (tokens, last refill) per client, with a TTL"
	case KindSegmentedWindow:
		// A ring of S counters a client, whatever its traffic; on Redis a
		// hash with a field for each segment that holds a count.
		f.PerClient = segClientBytes(keyBytes)
		f.PerEntry = segmentBytes
		perClientEntries = c.SegmentCount()
		redisPerClient = RedisModel.SegmentHashWithTTL + min(c.SegmentCount(), c.Limit)*RedisModel.SegmentField
		f.RedisStructure = "one hash per client, a field per segment holding a count, with a TTL"
	default:
		return Footprint{}, fmt.Errorf("no footprint for %v", k)
	}
	f.Entries = new(big.Int).Mul(n, big.NewInt(perClientEntries))
	f.Bytes = new(big.Int).Mul(n, big.NewInt(f.PerClient))
	f.Bytes.Add(f.Bytes, new(big.Int).Mul(f.Entries, big.NewInt(f.PerEntry)))
	f.RedisBytes = new(big.Int).Mul(n, big.NewInt(redisPerClient))
	return f, nil
}

// RedisBytes is what live state m of kind k would take in Redis, by the
// same measured model as WorstCase: what the view shows beside its own bytes.
func RedisBytes(k Kind, m Memory) int64 {
	switch k {
	case KindFixedWindow, KindSlidingCounter:
		return m.Entries * RedisModel.StringWithTTL
	case KindTokenBucket:
		return m.Clients * RedisModel.HashWithTTL
	case KindSegmentedWindow:
		// In process a client holds S counters; on Redis at most that many
		// fields: the live state's worst case.
		return m.Clients*RedisModel.SegmentHashWithTTL + m.Entries*RedisModel.SegmentField
	case KindSlidingLog:
		if m.Clients == 0 {
			return 0
		}
		member := RedisModel.SkiplistMember
		if m.Entries/m.Clients <= RedisModel.ListpackMaxMembers {
			member = RedisModel.ListpackMember
		}
		return m.Clients*RedisModel.SortedSetKeyWithTTL + m.Entries*member
	}
	return 0
}

// SlotBytes is what a limiter sharing names (ByID) holds for every id the
// names hold, whether that client has state or not: its state's slot in a
// slice indexed by id, and a bit saying whether it is in use.
func SlotBytes(k Kind) int64 {
	var n uintptr
	switch k {
	case KindFixedWindow:
		n = unsafe.Sizeof(fixedState{})
	case KindSlidingCounter:
		n = unsafe.Sizeof(counterState{})
	case KindSlidingLog:
		n = unsafe.Sizeof(logState{})
	case KindTokenBucket:
		n = unsafe.Sizeof(bucketState{})
	case KindSegmentedWindow:
		n = unsafe.Sizeof(segState{})
	}
	return int64(n) + 1 // the bit, rounded up
}
