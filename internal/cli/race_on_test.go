//go:build race

package cli

// raceEnabled says the tests run under the race detector, whose own
// allocations a test that reads the heap would count as the code's.
const raceEnabled = true
