//go:build !race

package cli

// raceEnabled says the tests run under the race detector (race_on_test.go).
const raceEnabled = false
