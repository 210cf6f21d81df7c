package redisstore

import (
	"context"
	"strings"
	"testing"

	"windowlab/internal/redisclustertest"
)

// A call whose keys are in two slots (a key named without the run's tag
// scheme) is refused by the cluster with CROSSSLOT: the store's error is
// one line saying so, never a hang or a retry.
func TestCROSSSLOTIsOneLine(t *testing.T) {
	c := redisclustertest.Shared(t)
	s, err := Open(context.Background(), c.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if Slot(s.tags[0][strings.Index(s.tags[0], "{")+1:strings.Index(s.tags[0], "}")]) ==
		Slot(s.tags[1][strings.Index(s.tags[1], "{")+1:strings.Index(s.tags[1], "}")]) {
		t.Fatal("two tags in one slot: the test proves nothing")
	}
	s.run(0, evalsha(s.sha["sweep"], []any{s.tags[0] + "expiry", s.tags[1] + "expiry"}, 0, s.tags[0], 1), func(any) error { return nil })
	err = s.Err()
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") || !strings.Contains(err.Error(), "{hash tag}") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a call across two slots: %v; want one line naming CROSSSLOT and the hash tag", err)
	}
}
