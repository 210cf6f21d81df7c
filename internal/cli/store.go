package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"windowlab/algo"
	"windowlab/human"
	"windowlab/redisstore"
	"windowlab/sim"
	"windowlab/ui"
)

// defaultRedis is where --store redis points when REDIS_URL is unset.
const defaultRedis = "redis://127.0.0.1:6379/0"

// storeFlag adds --store to cmd.
func storeFlag(cmd *cobra.Command, url *string) {
	cmd.Flags().StringVar(url, "store", "",
		"decide on a real Redis: redis://[:PASSWORD@]HOST:PORT[/DB], a Redis Cluster: redis-cluster://[:PASSWORD@]HOST:PORT[,HOST:PORT...], or redis for $REDIS_URL (else "+defaultRedis+")")
	registerFlagCompletion(cmd, "store", completeFrom(
		cobra.CompletionWithDesc("redis", "$REDIS_URL, else "+defaultRedis),
		cobra.CompletionWithDesc(defaultRedis, "a Redis on this machine")))
}

// storeURL is the URL --store names: "redis" means $REDIS_URL.
func storeURL(flag string) string {
	if flag == "redis" {
		if env := os.Getenv("REDIS_URL"); env != "" {
			return env
		}
		return defaultRedis
	}
	return flag
}

// openStore connects to the Redis --store names; an unusable one is an
// invalid invocation (exit 2) with one line saying why. Close it with
// closeStore.
func openStore(ctx context.Context, flag string, pipelined bool) (*redisstore.Store, error) {
	return openStoreWith(ctx, flag, redisstore.Options{Pipelined: pipelined})
}

func openStoreWith(ctx context.Context, flag string, o redisstore.Options) (*redisstore.Store, error) {
	s, err := redisstore.Open(ctx, storeURL(flag), o)
	if err != nil {
		return nil, invalid(err)
	}
	openStores.Lock()
	defer openStores.Unlock()
	openStores.m[s] = true
	return s, nil
}

// openStores are the stores not yet closed, which a second signal gives a
// last cleanup before windowlab exits at once.
var openStores = struct {
	sync.Mutex
	m map[*redisstore.Store]bool
}{m: map[*redisstore.Store]bool{}}

// closeStore removes the run's keys from st's Redis and says on errOut
// what it could not remove and how to.
func closeStore(errOut io.Writer, st *redisstore.Store) {
	if err := st.Close(); err != nil {
		fmt.Fprintf(errOut, "windowlab: %v\n", err)
	}
	openStores.Lock()
	defer openStores.Unlock()
	delete(openStores.m, st)
}

// abandonWithin bounds the last cleanup a second signal gives the stores.
const abandonWithin = 2 * time.Second

// abandonStores is that last cleanup: every open store's keys removed
// within abandonWithin, and what is left said on errOut with how to
// remove it.
func abandonStores(errOut io.Writer) {
	openStores.Lock()
	stores := make([]*redisstore.Store, 0, len(openStores.m))
	for st := range openStores.m {
		stores = append(stores, st)
	}
	openStores.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(stores))
	for i, st := range stores {
		wg.Go(func() { errs[i] = st.Abandon(abandonWithin) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(errOut, "windowlab: stopped at once by a second signal; %v\n", err)
			continue
		}
		fmt.Fprintf(errOut, "windowlab: stopped at once by a second signal; this run's keys are removed from Redis at %s.\n", stores[i].URL())
	}
}

// verified is standard output behind a pipelined store: before any byte
// is written, every decision queued so far has come back from Redis the
// same as in process, so nothing printed was not decided on Redis too.
type verified struct {
	w     io.Writer
	store *redisstore.Store
}

func (v verified) Write(p []byte) (int, error) {
	v.store.Flush()
	if err := v.store.Err(); err != nil {
		return 0, storeFailed{err}
	}
	return v.w.Write(p)
}

// storeFailed is a store's error met while writing: the report stops there.
type storeFailed struct{ err error }

func (e storeFailed) Error() string { return e.err.Error() }

func (e storeFailed) Unwrap() error { return e.err }

// storeError is the exit for a store that failed during a run: a Redis
// that went away (2), or a decision that differs from the in-process one
// (1: a bug).
func storeError(err error) error {
	var m *redisstore.MismatchError
	if errors.As(err, &m) {
		return exitError{exitFailedExpectation, fmt.Errorf("%w; please report it", err)}
	}
	return invalid(err)
}

// finishOnStore ends a command that decided on st: every answer still on
// its way checked, then the first error (the store's before the
// command's own, err), or the store's summary on errOut. e is the engine
// whose keys the summary measures; nil for a sweep.
func finishOnStore(errOut io.Writer, st *redisstore.Store, e *sim.Engine, err error) error {
	st.Flush()
	if serr := st.Err(); serr != nil {
		return storeError(serr)
	}
	if err != nil {
		return err
	}
	if err := storeSummary(errOut, st, e); err != nil {
		return storeError(err)
	}
	return nil
}

// storeSummary tells, on errOut, where the run was decided and what it
// left in Redis at its last instant, beside the model.
func storeSummary(errOut io.Writer, s *redisstore.Store, e *sim.Engine) error {
	if s.Lanes() == 0 {
		fmt.Fprintf(errOut, "Nothing was decided on Redis at %s: every limiter here is a fleet's own tallies, a raced one or one with each client's own windows (haproxy), simulated in process.\n", s.URL())
		return nil
	}
	scripts, trips := s.Calls()
	same := "every decision the same as in process"
	if s.Policy() != redisstore.PolicyStop {
		same = "each decision Redis's own, or --on-store-error's when it did not answer"
	}
	fmt.Fprintf(errOut, "Decided on Redis at %s: %s for %s in %s; %s.\n",
		s.URL(), plural(scripts, "script", "scripts"), plural(int64(s.Lanes()), "limiter", "limiters"), plural(trips, "round trip", "round trips"), same)
	if s.Policy() != redisstore.PolicyStop {
		policySummary(errOut, s, e)
		if slices.ContainsFunc(s.Outages(), func(o redisstore.Outage) bool { return !o.Answered }) {
			return nil // no figures from a Redis that does not answer
		}
	}
	if e == nil { // a sweep: its settings' keys were many engines'
		return nil
	}
	var keys, bytes, model int64
	var lanes []*redisstore.Limiter
	for _, l := range e.Limiters() {
		r, ok := l.(*redisstore.Limiter)
		if !ok {
			continue
		}
		lanes = append(lanes, r)
		u, err := r.Usage(e.Now())
		if err != nil {
			return err
		}
		keys += u.Keys
		bytes += u.Bytes
		model += algo.RedisBytes(r.Kind(), r.MemoryAt(e.Now()))
	}
	shards, err := s.Shards(lanes)
	if err != nil {
		return err
	}
	all, db, err := s.Keys()
	if err != nil {
		return err
	}
	ttl := "with TTLs"
	if e.Config().NoExpiry {
		ttl = "with no TTL: they pile up"
	}
	besides := ""
	if n := all - keys; n > 0 { // the lanes' expiry indexes, windowlab's bookkeeping
		besides = ", and " + plural(n, "expiry index", "expiry indexes")
	}
	fmt.Fprintf(errOut, "At %s it held %s %s%s (DBSIZE %s): MEMORY USAGE %s, modelled ≈%s with Redis's own tables; removed now.\n",
		e.Now().Short(), plural(keys, "key", "keys"), ttl, besides, human.Int(db), human.Bytes(bytes), human.Bytes(model))
	if len(shards) > 0 {
		fmt.Fprintln(errOut, shardLine(shards))
	}
	return nil
}

// slotsText is a cluster's slots for a person: "slot 7,123", "slots 7,123, 12,000".
func slotsText(slots []int) string {
	text := make([]string, len(slots))
	for i, sl := range slots {
		text[i] = human.Int(int64(sl))
	}
	if len(slots) == 1 {
		return "slot " + text[0]
	}
	return "slots " + strings.Join(text, ", ")
}

// shardLine says on which primaries of a cluster a run's keys lived: the
// slots of their hash tags on each and the keys each holds at the end (the
// expiry indexes with them), then the primaries that held none.
func shardLine(shards []redisstore.ShardUse) string {
	var used, unused []string
	for _, sh := range shards {
		if len(sh.Slots) == 0 {
			unused = append(unused, sh.Addr)
			continue
		}
		used = append(used, fmt.Sprintf("%s (%s; %s at the end)", sh.Addr, slotsText(sh.Slots), plural(sh.Keys, "key", "keys")))
	}
	line := fmt.Sprintf("On the cluster its keys lived on %d of %s: %s", len(used), plural(int64(len(shards)), "primary", "primaries"), strings.Join(used, ", "))
	if len(unused) > 0 {
		line += "; none on " + strings.Join(unused, ", ")
	}
	return line + "."
}

func plural(n int64, one, many string) string { return human.Noun{One: one, Many: many}.Of(n) }

// viewStore is a Redis store as the view sees one (ui.Store).
type viewStore struct{ s *redisstore.Store }

func (v viewStore) Wrap(ls []algo.Limiter) ([]algo.Limiter, error) { return v.s.WrapAll(ls) }

func (v viewStore) Check() error {
	v.s.Flush()
	return v.s.Err()
}

func (v viewStore) Usage(l algo.Limiter, t algo.Instant) (ui.StoreUsage, bool, error) {
	r, ok := l.(*redisstore.Limiter)
	if !ok {
		return ui.StoreUsage{}, false, nil
	}
	u, err := r.Usage(t)
	if err != nil && v.s.Policy() != redisstore.PolicyStop {
		// Redis does not answer, and decisions go on without it (the
		// timeline marks them ◌): what its keys hold is not known now,
		// which is no error of the run.
		return ui.StoreUsage{}, false, nil
	}
	return ui.StoreUsage{Keys: u.Keys, Bytes: u.Bytes}, err == nil, err
}

func (v viewStore) Name() string { return v.s.URL() }

// Shard is where client's keys are on a cluster (ui.ShardStore).
func (v viewStore) Shard(client string) string {
	if !v.s.Cluster() {
		return ""
	}
	node, slot := v.s.Shard(client)
	return node + ", " + human.Glue("slot "+human.Int(int64(slot)))
}

// showUIOnStore is showUI with every engine of the view deciding on the
// Redis flag names (none when flag is ""); a store that failed on the way
// is the command's error.
func showUIOnStore(ctx context.Context, errOut io.Writer, opts ui.Options, flag, onError string) error {
	if flag == "" {
		_, err := showUI(ctx, opts)
		return err
	}
	st, err := openStoreFor(ctx, flag, onError, true)
	if err != nil {
		return err
	}
	defer closeStore(errOut, st)
	opts.Store = viewStore{st}
	_, err = showUI(ctx, opts)
	if st.Policy() != redisstore.PolicyStop && st.Err() == nil {
		policySummary(errOut, st, nil) // what the view decided without Redis, said as it closes
	}
	if serr := st.Err(); err == nil && serr != nil {
		return storeError(serr)
	}
	return err
}
