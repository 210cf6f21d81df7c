package scenarios

import (
	"slices"
	"testing"

	"windowlab/algo"
)

// The three shared-tally built-ins' numbers, stated here independently of
// their files: how far each fleet goes over the limit of 100, and what the
// failover loses (requests every 10 ms, a replica 200 ms behind: the 19
// writes after 12:00:30.800).
func TestSharingBuiltinsTeachTheLesson(t *testing.T) {
	for _, tc := range []struct {
		scenario, algorithm string
		allowed, lost       int64
	}{
		{"synced-tallies", "fixed-window", 100, 0},
		{"synced-tallies", "fixed-window@3~sync=100ms", 102, 0},
		{"synced-tallies", "fixed-window@3~sync=1s", 120, 0},
		{"synced-tallies", "fixed-window@3", 300, 0},
		{"split-quota", "fixed-window@3~split", 100, 0},
		{"split-quota", "fixed-window@3:client-hash~split", 34, 0},
		{"split-quota", "fixed-window@3", 150, 0},
		{"replica-lag", "fixed-window", 100, 0},
		{"replica-lag", "fixed-window~lag=200ms@12:00:31", 119, 19},
		{"replica-lag", "sliding-log~lag=200ms@12:00:31", 119, 19},
	} {
		s, err := Builtin(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		a, err := algo.ParseAlgorithm(tc.algorithm)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(s.Algorithms, a)
		if i < 0 {
			t.Fatalf("%s does not replay %s", tc.scenario, tc.algorithm)
		}
		e, err := s.Engine(simOptions())
		if err != nil {
			t.Fatal(err)
		}
		e.RunToEnd()
		st := e.Stats()[i]
		if st.Allowed != tc.allowed || st.ReplicaLost != tc.lost {
			t.Errorf("%s: %s allows %d, loses %d; want %d and %d", tc.scenario, tc.algorithm, st.Allowed, st.ReplicaLost, tc.allowed, tc.lost)
		}
		if tc.lost > 0 && st.MaxInWindow-s.Config.Limit > tc.lost {
			t.Errorf("%s: %s admits %d beyond the limit, more than the %d writes lost", tc.scenario, tc.algorithm, st.MaxInWindow-s.Config.Limit, tc.lost)
		}
	}
}
