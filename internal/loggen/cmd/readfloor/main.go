// Command readfloor is the floor BENCHMARKS.md measures windowlab's replay
// against (loggen.ReadFloor): the least a Go program reading a Combined
// log must do, split its lines (gunzipping it first when it is gzip) and
// parse each line's client address and [time] to an instant, nothing
// kept:
//
//	go run ./internal/loggen/cmd/readfloor access.log.gz
//
// It prints the lines, the clients' bytes and the sum of the instants, so
// that nothing is optimized away.
package main

import (
	"fmt"
	"os"

	"windowlab/internal/loggen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: readfloor FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	fl, err := loggen.ReadFloor(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d lines, %d bad, %d bytes of addresses, instants sum %d\n", fl.Lines, fl.Bad, fl.AddressBytes, fl.InstantSum)
}
