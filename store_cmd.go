package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

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
		"decide on a real Redis: redis://[:PASSWORD@]HOST:PORT[/DB], or redis for $REDIS_URL (else "+defaultRedis+")")
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
// invalid invocation (exit 2) with one line saying why.
func openStore(ctx context.Context, flag string, pipelined bool) (*redisstore.Store, error) {
	s, err := redisstore.Open(ctx, storeURL(flag), redisstore.Options{Pipelined: pipelined})
	if err != nil {
		return nil, invalid(err)
	}
	return s, nil
}

// onStore puts every limiter that can run on Redis there; fleets and raced
// tallies, simulations of several processes, stay in this one.
func onStore(s *redisstore.Store) func([]algo.Limiter) ([]algo.Limiter, error) {
	return func(ls []algo.Limiter) ([]algo.Limiter, error) {
		out := make([]algo.Limiter, len(ls))
		for i, l := range ls {
			out[i] = l
			if redisstore.Supports(l) {
				w, err := s.Wrap(l)
				if err != nil {
					return nil, err
				}
				out[i] = w
			}
		}
		return out, nil
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

// storeSummary tells, on errOut, where the run was decided and what it
// left in Redis at its last instant, beside the model.
func storeSummary(errOut io.Writer, s *redisstore.Store, e *sim.Engine) error {
	var keys, bytes, model int64
	var lanes int
	for _, l := range e.Limiters() {
		r, ok := l.(*redisstore.Limiter)
		if !ok {
			continue
		}
		lanes++
		u, err := r.Usage(e.Now())
		if err != nil {
			return err
		}
		keys += u.Keys
		bytes += u.Bytes
		model += algo.RedisBytes(r.Kind(), r.MemoryAt(e.Now()))
	}
	_, db, err := s.Keys()
	if err != nil {
		return err
	}
	scripts, trips := s.Calls()
	fmt.Fprintf(errOut, "Decided on Redis at %s: %s for %s in %s; every decision the same as in process.\n",
		s.URL(), plural(scripts, "script", "scripts"), plural(int64(lanes), "limiter", "limiters"), plural(trips, "round trip", "round trips"))
	ttl := "with TTLs"
	if e.Config().NoExpiry {
		ttl = "with no TTL: they pile up"
	}
	fmt.Fprintf(errOut, "At %s it held %s %s (DBSIZE %s): MEMORY USAGE %s, modelled ≈%s with Redis's own tables; removed now.\n",
		e.Now().Short(), plural(keys, "key", "keys"), ttl, human.Int(db), human.Bytes(bytes), human.Bytes(model))
	return nil
}

func plural(n int64, one, many string) string { return human.Noun{One: one, Many: many}.Of(n) }

// viewStore is a Redis store as the view sees one (ui.Store).
type viewStore struct{ s *redisstore.Store }

func (v viewStore) Wrap(ls []algo.Limiter) ([]algo.Limiter, error) { return onStore(v.s)(ls) }

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
	return ui.StoreUsage{Keys: u.Keys, Bytes: u.Bytes}, err == nil, err
}

func (v viewStore) Name() string { return v.s.URL() }
