// Command genlog writes the benchmark's access log (package loggen):
//
//	go run ./internal/loggen/cmd/genlog -seed 1 -lines 10000000 -clients 100000 -heavy 5 -format combined -gzip -o access.log.gz
//
// It never writes over a file; -o - writes to standard output (a 100M-line
// log piped to windowlab replay - needs no 11 GB on disk).
package main

import (
	"flag"
	"fmt"
	"os"

	"windowlab/internal/loggen"
)

func main() {
	var o loggen.Options
	var out string
	flag.Uint64Var(&o.Seed, "seed", 1, "the seed: the same seed and options write the same bytes")
	flag.Int64Var(&o.Lines, "lines", 1_000_000, "the lines (requests), spread over a 24-hour day (or -days)")
	flag.IntVar(&o.Days, "days", 1, "spread the lines over that many days, each the same shape")
	flag.IntVar(&o.Clients, "clients", 100_000, "the clients, drawn Zipf-like")
	flag.IntVar(&o.Heavy, "heavy", 5, "heavy clients besides, sending 5% of the lines together")
	flag.StringVar(&o.Format, "format", "combined", "combined (nginx) or jsonl")
	flag.BoolVar(&o.Gzip, "gzip", false, "gzip the log")
	flag.StringVar(&out, "o", "", "the file to write (a new one), or - for standard output")
	flag.Parse()
	if err := o.Validate(); err != nil {
		fail(err)
	}
	if out == "" {
		fail(fmt.Errorf("-o: give the file to write, or - for standard output"))
	}
	if out == "-" {
		if err := loggen.Write(os.Stdout, o); err != nil {
			fail(err)
		}
		return
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		fail(err)
	}
	if err := loggen.Write(f, o); err != nil {
		f.Close()
		os.Remove(out)
		fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(out)
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genlog:", err)
	os.Exit(2)
}
