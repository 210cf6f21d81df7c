// Package long is the one switch between the quick test run and the
// thorough one. `go test ./...` runs every property, differential and
// soak test at a size that keeps the whole suite near a minute on two
// cores; with WINDOWLAB_LONG=1 the same tests run at full size (thousands
// of random cases each, a million clients, the ten-minute soak as fast as
// it goes), and WINDOWLAB_LONG=wall plays the soak in real time too.
//
// It lives under internal/ because only windowlab's own tests may use it:
// it is test support, never part of the program.
package long

import (
	"flag"
	"os"
	"strconv"
	"testing"

	"pgregory.net/rapid"
)

// Env is the variable that turns the thorough run on.
const Env = "WINDOWLAB_LONG"

// Enabled reports whether this is the thorough run.
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Wall reports whether the soak should run in real time (WINDOWLAB_LONG=wall).
func Wall() bool { return os.Getenv(Env) == "wall" }

// N is quick in the ordinary run and full in the thorough one.
func N(quick, full int) int {
	if Enabled() {
		return full
	}
	return quick
}

// Check runs the rapid property prop on N(quick, full) random cases, unless
// the count is set for the whole run with -rapid.checks or RAPID_CHECKS.
func Check(t *testing.T, quick, full int, prop func(*rapid.T)) {
	t.Helper()
	explicit := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "rapid.checks" })
	if f := flag.Lookup("rapid.checks"); f != nil && !explicit {
		old := f.Value.String()
		if err := f.Value.Set(strconv.Itoa(N(quick, full))); err != nil {
			t.Fatal(err)
		}
		defer f.Value.Set(old)
	}
	rapid.Check(t, prop)
}
