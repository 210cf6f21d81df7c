package accesslog

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Any Combined line reads as a request or as a bad line with a reason;
// never a panic, and a time it reads is a date.
func FuzzCombinedLine(f *testing.F) {
	for _, s := range []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326 "-" "curl/8.0"`,
		`::1 - - [01/Dec/2026:00:00:01.250 +0000] "GET /x?y HTTP/1.1" 404 0 "r" "say \"hi\""`,
		`10.0.0.1 - - 1796083200.123 "GET / HTTP/1.1" 200 1`,
		`x y z [`, `a b c [31/Nov/2026:00:00:01 +0000] "`, "", `" " " "`,
	} {
		f.Add(s)
	}
	key, _ := ParseKey("ip+user+path+status+method+field:agent")
	f.Fuzz(func(t *testing.T, line string) {
		p := &combinedParser{key: key}
		parts := make([][]byte, len(key.parts))
		st, err := p.parse([]byte(line), parts)
		if err != nil {
			if _, ok := err.(errBadLine); !ok {
				t.Fatalf("%q: an error that is not a bad line: %v", line, err)
			}
			return
		}
		if !st.at.IsDated() || st.at > maxInstant {
			t.Fatalf("%q: read as %d, not a date", line, st.at)
		}
	})
}

// The JSON scanner reads a line as encoding/json does: the same objects,
// and the same top-level string values.
func FuzzJSONLine(f *testing.F) {
	for _, s := range []string{
		`{"ts":"2026-11-30T23:59:59.250Z","ip":"a"}`,
		`{"ts":1796083200,"ip":"b","n":{"x":[1,{"y":"}"}]}}`,
		`{"ts":"1796083200500","ip":"caf\u00e9 \"q\""}`,
		`{}`, `{"a":}`, `[1]`, `{"a":1,}`, `{"a":"\x"}`, `{"a":-0.5e+3}`, ` {"a":true} `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var want map[string]any
		stdErr := json.Unmarshal([]byte(line), &want)
		got := map[string]string{}
		err := scanObject([]byte(line), func(key, val []byte, isString bool) {
			k := string(key)
			if bytes.IndexByte(key, '\\') >= 0 {
				var s string
				if json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) == nil {
					k = s
				}
			}
			got[validUTF8(k)] = string(val) // as encoding/json reads a key
		})
		if (err == nil) != (stdErr == nil) {
			// encoding/json refuses invalid UTF-8 nowhere and duplicate keys
			// nowhere; the scanner agrees on what is an object.
			t.Fatalf("%q: scanner %v, encoding/json %v", line, err, stdErr)
		}
		if err != nil {
			return
		}
		for k, v := range want {
			s, ok := v.(string)
			if !ok {
				continue
			}
			raw, found := got[k]
			if !found {
				t.Fatalf("%q: the scanner did not see field %q", line, k)
			}
			if !strings.Contains(raw, `\`) && raw != s && strings.ToValidUTF8(raw, "\uFFFD") == raw {
				t.Fatalf("%q: field %q is %q, encoding/json reads %q", line, k, raw, s)
			}
		}
	})
}

// A CSV row splits into fields or is refused, never a panic.
func FuzzTableRow(f *testing.F) {
	for _, s := range []string{`a,b,c`, `"a, b",c`, `"say ""hi""",x`, `"open`, `"a"b`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, row string) {
		p := &tableParser{sep: ','}
		fields, err := p.splitRow([]byte(row))
		if err == nil && !strings.Contains(row, `"`) && len(fields) != strings.Count(row, ",")+1 {
			t.Fatalf("%q: %d fields", row, len(fields))
		}
	})
}

// validUTF8 replaces each byte of s that is not UTF-8 with U+FFFD, as
// encoding/json does.
func validUTF8(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
