package redisstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// On a Redis Cluster a script may touch keys of one hash slot only, and
// the slot of a key is that of its {hash tag}. So a run's keys are not
// under one tag, as on one Redis (every key in one slot, on one shard),
// but under a few: tags per primary, each chosen to hash to a slot that
// primary serves, and a client's keys under the tag its name hashes to.
// Each lane keeps an expiry index per tag, beside the keys it indexes, so
// every script (a decision, a sweep, a trim) and every COPY of a
// checkpoint stays in one slot, and the clients spread over every shard.

// useClusterURL is how a cluster URL is written, for the end of every message about one.
const useClusterURL = "use redis-cluster://[:PASSWORD@]HOST:PORT[,HOST:PORT...], for example redis-cluster://127.0.0.1:7000,127.0.0.1:7001"

// TagsPerPrimary is how many hash tags a run's keys spread over on each
// primary of a cluster.
const TagsPerPrimary = 4

// IsClusterURL reports whether rawURL names a Redis Cluster.
func IsClusterURL(rawURL string) bool {
	scheme, _, _ := strings.Cut(rawURL, "://")
	switch strings.ToLower(scheme) {
	case "redis-cluster", "redis+cluster", "rediss-cluster", "rediss+cluster":
		return true
	}
	return false
}

// parseClusterURL is the options a cluster URL gives go-redis and the URL
// as it may be printed, or why it cannot be used, never quoting the user
// name or password.
func parseClusterURL(rawURL string) (*redis.ClusterOptions, string, error) {
	scheme, rest, _ := strings.Cut(rawURL, "://")
	userinfo, hasUser := "", false
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		userinfo, rest, hasUser = rest[:at], rest[at+1:], true
	}
	shown := scheme + "://"
	if hasUser {
		shown += "xxxxx@"
	}
	shown = printable(shown + rest)
	o := &redis.ClusterOptions{}
	if strings.HasPrefix(strings.ToLower(scheme), "rediss") {
		return nil, shown, errors.New("TLS to a cluster is not supported yet; " + useClusterURL)
	}
	if hasUser {
		u, err := url.Parse("redis://" + userinfo + "@host")
		if err != nil || u.User == nil || strings.ContainsAny(userinfo, "/?#") {
			return nil, shown, fmt.Errorf("%s; %s", userinfoError(userinfo), useClusterURL)
		}
		o.Username = u.User.Username()
		o.Password, _ = u.User.Password()
		shown = printable(scheme + "://" + redactedUser(u.User) + "@" + rest)
	}
	hosts, tail := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		hosts, tail = rest[:i], rest[i:]
	}
	switch {
	case strings.HasPrefix(tail, "?") || strings.Contains(tail, "?"):
		return nil, shown, errors.New("a cluster URL takes no options after '?'; " + useClusterURL)
	case strings.HasPrefix(tail, "#"):
		return nil, shown, errors.New("a cluster URL has no '#'; " + useClusterURL)
	case tail != "" && tail != "/" && tail != "/0":
		return nil, shown, fmt.Errorf("a cluster has one database, 0: drop %s; %s", tail, useClusterURL)
	}
	if hosts == "" {
		return nil, shown, errors.New("no HOST:PORT; " + useClusterURL)
	}
	for _, a := range strings.Split(hosts, ",") {
		host, port, err := net.SplitHostPort(a)
		n, perr := strconv.Atoi(port)
		switch {
		case err != nil || host == "":
			return nil, shown, fmt.Errorf("%q is not HOST:PORT; %s", a, useClusterURL)
		case perr != nil || n < 1 || n > 65535:
			return nil, shown, fmt.Errorf("%q: the port is a number from 1 to 65535; %s", a, useClusterURL)
		}
		o.Addrs = append(o.Addrs, a)
	}
	return o, shown, nil
}

// redactedUser is u written with any password as xxxxx.
func redactedUser(u *url.Userinfo) string {
	if _, ok := u.Password(); ok {
		return url.UserPassword(u.Username(), "xxxxx").String()
	}
	return u.String()
}

// openCluster connects to the cluster a redis-cluster:// URL names and
// checks it can be used: every seed that answers a cluster node whose
// slots are all served, every primary new enough and writable.
func openCluster(ctx context.Context, rawURL string, o Options) (*Store, error) {
	copt, shown, err := parseClusterURL(rawURL)
	fail := func(err error) (*Store, error) { return nil, &Error{URL: shown, Reason: err.Error()} }
	if err != nil {
		return fail(err)
	}
	copt.DialTimeout, copt.ReadTimeout, copt.WriteTimeout = Timeout, Timeout, Timeout
	copt.PoolTimeout = Timeout
	copt.MaxRetries = -1
	copt.DialerRetries = 1
	copt.PoolSize = 2
	copt.Protocol = 2
	copt.DisableIdentity = true
	copt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	if err := checkSeeds(ctx, copt); err != nil {
		return fail(err)
	}
	cc := redis.NewClusterClient(copt)
	s := &Store{client: cc, cluster: cc, copt: copt, url: shown, sha: map[string]any{}, pipelined: o.Pipelined && o.OnError == PolicyStop, policy: o.OnError}
	s.writes.idle = make(chan struct{})
	if err := s.checkCluster(ctx); err != nil {
		cc.Close()
		return fail(err)
	}
	s.prefix = "windowlab:{" + runID() + "}:"
	if err := s.pickTags(ctx); err != nil {
		cc.Close()
		return fail(err)
	}
	if err := s.load(ctx); err != nil {
		cc.Close()
		return fail(err)
	}
	s.startPipeline()
	return s, nil
}

// checkSeeds asks each seed for CLUSTER INFO: a node without cluster
// support or a cluster with slots unassigned is said so at once; a seed
// that does not answer is passed over while another does.
func checkSeeds(ctx context.Context, copt *redis.ClusterOptions) error {
	var firstErr error
	answered := false
	for _, addr := range copt.Addrs {
		c := redis.NewClient(&redis.Options{Addr: addr, Username: copt.Username, Password: copt.Password,
			DialTimeout: Timeout, ReadTimeout: Timeout, WriteTimeout: Timeout, MaxRetries: -1, DialerRetries: 1,
			Protocol: 2, DisableIdentity: true,
			MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}})
		cctx, cancel := context.WithTimeout(ctx, Timeout)
		info, err := c.ClusterInfo(cctx).Result()
		cancel()
		c.Close()
		switch {
		case err != nil && strings.Contains(err.Error(), "cluster support disabled"):
			return fmt.Errorf("%s is not a cluster node (cluster support is disabled there); for a single Redis use redis://%s/0, for a cluster name its nodes", addr, addr)
		case err != nil:
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", addr, reason(err))
			}
			continue
		}
		answered = true
		if state := field(info, "cluster_state"); state != "ok" {
			return fmt.Errorf("the cluster is not serving every slot (%s says cluster_state:%s, %s of 16384 slots assigned, %s ok): assign them (redis-cli --cluster fix %s) or wait for it to recover",
				addr, state, field(info, "cluster_slots_assigned"), field(info, "cluster_slots_ok"), addr)
		}
	}
	if !answered {
		return firstErr
	}
	return nil
}

// checkCluster makes sure every primary is new enough and takes writes.
func (s *Store) checkCluster(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	var mu sync.Mutex
	var old []string
	err := s.cluster.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		info, err := m.Info(ctx, "server").Result()
		if err != nil {
			return reason(err)
		}
		if v := field(info, "redis_version"); !atLeast(v, 6, 2) {
			mu.Lock()
			old = append(old, m.Options().Addr+" runs "+v)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return reason(err)
	}
	if len(old) > 0 {
		return fmt.Errorf("%s: windowlab needs Redis 6.2 or later (COPY, ZADD GT)", strings.Join(old, ", "))
	}
	probe := "windowlab:probe"
	if err := s.cluster.Set(ctx, probe, "1", 0).Err(); err != nil {
		return reason(err)
	}
	return reason(s.cluster.Del(ctx, probe).Err())
}

// pickTags chooses the run's hash tags: TagsPerPrimary per primary, each
// the first of {run-id.0}, {run-id.1}, ... to hash to a slot the primary
// serves, so a run's keys spread over every shard.
func (s *Store) pickTags(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	//lint:ignore SA1019 CLUSTER SHARDS is Redis 7.0's; windowlab takes 6.2, where CLUSTER SLOTS is the one
	slots, err := s.cluster.ClusterSlots(cctx).Result()
	if err != nil {
		return reason(err)
	}
	owner := make([]string, 16384)
	var primaries []string
	for _, r := range slots {
		if len(r.Nodes) == 0 {
			continue
		}
		a := r.Nodes[0].Addr
		if !slices.Contains(primaries, a) {
			primaries = append(primaries, a)
		}
		for _, n := range r.Nodes[1:] {
			if !slices.Contains(s.replicas, n.Addr) {
				s.replicas = append(s.replicas, n.Addr)
			}
		}
		for sl := r.Start; sl <= r.End && sl < len(owner); sl++ {
			owner[sl] = a
		}
	}
	slices.Sort(primaries)
	slices.Sort(s.replicas)
	s.primaries = primaries
	id := strings.TrimSuffix(strings.TrimPrefix(s.prefix, "windowlab:{"), "}:")
	want := map[string]int{}
	for _, p := range primaries {
		want[p] = TagsPerPrimary
	}
	for n := 0; len(s.tags) < TagsPerPrimary*len(primaries) && n < 1_000_000; n++ {
		tag := id + "." + strconv.Itoa(n)
		sl := Slot(tag)
		if p := owner[sl]; p != "" && want[p] > 0 {
			want[p]--
			s.tags = append(s.tags, "windowlab:{"+tag+"}:")
		}
	}
	if len(s.tags) == 0 {
		return errors.New("CLUSTER SLOTS names no primary")
	}
	return nil
}

// Slot is the cluster hash slot of a key whose whole name is its tag:
// CRC16 (XMODEM) modulo 16384, as Redis Cluster computes it.
func Slot(tag string) int {
	var crc uint16
	for i := 0; i < len(tag); i++ {
		crc ^= uint16(tag[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}

// tagOf is the index of the tag a client's keys are under.
func (s *Store) tagOf(client string) int {
	if len(s.tags) <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(client))
	return int(h.Sum32() % uint32(len(s.tags)))
}

// Cluster reports whether the store is a Redis Cluster.
func (s *Store) Cluster() bool { return s.cluster != nil }

// Shard is where a client's keys live: the primary serving their tag's
// slot now ("" on one Redis), and the slot.
func (s *Store) Shard(client string) (node string, slot int) { return s.tagShard(s.tagOf(client)) }

// NodeKeys is how many keys of the run one primary holds.
type NodeKeys struct {
	Addr string
	Keys int64
}

// KeysByNode is how many keys of the run each primary holds now, in the
// order of their addresses (one entry, the server's, on one Redis).
func (s *Store) KeysByNode() ([]NodeKeys, error) {
	s.Flush()
	var mu sync.Mutex
	count := map[string]int64{}
	err := scanOn(context.Background(), s.client, s.Pattern(), func(node *redis.Client, keys []string) error {
		mu.Lock()
		defer mu.Unlock()
		count[node.Options().Addr] += int64(len(keys))
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []NodeKeys
	for _, p := range s.primaries {
		out = append(out, NodeKeys{Addr: p, Keys: count[p]})
		delete(count, p)
	}
	for a, n := range count { // a primary promoted since
		out = append(out, NodeKeys{Addr: a, Keys: n})
	}
	slices.SortFunc(out, func(a, b NodeKeys) int { return strings.Compare(a.Addr, b.Addr) })
	return out, nil
}

// scanTag is scanOn for keys under the store's tag b: on the server, or
// on the primary that serves the tag's slot.
func (s *Store) scanTag(b int, pattern string, f func(*redis.Client, []string) error) error {
	node, ok := s.client.(*redis.Client)
	if s.cluster != nil {
		ctx, cancel := s.ctx()
		m, err := s.cluster.MasterForKey(ctx, s.tags[b])
		cancel()
		if err != nil {
			return reason(err)
		}
		node, ok = m, true
	}
	if !ok {
		return errors.New("redis: no client for the store's tag")
	}
	return scanNode(context.Background(), node, pattern, f)
}

// removeOnCluster is RemoveCommand on a cluster: on every node the
// cluster had when the run opened, primaries and replicas (a replica may
// have been promoted since, a primary may be down), the run's keys found
// by --scan and unlinked one a command (they are in several slots), by
// redis-cli -c, which follows a replica's MOVED to the key's primary.
func (s *Store) removeOnCluster() string {
	auth := ""
	if s.copt.Password != "" {
		auth = " -a xxxxx"
		if s.copt.Username != "" {
			auth = " --user " + shellQuote(s.copt.Username) + " -a xxxxx"
		}
	}
	cli := `redis-cli -h "${n%:*}" -p "${n##*:}"` + auth + " --no-auth-warning"
	nodes := strings.Join(append(slices.Clone(s.primaries), s.replicas...), " ")
	cmd := "for n in " + nodes + "; do " + cli + " --scan --pattern " + shellQuote(s.Pattern()) +
		" 2>/dev/null | tr '\\n' '\\0' | xargs -0 -r -n 1 " + cli + " -c unlink >/dev/null; done"
	if auth != "" {
		cmd += "   # the password in place of xxxxx"
	}
	return cmd
}

// ShardUse is one primary of a cluster as a run used it: the slots of the
// tags its lanes wrote under there, and how many of its keys it holds now.
type ShardUse struct {
	Addr  string
	Slots []int
	Keys  int64
}

// Shards is every primary of the cluster with the slots ls wrote under
// and the run's keys each holds now, by address; nil on one Redis.
func (s *Store) Shards(ls []*Limiter) ([]ShardUse, error) {
	if s.cluster == nil {
		return nil, nil
	}
	byNode, err := s.KeysByNode()
	if err != nil {
		return nil, err
	}
	out := make([]ShardUse, len(byNode))
	at := map[string]int{}
	for i, nk := range byNode {
		out[i] = ShardUse{Addr: nk.Addr, Keys: nk.Keys}
		at[nk.Addr] = i
	}
	seen := make([]bool, len(s.tags))
	for _, l := range ls {
		for b, used := range l.used {
			seen[b] = seen[b] || used
		}
	}
	for b, used := range seen {
		if !used {
			continue
		}
		node, slot := s.tagShard(b)
		i, ok := at[node]
		if !ok {
			i, at[node] = len(out), len(out)
			out = append(out, ShardUse{Addr: node})
		}
		out[i].Slots = append(out[i].Slots, slot)
	}
	for i := range out {
		slices.Sort(out[i].Slots)
	}
	return out, nil
}

// tagShard is the primary serving tag b's slot now, and the slot.
func (s *Store) tagShard(b int) (node string, slot int) {
	tag := s.tags[b]
	slot = Slot(tag[strings.Index(tag, "{")+1 : strings.Index(tag, "}")])
	if s.cluster == nil {
		return "", slot
	}
	ctx, cancel := s.ctx()
	defer cancel()
	if m, err := s.cluster.MasterForKey(ctx, tag); err == nil {
		node = m.Options().Addr
	}
	return node, slot
}
