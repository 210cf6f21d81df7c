// Package redisclustertest starts a real Redis Cluster for windowlab's
// tests: six redis-servers on free 127.0.0.1 ports, without persistence,
// joined by `redis-cli --cluster create` as three primaries each with a
// replica, and killed (by PID) when the test binary's tests are done.
// Where there is no redis-server or redis-cli the test is skipped with one
// line saying how to install them, unless WINDOWLAB_REDIS=required (as
// .ci/run sets it), when it fails instead.
//
// It lives under internal/ because only windowlab's own tests may use it.
package redisclustertest

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"windowlab/internal/redistest"
)

// Wait bounds each step of starting a cluster: a server ready, the
// cluster created, every node agreeing it is ok.
const Wait = 30 * time.Second

// Node is one redis-server of a cluster.
type Node struct {
	Addr string // 127.0.0.1:port
	Port int
	PID  int
	Dir  string // its working directory (nodes-PORT.conf, its log)
	cmd  *exec.Cmd
}

// Kill stops the node at once, as a crash would.
func (n *Node) Kill() {
	if n.cmd.Process != nil {
		n.cmd.Process.Kill()
		n.cmd.Wait()
	}
}

// Cluster is a running Redis Cluster.
type Cluster struct {
	Nodes    []*Node
	URL      string // redis-cluster://ADDR,ADDR,ADDR (its seeds), with :PASSWORD@ when it has one
	Password string // every node's requirepass and masterauth ("": none)
	dir      string
}

// client is a connection to the node at addr, with the cluster's password.
func (c *Cluster) client(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, Password: c.Password, DialTimeout: time.Second, ReadTimeout: time.Second})
}

// NodeURL is a redis:// URL of one node, with the cluster's password.
func (c *Cluster) NodeURL(n *Node) string {
	if c.Password == "" {
		return "redis://" + n.Addr + "/0"
	}
	return "redis://" + url.UserPassword("", c.Password).String() + "@" + n.Addr + "/0"
}

// Role is "master" or "slave", as the node itself says now (ROLE).
func (c *Cluster) Role(n *Node) (string, error) {
	cl := c.client(n.Addr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	v, err := cl.Do(ctx, "ROLE").Slice()
	if err != nil {
		return "", err
	}
	role, _ := v[0].(string)
	return role, nil
}

// Primaries are the nodes that are primaries now.
func (c *Cluster) Primaries() []*Node {
	var out []*Node
	for _, n := range c.Nodes {
		if r, err := c.Role(n); err == nil && r == "master" {
			out = append(out, n)
		}
	}
	return out
}

// Stop kills every node and removes their directory.
func (c *Cluster) Stop() {
	for _, n := range c.Nodes {
		n.Kill()
	}
	os.RemoveAll(c.dir)
}

var shared struct {
	main bool // Main runs the binary's tests: it stops the cluster after them
	once sync.Once
	c    *Cluster
	err  error
}

// Shared is one cluster for every test of the binary that calls it,
// started on first use; Main stops it when they are done. Tests that use
// it keep to keys of their own (every windowlab run has its own prefix)
// and must not kill its nodes: Start one of their own for that.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if !shared.main {
		t.Fatal("redisclustertest.Shared needs redisclustertest.Main in the package's TestMain, which stops the cluster")
	}
	need(t)
	// No test kills a node of it, so no failover is wanted: Redis's own
	// default node timeout, 15 s, rather than the 2 s that lets the
	// failover tests promote a replica quickly. With 2 s a machine loaded
	// past its cores (the race detector, other suites) could miss a ping
	// long enough to fail a primary over under a run (once under such load
	// a run's 672 keys were left on the cluster).
	shared.once.Do(func() { shared.c, shared.err = start(6, "--cluster-node-timeout", "15000") })
	if shared.err != nil {
		t.Fatalf("redis cluster: %v", shared.err)
	}
	return shared.c
}

// Main runs a test binary's tests and stops the shared cluster after
// them: call it from TestMain.
func Main(m *testing.M) {
	shared.main = true
	code := m.Run()
	if shared.c != nil {
		shared.c.Stop()
	}
	os.Exit(code)
}

// Start is a cluster of the test's own (three primaries, three replicas),
// stopped when it ends.
func Start(t testing.TB) *Cluster {
	t.Helper()
	need(t)
	c, err := start(6)
	if err != nil {
		t.Fatalf("redis cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartWith is Start with more arguments for every redis-server, such
// as a shorter --cluster-node-timeout for a test that fails a primary over.
func StartWith(t testing.TB, extra ...string) *Cluster {
	t.Helper()
	need(t)
	c, err := start(6, extra...)
	if err != nil {
		t.Fatalf("redis cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartWithPassword is StartWith on nodes that require password of every
// client (requirepass) and give it to their primaries (masterauth); the
// cluster's URL carries it.
func StartWithPassword(t testing.TB, password string, extra ...string) *Cluster {
	t.Helper()
	need(t)
	c, err := startAuth(6, password, append([]string{"--requirepass", password, "--masterauth", password}, extra...)...)
	if err != nil {
		t.Fatalf("redis cluster: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// need skips t, or fails it, without redis-server and redis-cli.
func need(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			if os.Getenv(redistest.Env) == "required" {
				t.Fatalf("no %s, and %s=required", bin, redistest.Env)
			}
			t.Skipf("no %s here (Debian: apt-get install redis-server redis-tools)", bin)
		}
	}
}

// StartNode runs one redis-server with cluster support in a directory of
// its own under dir: a node of no cluster yet. extra are more arguments.
func StartNode(dir string, extra ...string) (*Node, error) {
	var lastErr error
	for range 5 { // a port found free may be taken before the server binds it
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		n, err := startNode(dir, port, extra)
		if err == nil {
			return n, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startNode(dir string, port int, extra []string) (*Node, error) {
	nd := filepath.Join(dir, fmt.Sprint(port))
	if err := os.MkdirAll(nd, 0o755); err != nil {
		return nil, err
	}
	args := []string{"--port", fmt.Sprint(port), "--bind", "127.0.0.1",
		"--cluster-enabled", "yes", "--cluster-config-file", fmt.Sprintf("nodes-%d.conf", port),
		"--cluster-node-timeout", "2000", "--save", "", "--appendonly", "no",
		"--dir", nd, "--logfile", "", "--daemonize", "no"}
	cmd := exec.Command("redis-server", append(args, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.Contains(sc.Text(), "Ready to accept connections") {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			return nil, fmt.Errorf("redis-server on port %d exited", port)
		}
	case <-time.After(Wait):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("redis-server on port %d not ready in %s", port, Wait)
	}
	return &Node{Addr: fmt.Sprintf("127.0.0.1:%d", port), Port: port, PID: cmd.Process.Pid, Dir: nd, cmd: cmd}, nil
}

// start runs n nodes (a multiple of two: primaries and one replica each)
// and joins them into a cluster.
func start(n int, extra ...string) (c *Cluster, err error) { return startAuth(n, "", extra...) }

// startAuth is start with the nodes' password (extra sets it on them).
func startAuth(n int, password string, extra ...string) (c *Cluster, err error) {
	dir, err := os.MkdirTemp("", "windowlab-cluster-")
	if err != nil {
		return nil, err
	}
	c = &Cluster{dir: dir, Password: password}
	defer func() {
		if err != nil {
			c.Stop()
			c = nil
		}
	}()
	for range n {
		node, err := StartNode(dir, extra...)
		if err != nil {
			return nil, err
		}
		c.Nodes = append(c.Nodes, node)
	}
	args := []string{"--cluster", "create"}
	var seeds []string
	for _, node := range c.Nodes {
		args = append(args, node.Addr)
		seeds = append(seeds, node.Addr)
	}
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if password != "" {
		args = append(args, "--no-auth-warning", "-a", password)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Wait)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	c.URL = "redis-cluster://" + strings.Join(seeds[:3], ",")
	if password != "" {
		c.URL = "redis-cluster://" + url.UserPassword("", password).String() + "@" + strings.Join(seeds[:3], ",")
	}
	return c, c.WaitOK(Wait)
}

// WaitOK waits, at most within, until every node still running says
// cluster_state:ok with all 16,384 slots assigned and ok.
func (c *Cluster) WaitOK(within time.Duration) error {
	return c.waitEach(within, "not healthy", c.nodeOK)
}

// WaitFailover waits, at most within, until the killed primary's slots
// are served again: every node still running no longer names it a primary
// (its replica promoted) and says the cluster is ok.
func (c *Cluster) WaitFailover(killed *Node, within time.Duration) error {
	return c.waitEach(within, "no failover", func(addr string) string {
		if why := c.nodeOK(addr); why != "" {
			return why
		}
		if c.namesPrimary(addr, killed.Addr) {
			return "still names " + killed.Addr + " a primary"
		}
		return ""
	})
}

// WaitSynced waits, at most within, until every replica running says its
// link to its primary is up: a replica that never synced does not fail
// over (its data is too old).
func (c *Cluster) WaitSynced(within time.Duration) error {
	return c.waitEach(within, "not synced", func(addr string) string {
		cl := c.client(addr)
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		info, err := cl.Info(ctx, "replication").Result()
		if err != nil || strings.Contains(info, "role:slave") && !strings.Contains(info, "master_link_status:up") {
			return "its link to its primary is not up"
		}
		return ""
	})
}

// waitEach waits, at most within, until why says nothing of every node
// still running (a killed one is skipped), asking again every 100 ms; its
// error is what (the wait's failure in a few words) and the last node's
// why.
func (c *Cluster) waitEach(within time.Duration, what string, why func(addr string) string) error {
	deadline := time.Now().Add(within)
	for {
		last := ""
		for _, n := range c.Nodes {
			if n.cmd.ProcessState != nil {
				continue // killed
			}
			if w := why(n.Addr); w != "" {
				last = n.Addr + ": " + w
				break
			}
		}
		if last == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s within %s: %s", what, within, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// namesPrimary reports whether the node at addr names primary a primary
// that serves slots (CLUSTER NODES).
func (c *Cluster) namesPrimary(addr, primary string) bool {
	cl := c.client(addr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	nodes, err := cl.ClusterNodes(ctx).Result()
	if err != nil {
		return true
	}
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) > 8 && strings.HasPrefix(f[1], primary+"@") && strings.Contains(f[2], "master") && !strings.Contains(f[2], "fail") {
			return true
		}
	}
	return false
}

// nodeOK is "" when the node at addr says the cluster is ok, else why not.
func (c *Cluster) nodeOK(addr string) string {
	cl := c.client(addr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	info, err := cl.ClusterInfo(ctx).Result()
	if err != nil {
		return err.Error()
	}
	for _, want := range []string{"cluster_state:ok", "cluster_slots_assigned:16384", "cluster_slots_ok:16384"} {
		if !strings.Contains(info, want) {
			return "CLUSTER INFO lacks " + want
		}
	}
	return ""
}
