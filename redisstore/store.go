// Package redisstore runs windowlab's limiters on a real Redis: each one
// the recipe production limiters use (a counter per window, a sorted set
// of timestamps, two counters, a hash), as one atomic server-side script
// loaded once and called by EVALSHA with the instant passed in, never
// Redis's own TIME, so a replay through Redis decides exactly as the
// in-process limiters do, request for request.
//
// It is a top-level package because it is the one part of windowlab that
// talks to a server: algo and sim stay pure (no network, no wall clock),
// and the commands (main) and the view (ui) wrap the engine's limiters in
// it when --store names a Redis.
//
// Every key of a run is under windowlab:{run-id}: (on a Redis Cluster,
// under a few tags windowlab:{run-id.N}: spread over its primaries: see
// cluster.go), removed when the run ends (Close), once every write under
// way has landed; a process that must exit at once gets a bounded last
// try (Abandon). Nothing else in the database is touched.
package redisstore

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

//go:embed lua/*.lua
var luaFiles embed.FS

// Timeout bounds every dial and every call: an unreachable or stalled
// Redis is an error within it, never a hang.
const Timeout = 3 * time.Second

// Grace is how long, on Redis's own clock, a key lives past the virtual
// instant it can no longer matter. Redis expires keys on its clock, and
// windowlab's is virtual: it may stand still (a paused view) or race (a
// replay of a day in seconds). Keys that are dead on the virtual clock are
// removed on it (the expiry index); the TTL is the lesson's safety net,
// so a windowlab that is killed leaves nothing behind for longer.
const Grace = 24 * time.Hour

// Batch is how many scripts a pipelined store sends in one round trip.
const Batch = 1024

// Store is a connection to one Redis, or to a Redis Cluster, and the
// namespace of one run.
type Store struct {
	client redis.UniversalClient
	opt    *redis.Options // how client connects: Abandon dials again with it
	url    string         // redacted: safe to print
	prefix string         // windowlab:{run-id}:
	sha    map[string]any // each script's SHA1, boxed as go-redis takes it
	lanes  int

	// On a cluster (cluster.go): the client, its options, the hash tags
	// the run's keys are under (each a prefix, windowlab:{run-id.n}:) and
	// the primaries when it opened. On one Redis, tags is the prefix alone.
	cluster   *redis.ClusterClient
	copt      *redis.ClusterOptions
	tags      []string
	primaries []string
	replicas  []string

	// Pipelined stores queue scripts and send them Batch at a time;
	// every answer is checked against the in-process limiter's decision.
	// A full batch goes to its queue's sender, a goroutine of its own,
	// which sends one batch at a time, in order, and hands its answers to
	// the checker, another, while the next is queued and sent: windowlab
	// and Redis work at once rather than by turns. On a cluster each
	// primary has a queue of its own (pipeline.go).
	pipelined bool
	ops       sync.Mutex // the queues and the counts: a view may decide from a job's goroutine
	queues    []*queue   // pipeline.go: one a primary (one on one Redis)
	queueOf   []int      // each tag's queue
	calls     int64
	trips     atomic.Int64
	inFlight  sync.WaitGroup // batches given to a sender and not yet checked
	closing   sync.Once
	closeErr  error
	shut      bool // closed: scripts are no longer sent

	mu  sync.Mutex
	err error // the first error: a failed call or a decision that differs

	// Writes to Redis under way: Close removes the run's keys only once
	// none is, and none starts after, or a write landing late (a batch on
	// its way, a checkpoint's copies) would leave keys behind.
	writes struct {
		sync.Mutex
		closing bool
		active  int
		idle    chan struct{} // closed when closing and none is under way
	}
	swept     atomic.Bool // Close removed every key of the run
	abandoned atomic.Bool // Abandon took over the cleanup: Close says nothing
	abandon   sync.Mutex  // held while Abandon runs: Close returns after it

	policy Policy // when the store does not answer (failover.go)
	fo     struct {
		sync.Mutex
		failover
	}
}

// Options are how Open connects.
type Options struct {
	// Pipelined queues each decision's script and sends Batch at a time
	// (a replay, a report); unpipelined, each waits for its answer (the
	// view, one request at a time).
	Pipelined bool
	// OnError is what a run does when the store does not answer; with a
	// policy other than PolicyStop, every call waits for its answer (not
	// pipelined), so every decision returned is the store's or the policy's.
	OnError Policy
}

// Error is a Redis that cannot be used: unreachable, refusing the
// password, read-only or too old. Its text is one line, with the URL's
// password hidden.
type Error struct {
	URL    string // redacted
	Reason string
}

func (e *Error) Error() string { return "redis at " + e.URL + ": " + printable(e.Reason) }

// Open connects to the Redis at rawURL (redis://[user:password@]host:port[/db],
// or rediss:// for TLS), or to the Redis Cluster a
// redis-cluster://[user:password@]host:port[,host:port...] names, checks
// that it answers, takes writes and runs scripts, and loads the scripts.
// Every failure is an *Error.
func Open(ctx context.Context, rawURL string, o Options) (*Store, error) {
	if IsClusterURL(rawURL) {
		return openCluster(ctx, rawURL, o)
	}
	opt, shown, err := parseURL(rawURL)
	fail := func(format string, args ...any) (*Store, error) {
		return nil, &Error{URL: shown, Reason: fmt.Sprintf(format, args...)}
	}
	if err != nil {
		return fail("%s", err)
	}
	if opt.DB < 0 {
		return fail("database %d: databases are numbered from 0", opt.DB)
	}
	opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout = Timeout, Timeout, Timeout
	opt.PoolTimeout = Timeout
	opt.MaxRetries = -1 // a failed call is reported, not retried into a longer wait
	opt.DialerRetries = 1
	opt.PoolSize = 2
	opt.Protocol = 2
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	client := redis.NewClient(opt)
	s := &Store{client: client, opt: opt, url: shown, sha: map[string]any{}, pipelined: o.Pipelined && o.OnError == PolicyStop, policy: o.OnError}
	s.writes.idle = make(chan struct{})
	if err := s.check(ctx); err != nil {
		client.Close()
		if opt.TLSConfig != nil && strings.HasPrefix(err.Error(), "no answer") {
			return fail("%s; rediss:// is Redis over TLS: does it serve TLS there, or is it redis://?", err)
		}
		return fail("%s", err)
	}
	s.prefix = "windowlab:{" + runID() + "}:"
	s.tags = []string{s.prefix}
	if err := s.load(ctx); err != nil {
		client.Close()
		return fail("%s", err)
	}
	s.startPipeline()
	return s, nil
}

// runID is a new run's id: 8 random hex digits.
func runID() string {
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	return hex.EncodeToString(id)
}

// check makes sure the server answers, takes writes and is new enough.
func (s *Store) check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	if err := s.client.Ping(ctx).Err(); err != nil {
		return reason(err)
	}
	info, err := s.client.Info(ctx, "server", "replication", "cluster").Result()
	if err != nil {
		return reason(err)
	}
	if field(info, "cluster_enabled") == "1" {
		return fmt.Errorf("it is a node of a Redis Cluster; use redis-cluster://%s (and more of its nodes, comma-separated)", s.opt.Addr)
	}
	version := field(info, "redis_version")
	if !atLeast(version, 6, 2) {
		return fmt.Errorf("version %s is too old: windowlab needs 6.2 or later (COPY, ZADD GT)", version)
	}
	if field(info, "role") == "slave" {
		return errors.New("it is a read-only replica; point --store at the primary")
	}
	probe := "windowlab:probe"
	if err := s.client.Set(ctx, probe, "1", time.Second).Err(); err != nil {
		return reason(err)
	}
	return reason(s.client.Del(ctx, probe).Err())
}

// quiet keeps go-redis's own log lines (a failed dial, retried) off the
// terminal: what went wrong is said once, in an *Error.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { redis.SetLogger(quiet{}) }

// reason is err as the last part of one line, or nil.
func reason(err error) error {
	if err == nil {
		return nil
	}
	var op *net.OpError
	switch {
	case errors.As(err, &op) && op.Op == "dial":
		return fmt.Errorf("cannot connect (%v); is redis-server running there?", op.Err)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("it closed the connection (was it stopped or restarted?)")
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return fmt.Errorf("no answer within %s", Timeout)
	case strings.HasPrefix(err.Error(), "READONLY"):
		return errors.New("it is read-only; point --store at a Redis that takes writes")
	case strings.Contains(err.Error(), "can't parse"):
		return errors.New("what answers there is not a Redis server")
	case strings.HasPrefix(err.Error(), "NOAUTH"):
		return errors.New("it needs a password; give it in the URL, redis://:PASSWORD@HOST:PORT (redis-cluster://:PASSWORD@HOST:PORT,... for a cluster)")
	case strings.HasPrefix(err.Error(), "CROSSSLOT"):
		return errors.New("a script's keys are in different hash slots (CROSSSLOT): every key one call names must share a {hash tag}; windowlab's do, so this is a bug: please report it")
	case strings.HasPrefix(err.Error(), "WRONGPASS"):
		return errors.New("it refused the user name and password in the URL")
	case strings.Contains(err.Error(), "DB index is out of range"):
		return errors.New("it has no such database; they are numbered from 0 to its `databases` setting less one (0 to 15 by default)")
	}
	return err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// field is a value of an INFO reply.
func field(info, name string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return v
		}
	}
	return ""
}

// atLeast reports whether version (major.minor.patch) is at least major.minor.
func atLeast(version string, major, minor int) bool {
	var a, b int
	if _, err := fmt.Sscanf(version, "%d.%d", &a, &b); err != nil {
		return false
	}
	return a > major || a == major && b >= minor
}

// scripts are the Lua files, each a whole script once common.lua (but for
// those alone) and, for those that multiply, exact.lua are prepended: Lua
// defines a script's functions again on every call, so each gets only
// those it uses.
var scripts = []string{"fixed", "log", "counter", "bucket", "segmented", "sweep", "trim"}

// multiplies are the scripts whose products pass 2^53.
var multiplies = map[string]bool{"counter": true, "bucket": true, "exact": true}

// alone are the scripts that need nothing of common.lua: the fixed
// window's, run on every request, and the sweeps.
var alone = map[string]bool{"fixed": true, "sweep": true, "trim": true}

// Source is the script named name as Redis runs it ("exact": the limb
// arithmetic alone, for its test).
func Source(name string) (string, error) {
	var b strings.Builder
	var parts []string
	if !alone[name] {
		parts = append(parts, "common")
	}
	if multiplies[name] {
		parts = append(parts, "exact")
	}
	if name != "exact" {
		parts = append(parts, name)
	}
	for _, p := range parts {
		src, err := luaFiles.ReadFile("lua/" + p + ".lua")
		if err != nil {
			return "", err
		}
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String(), nil
}

// load sends every script to the server once; decisions then name them by
// their SHA1 (EVALSHA).
func (s *Store) load(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	for _, name := range scripts {
		src, err := Source(name)
		if err != nil {
			return err
		}
		sha, err := s.client.ScriptLoad(ctx, src).Result()
		if err != nil {
			return reason(err)
		}
		s.sha[name] = sha
	}
	return nil
}

// Lanes is how many limiters have been put on the store.
func (s *Store) Lanes() int {
	s.ops.Lock()
	defer s.ops.Unlock()
	return s.lanes
}

// URL is the store's URL with any password hidden.
func (s *Store) URL() string { return s.url }

// Prefix is the namespace every key of this run is under.
func (s *Store) Prefix() string { return s.prefix }

// Err is the first error the store met: a call that failed, or a decision
// on Redis that differs from the in-process limiter's. Once it is set,
// the run should stop: decisions after it are the in-process ones.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Store) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = err
	}
}

// Calls is how many scripts the store has run, and in how many round trips.
func (s *Store) Calls() (scripts, trips int64) {
	s.ops.Lock()
	defer s.ops.Unlock()
	return s.calls, s.trips.Load()
}

// ctx is a context bounded by Timeout for one call or one batch.
func (s *Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), Timeout)
}

// run sends one script's call (command.go), its keys under the store's
// tag b: queued on a pipelined store (check runs when its batch comes
// back), at once otherwise (check runs now).
func (s *Store) run(b int, cmd []any, check func(any) error) {
	if s.Err() != nil {
		return
	}
	s.ops.Lock()
	defer s.ops.Unlock()
	if s.shut {
		s.fail(s.errClosed())
		return
	}
	s.calls++
	if s.pipelined {
		s.queue(b, cmd, check)
		return
	}
	if !s.begin() {
		s.fail(s.errClosed())
		return
	}
	defer s.end()
	ctx, cancel := s.ctx()
	defer cancel()
	s.trips.Add(1)
	v, err := eval(ctx, s.client, cmd)
	if isNoScript(err) && s.reload(ctx) == nil {
		s.trips.Add(1)
		v, err = eval(ctx, s.client, cmd)
	}
	if err != nil {
		if s.policy == PolicyStop { // under a policy, a sweep that failed is left to the next or to Close
			s.fail(&Error{URL: s.url, Reason: reason(err).Error()})
		}
		return
	}
	if err := check(v); err != nil {
		s.fail(err)
	}
}

// Flush sends what a pipelined store has queued and waits until every
// answer has come back and been checked.
func (s *Store) Flush() {
	if !s.pipelined {
		return
	}
	s.ops.Lock()
	for _, q := range s.queues {
		if len(q.checks) > 0 && !s.shut {
			s.hand(q)
		}
	}
	s.ops.Unlock()
	s.inFlight.Wait()
}

// Keys is how many keys the run holds now, and how many the whole
// database does (DBSIZE).
func (s *Store) Keys() (run, db int64, err error) {
	s.Flush()
	ctx, cancel := s.ctx()
	defer cancel()
	if db, err = s.client.DBSize(ctx).Result(); err != nil {
		return 0, 0, reason(err)
	}
	var mu sync.Mutex
	err = scanOn(context.Background(), s.client, s.Pattern(), func(_ *redis.Client, keys []string) error {
		mu.Lock()
		defer mu.Unlock()
		run += int64(len(keys))
		return nil
	})
	return run, db, err
}

// scanOn calls f with every batch of keys matching pattern and the node
// that holds them: through c, or on a cluster through every primary at
// once (f then runs on several goroutines). Every call is bounded by
// Timeout and by ctx.
func scanOn(ctx context.Context, c redis.UniversalClient, pattern string, f func(*redis.Client, []string) error) error {
	if cc, ok := c.(*redis.ClusterClient); ok {
		return reason(cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			return scanNode(ctx, m, pattern, f)
		}))
	}
	return scanNode(ctx, c.(*redis.Client), pattern, f)
}

// scanNode is scanOn on one server.
func scanNode(ctx context.Context, c *redis.Client, pattern string, f func(*redis.Client, []string) error) error {
	var cursor uint64
	for {
		cctx, cancel := context.WithTimeout(ctx, Timeout)
		keys, next, err := c.Scan(cctx, cursor, pattern, 1000).Result()
		cancel()
		if err != nil {
			return reason(err)
		}
		if len(keys) > 0 {
			if err := f(c, keys); err != nil {
				return err
			}
		}
		if cursor = next; cursor == 0 {
			return nil
		}
	}
}

// begin marks a write to Redis as under way, or reports that the store
// is closing, when nothing more is written; end marks it done.
func (s *Store) begin() bool {
	s.writes.Lock()
	defer s.writes.Unlock()
	if s.writes.closing {
		return false
	}
	s.writes.active++
	return true
}

func (s *Store) end() {
	s.writes.Lock()
	defer s.writes.Unlock()
	s.writes.active--
	if s.writes.closing && s.writes.active == 0 {
		close(s.writes.idle)
	}
}

// stopWrites lets no write start from now on, and returns a channel
// closed once none is under way: each ends within Timeout.
func (s *Store) stopWrites() <-chan struct{} {
	s.writes.Lock()
	defer s.writes.Unlock()
	if !s.writes.closing {
		s.writes.closing = true
		if s.writes.active == 0 {
			close(s.writes.idle)
		}
	}
	return s.writes.idle
}

func (s *Store) errClosed() error { return &Error{URL: s.url, Reason: "the store was closed"} }

// Close removes every key of the run and closes the connection: what was
// queued and not yet sent is dropped, writes under way land first, and
// the keys are swept until none is found. A key it could not remove is an
// *LeftError.
func (s *Store) Close() error {
	s.closing.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Store) close() error {
	idle := s.stopWrites()
	s.ops.Lock()
	s.shut = true // nothing more is queued, and what was is not sent
	for _, q := range s.queues {
		q.checks = nil
	}
	s.ops.Unlock()
	for _, q := range s.queues {
		close(q.batches)
		<-q.sender
	}
	<-idle
	failed := s.Err() != nil
	left, err := s.sweep(context.Background(), s.client)
	if cerr := s.client.Close(); err == nil {
		err = cerr
	}
	if failed && left == 0 && err == nil {
		left, err = s.settle()
	}
	if s.abandoned.Load() {
		// Abandon, beside it, closed the connections this sweep used and
		// swept through its own: what it returns is the run's account,
		// and the process (which may exit when Close returns) waits for it.
		s.abandon.Lock()
		defer s.abandon.Unlock()
		return nil
	}
	if left != 0 {
		return &LeftError{Store: s, Keys: left, Err: err}
	}
	s.swept.Store(true)
	return err
}

// Abandon is the last cleanup of a process that must exit at once (a
// second ctrl+c): Close's, within the time given. No write starts from
// its call on; it waits for the writes under way at most a quarter of
// the time, then closes the store's connections, so that a write still
// under way (a batch being sent, slow on a loaded machine) sends nothing
// more, and waits for it to return at most another quarter. It then
// sweeps the run's keys through a connection of its own until three
// quarters, again until two scans apart find none (what Redis had read
// of a closed connection lands in that watch), and counts what is left
// in the rest. A key it could not remove is an *LeftError. A Close under
// way beside it, or after, returns nil: Abandon's answer is the run's.
func (s *Store) Abandon(within time.Duration) error {
	if s.swept.Load() {
		return nil
	}
	start := time.Now()
	s.abandon.Lock()
	defer s.abandon.Unlock()
	s.abandoned.Store(true)
	s.fail(s.errClosed()) // whatever the process still prints was not all decided on Redis
	idle := s.stopWrites()
	select {
	case <-idle:
	case <-time.After(within / 4):
	}
	_ = s.client.Close() // a write under way sends no more
	select {
	case <-idle:
	case <-time.After(within / 4):
	}
	c := s.newClient()
	defer c.Close()
	ctx, cancel := context.WithDeadline(context.Background(), start.Add(within*3/4))
	defer cancel()
	left, err := s.sweep(ctx, c)
	if err == nil && left == 0 {
		// The store's own batches may still be landing: it was not waited for.
		left, err = s.resweep(ctx, c)
	}
	if err != nil { // what is left, counted in the time that remains
		if !time.Now().Before(start.Add(within * 3 / 4)) { // its context's timer may not have fired yet
			err = fmt.Errorf("no answer within %s", within)
		}
		cctx, cancel := context.WithDeadline(context.Background(), start.Add(within))
		defer cancel()
		var n atomic.Int64
		if scanOn(cctx, c, s.Pattern(), func(_ *redis.Client, keys []string) error { n.Add(int64(len(keys))); return nil }) == nil {
			left = n.Load()
		}
	}
	if left == 0 {
		return nil
	}
	return &LeftError{Store: s, Keys: left, Err: err}
}

// newClient is a connection of its own to the store's Redis or cluster,
// heeding its contexts' deadlines.
func (s *Store) newClient() redis.UniversalClient {
	if s.cluster != nil {
		opt := *s.copt
		opt.ContextTimeoutEnabled = true
		return redis.NewClusterClient(&opt)
	}
	opt := *s.opt
	opt.ContextTimeoutEnabled = true // go-redis heeds a context's deadline only so
	return redis.NewClient(&opt)
}

// LeftError is a run whose keys could not all be removed: Keys of them
// are left (-1: how many is not known), under Store.Pattern; Err is why,
// when Redis failed.
type LeftError struct {
	Store *Store
	Keys  int64
	Err   error
}

func (e *LeftError) Error() string {
	var what string
	switch {
	case e.Keys < 0:
		what = fmt.Sprintf("this run's keys could not be removed (%v)", e.Err)
	case e.Keys == 1:
		what = "1 key of this run is left"
	default:
		what = fmt.Sprintf("%d keys of this run are left", e.Keys)
	}
	if e.Keys >= 0 && e.Err != nil {
		what += fmt.Sprintf(" (%v)", e.Err)
	}
	return fmt.Sprintf("redis at %s: %s; remove them with\n  %s", e.Store.url, what, e.Store.RemoveCommand())
}

func (e *LeftError) Unwrap() error { return e.Err }

// Pattern is the SCAN pattern of every key of this run (on a cluster,
// under every one of its tags).
func (s *Store) Pattern() string {
	if s.cluster != nil {
		return strings.TrimSuffix(s.prefix, "}:") + ".*"
	}
	return s.prefix + "*"
}

// RemoveCommand is a shell command that removes every key of this run,
// for a run that could not: redis-cli's --scan, then UNLINK, keys passed
// NUL-separated so a space or a quote in a client's name stays in its key.
func (s *Store) RemoveCommand() string {
	if s.cluster != nil {
		return s.removeOnCluster()
	}
	cli := "redis-cli -u " + shellQuote(s.url)
	cmd := cli + " --scan --pattern " + shellQuote(s.Pattern()) + " | tr '\\n' '\\0' | xargs -0 " + cli + " unlink"
	if strings.Contains(s.url, ":xxxxx@") {
		cmd += "   # the password in place of xxxxx"
	}
	return cmd
}

// shellQuote is s as one word for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
