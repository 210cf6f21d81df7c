// Command readfloor is the floor BENCHMARKS.md measures windowlab's replay
// against: the least a Go program reading a Combined log must do, split
// its lines (gunzipping it first when it is gzip) and parse each line's
// client address and [time] to an instant, nothing kept:
//
//	go run ./internal/loggen/cmd/readfloor access.log.gz
//
// It prints the lines, the clients' bytes and the sum of the instants, so
// that nothing is optimized away.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
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
	var r io.Reader = bufio.NewReaderSize(f, 1<<16)
	if magic, _ := r.(*bufio.Reader).Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		if r, err = gzip.NewReader(r); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var lines, ipBytes, bad int64
	var sum int64
	for sc.Scan() {
		line := sc.Bytes()
		lines++
		sp := bytes.IndexByte(line, ' ')
		open := bytes.IndexByte(line, '[')
		end := bytes.IndexByte(line, ']')
		if sp < 0 || open < 0 || end < open {
			bad++
			continue
		}
		ipBytes += int64(sp)
		ms, ok := clf(line[open+1 : end])
		if !ok {
			bad++
			continue
		}
		sum += ms
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%d lines, %d bad, %d bytes of addresses, instants sum %d\n", lines, bad, ipBytes, sum)
}

var months = map[string]int{"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6, "Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12}

// clf reads 30/Nov/2026:06:31:00 +0000 to milliseconds since the epoch.
func clf(b []byte) (int64, bool) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[20] != ' ' {
		return 0, false
	}
	num := func(s []byte) int64 {
		var n int64
		for _, c := range s {
			n = n*10 + int64(c-'0')
		}
		return n
	}
	m, ok := months[string(b[3:6])]
	if !ok {
		return 0, false
	}
	y, mo, d := num(b[7:11]), int64(m), num(b[0:2])
	// Days since the epoch (Howard Hinnant's days_from_civil).
	if mo <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (mo + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := era*146097 + doe - 719468
	secs := days*86400 + num(b[12:14])*3600 + num(b[15:17])*60 + num(b[18:20])
	off := (num(b[22:24])*3600 + num(b[24:26])*60)
	if b[21] == '-' {
		off = -off
	}
	return (secs - off) * 1000, true
}
