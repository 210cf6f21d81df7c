package accesslog

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"windowlab/algo"
)

// Epoch says what a number of a time field counts since the Unix epoch.
type Epoch uint8

const (
	EpochAuto Epoch = iota // by magnitude: seconds, milliseconds, microseconds or nanoseconds
	EpochSeconds
	EpochMillis
	EpochMicros
	EpochNanos
)

// ParseEpoch reads --epoch: auto, s, ms, us or ns.
func ParseEpoch(s string) (Epoch, error) {
	switch s {
	case "", "auto":
		return EpochAuto, nil
	case "s":
		return EpochSeconds, nil
	case "ms":
		return EpochMillis, nil
	case "us", "µs":
		return EpochMicros, nil
	case "ns":
		return EpochNanos, nil
	}
	return 0, errors.New("--epoch " + strconv.Quote(s) + ": use auto, s, ms, us or ns")
}

// stamp is a parsed time: the instant, and how finely the log wrote it
// (digits after the second: 0, 3, 6, 9).
type stamp struct {
	at     algo.Instant
	digits int
}

// months are the English month abbreviations of the Common Log Format.
var months = map[string]time.Month{
	"Jan": 1, "Feb": 2, "Mar": 3, "Apr": 4, "May": 5, "Jun": 6,
	"Jul": 7, "Aug": 8, "Sep": 9, "Oct": 10, "Nov": 11, "Dec": 12,
}

// digitsAt reads n decimal digits at b[i:].
func digitsAt(b []byte, i, n int) (int, bool) {
	if i < 0 || i+n > len(b) {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+n] {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// fraction reads the digits after a decimal point at b[i:] (i at the
// point), as nanoseconds, and returns where they end and how many there
// were.
func fraction(b []byte, i int) (ns int, end, digits int) {
	if i >= len(b) || (b[i] != '.' && b[i] != ',') {
		return 0, i, 0
	}
	j := i + 1
	scale := 100_000_000
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		if digits < 9 {
			ns += int(b[j]-'0') * scale
			scale /= 10
		}
		digits++
		j++
	}
	if digits == 0 {
		return 0, i, 0
	}
	return ns, j, min(digits, 9)
}

// zone reads a UTC offset at b[i:]: Z, ±hh:mm, ±hhmm; it returns the
// offset in seconds east and where it ends.
func zone(b []byte, i int) (offset, end int, ok bool) {
	if i >= len(b) {
		return 0, i, false
	}
	if b[i] == 'Z' || b[i] == 'z' {
		return 0, i + 1, true
	}
	if b[i] != '+' && b[i] != '-' {
		return 0, i, false
	}
	h, ok1 := digitsAt(b, i+1, 2)
	j := i + 3
	if j < len(b) && b[j] == ':' {
		j++
	}
	m, ok2 := digitsAt(b, j, 2)
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, i, false
	}
	offset = (h*60 + m) * 60
	if b[i] == '-' {
		offset = -offset
	}
	return offset, j + 2, true
}

// instant makes the instant of a civil time with its UTC offset, or false
// when a field is out of range.
func instant(year int, month time.Month, day, hour, minute, sec, ns, offset int) (algo.Instant, bool) {
	if month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 {
		return 0, false
	}
	t := time.Date(year, month, day, hour, minute, sec, ns, time.UTC)
	if t.Day() != day { // 31 April
		return 0, false
	}
	ms := t.UnixMilli() - int64(offset)*1000
	if ms < int64(algo.Dated) || ms > maxInstant {
		return 0, false // before 2000: no web server's log; after 9999, no RFC 3339
	}
	return algo.Instant(ms), true
}

// clfTime reads the Common Log Format's time, 10/Oct/2000:13:55:36 -0700,
// also with a fraction of the second (13:55:36.123): the inside of its
// brackets.
func clfTime(b []byte) (stamp, bool) {
	day, ok1 := digitsAt(b, 0, 2)
	if !ok1 || len(b) < 20 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' {
		return stamp{}, false
	}
	month, ok := months[string(b[3:6])]
	year, ok2 := digitsAt(b, 7, 4)
	hour, ok3 := digitsAt(b, 12, 2)
	minute, ok4 := digitsAt(b, 15, 2)
	sec, ok5 := digitsAt(b, 18, 2)
	if !ok || !ok2 || !ok3 || !ok4 || !ok5 {
		return stamp{}, false
	}
	ns, i, digits := fraction(b, 20)
	offset := 0
	if i < len(b) {
		if b[i] != ' ' {
			return stamp{}, false
		}
		var end int
		if offset, end, ok = zone(b, i+1); !ok || end != len(b) {
			return stamp{}, false
		}
	}
	at, ok := instant(year, month, day, hour, minute, sec, ns, offset)
	return stamp{at, digits}, ok
}

// rfc3339 reads 2026-11-30T23:59:59.250Z (a space for the T, an offset
// for the Z); a time without a zone is UTC.
func rfc3339(b []byte) (stamp, bool) {
	year, ok1 := digitsAt(b, 0, 4)
	if !ok1 || len(b) < 19 || b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != 't' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return stamp{}, false
	}
	month, ok2 := digitsAt(b, 5, 2)
	day, ok3 := digitsAt(b, 8, 2)
	hour, ok4 := digitsAt(b, 11, 2)
	minute, ok5 := digitsAt(b, 14, 2)
	sec, ok6 := digitsAt(b, 17, 2)
	if !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return stamp{}, false
	}
	ns, i, digits := fraction(b, 19)
	offset := 0
	if i < len(b) {
		var end int
		var ok bool
		if offset, end, ok = zone(b, i); !ok || end != len(b) {
			return stamp{}, false
		}
	}
	at, ok := instant(year, time.Month(month), day, hour, minute, sec, ns, offset)
	return stamp{at, digits}, ok
}

// epochTime reads a number of seconds, milliseconds, microseconds or
// nanoseconds since the Unix epoch (1700000000, 1700000000.123,
// 1700000000123): by unit, or for EpochAuto by its magnitude.
func epochTime(b []byte, unit Epoch) (stamp, bool) {
	whole := b
	var frac []byte
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		whole, frac = b[:i], b[i+1:]
	}
	if len(whole) == 0 || len(whole) > 19 {
		return stamp{}, false
	}
	var n int64
	for _, c := range whole {
		if c < '0' || c > '9' {
			return stamp{}, false
		}
		n = n*10 + int64(c-'0')
	}
	if unit == EpochAuto {
		switch {
		case n < 100_000_000_000:
			unit = EpochSeconds
		case n < 100_000_000_000_000:
			unit = EpochMillis
		case n < 100_000_000_000_000_000:
			unit = EpochMicros
		default:
			unit = EpochNanos
		}
	}
	// Nanoseconds of the fraction, for the unit.
	var fns int64
	digits := 0
	scale := int64(100_000_000)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return stamp{}, false
		}
		if digits < 9 {
			fns += int64(c-'0') * scale
			scale /= 10
		}
		digits++
	}
	var ms int64
	resolution := 0
	switch unit {
	case EpochSeconds:
		ms, resolution = n*1000+fns/1_000_000, min(digits, 9)
	case EpochMillis:
		ms, resolution = n, 3+min(digits, 6)
	case EpochMicros:
		ms, resolution = n/1000, 6
	case EpochNanos:
		ms, resolution = n/1_000_000, 9
	}
	if ms < int64(algo.Dated) || ms > maxInstant {
		return stamp{}, false
	}
	return stamp{algo.Instant(ms), resolution}, true
}

// maxInstant is the last instant a log may hold: the year 9999.
const maxInstant = 253_402_300_799_999

// anyTime reads a time written any of the ways a log's field may be: RFC
// 3339, the Common Log Format's, or a number since the epoch.
func anyTime(b []byte, unit Epoch) (stamp, bool) {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' && b[len(b)-1] == ']' {
		b = b[1 : len(b)-1]
	}
	if st, ok := rfc3339(b); ok {
		return st, true
	}
	if st, ok := clfTime(b); ok {
		return st, true
	}
	return epochTime(b, unit)
}

// readSeconds reads a duration a log holds, to whole milliseconds (any
// finer part dropped): a number of seconds (nginx's $request_time,
// 0.250) or a duration with its unit (250ms, 1.5s).
func readSeconds(b []byte) (int64, bool) {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return int64(d / time.Millisecond), true
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" {
		return 0, false
	}
	var ms int64
	for _, c := range whole {
		if c < '0' || c > '9' || ms > 1e15 {
			return 0, false
		}
		ms = ms*10 + int64(c-'0')
	}
	ms *= 1000
	scale := int64(100)
	for _, c := range frac {
		if c < '0' || c > '9' {
			return 0, false
		}
		ms += int64(c-'0') * scale
		scale /= 10
	}
	return ms, true
}
