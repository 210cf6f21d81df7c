package loggen

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
)

// Floor is what ReadFloor read: the lines, those it could not read, the
// clients' bytes and the sum of the instants (kept so that nothing is
// optimized away).
type Floor struct {
	Lines, Bad, AddressBytes, InstantSum int64
}

// ReadFloor is the floor BENCHMARKS.md measures windowlab's replay
// against: the least a Go program reading a Combined log must do, split
// its lines (gunzipping it first when it is gzip) and parse each line's
// client address and [time] to an instant, nothing kept.
func ReadFloor(r io.Reader) (Floor, error) {
	var f Floor
	br := bufio.NewReaderSize(r, 1<<16)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return f, err
		}
		in = zr
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		f.Lines++
		sp := bytes.IndexByte(line, ' ')
		open := bytes.IndexByte(line, '[')
		end := bytes.IndexByte(line, ']')
		if sp < 0 || open < 0 || end < open {
			f.Bad++
			continue
		}
		f.AddressBytes += int64(sp)
		ms, ok := clf(line[open+1 : end])
		if !ok {
			f.Bad++
			continue
		}
		f.InstantSum += ms
	}
	return f, sc.Err()
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
