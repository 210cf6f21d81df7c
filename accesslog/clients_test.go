package accesslog

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

// shortKey takes exactly the keys of 1 to 16 digits and dots, and packs
// no two alike: random keys of digits, dots and near misses (bytes either
// side of '0', '9' and '.', high bytes, NUL), each read at the end of its
// buffer and with random bytes after it, against the texts a map holds for
// each packed key; and unpacks each as it was. Every IPv4 address's text
// is among those it takes.
func TestShortKeyPacksDigitsAndDotsApart(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 3))
	alphabet := []byte("0123456789..........")
	odd := []byte{'/', ':', '-', '+', ' ', 0, 0x7f, 0x80, 0xae, 0xb0, 0xff, 'a', 'e', 'f', 0x0e, 0x0f}
	seen := map[uint64]string{}
	texts := []string{"0.0.0.0", "255.255.255.255", "1.2.3.4", "0", ".", "0000000000000000", "................", "1234567890123456", "12345678901234567", ""}
	for range 200_000 {
		b := make([]byte, r.IntN(19))
		for i := range b {
			if b[i] = alphabet[r.IntN(len(alphabet))]; r.IntN(40) == 0 {
				b[i] = odd[r.IntN(len(odd))]
			}
		}
		texts = append(texts, string(b))
	}
	for range 2_000 {
		texts = append(texts, netip.AddrFrom4([4]byte{byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256)), byte(r.IntN(256))}).String())
	}
	for _, s := range texts {
		want := len(s) >= 1 && len(s) <= 16 && strings.Trim(s, "0123456789.") == ""
		alone := []byte(s)[:len(s):len(s)]
		tail := make([]byte, 0, len(s)+r.IntN(20))
		tail = append(tail, s...)
		for len(tail) < cap(tail) {
			tail = append(tail, byte(r.IntN(256)))
		}
		k, ok := shortKey(alone)
		k2, ok2 := shortKey(tail[:len(s)])
		if ok != want || ok2 != want || k != k2 {
			t.Fatalf("shortKey(%q) = %#x %v, after other bytes %#x %v; want ok %v", s, k, ok, k2, ok2, want)
		}
		if !ok {
			continue
		}
		if back := string(unpackShort([]byte("x"), k)); back != "x"+s {
			t.Fatalf("unpackShort(shortKey(%q)) = %q", s, back[1:])
		}
		if other, dup := seen[k]; dup && other != s {
			t.Fatalf("shortKey(%q) = shortKey(%q) = %#x", s, other, k)
		}
		seen[k] = s
	}
	if len(seen) < 50_000 {
		t.Fatalf("only %d keys packed", len(seen))
	}
}

// A log's clients are numbered in first-seen order whatever their keys
// look like, addresses and near misses of one mixed: the log's numbers
// against a list searched from the start, and ClientNumber for each.
func TestClientNumbersInFirstSeenOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 4))
	pool := []string{"10.0.0.1", "010.0.0.1", "10.0.0.01", "10.0.0.1.1", "::1", "2001:db8::1", "-", "a.b.c.d", "255.255.255.255", "0.0.0.0", "1.2.3.4"}
	for i := range 200 {
		pool = append(pool, fmt.Sprintf("10.%d.%d.%d", i%3, i%7, i))
	}
	var text strings.Builder
	var order []string
	var want []int32
	for i := range 5_000 {
		c := pool[r.IntN(len(pool))]
		k := slices.Index(order, c)
		if k < 0 {
			k = len(order)
			order = append(order, c)
		}
		want = append(want, int32(k))
		fmt.Fprintf(&text, "%s - - [01/Dec/2026:%02d:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\n", c, i/3600, i/60%60, i%60)
	}
	l := read(t, text.String(), Options{})
	if !slices.Equal(l.Clients(), order) {
		t.Fatalf("clients %q, want %q", l.Clients(), order)
	}
	var got []int32
	src := l.Source()
	for a, ok := src.Next(); ok; a, ok = src.Next() {
		got = append(got, a.Number-1)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("numbers differ from first-seen order")
	}
	for k, c := range order {
		if n := l.ClientNumber(c); n != int32(k) {
			t.Errorf("ClientNumber(%q) = %d, want %d", c, n, k)
		}
	}
	for _, c := range []string{"10.0.0.2", "10.0.0.001", "::2", "x"} {
		if n := l.ClientNumber(c); n != -1 {
			t.Errorf("ClientNumber(%q) = %d, want -1", c, n)
		}
	}
}

// Reading a line of a client met before allocates nothing: a log of a few
// clients read at two lengths allocates the same (within one allocation
// per 1,000 lines, for the store's chunks), by IPv4 keys and by others.
func TestKnownClientsAllocateNothingPerLine(t *testing.T) {
	for _, clients := range [][]string{{"10.1.2.3", "192.168.0.1", "8.8.8.8"}, {"2001:db8::1", "::1", "client-a"}} {
		logOf := func(n int) string {
			var b strings.Builder
			for i := range n {
				fmt.Fprintf(&b, "%s - - [01/Dec/2026:%02d:%02d:%02d +0000] \"GET /p HTTP/1.1\" 200 1 \"-\" \"agent\"\n",
					clients[i%len(clients)], i/3600%24, i/60%60, i%60)
			}
			return b.String()
		}
		allocs := func(n int) float64 {
			text := logOf(n)
			return testing.AllocsPerRun(5, func() {
				if _, err := Read(strings.NewReader(text), Options{Name: "t"}); err != nil {
					t.Fatal(err)
				}
			})
		}
		short, long := allocs(1_000), allocs(21_000)
		if per := (long - short) / 20_000; per > 0.001 {
			t.Errorf("clients %q: %.0f allocations for 1,000 lines, %.0f for 21,000: %.4f a line", clients, short, long, per)
		}
	}
}

// A key all in a line's head (ip, ident, user) cuts only the head, and
// refuses the same lines with the same reason as a key that reads the
// whole line: Combined lines cut and spliced at random.
func TestHeadOnlyKeyRefusesAsTheWholeLine(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 5))
	seeds := []string{
		`127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.0" 200 2326 "-" "curl/8.0"`,
		`10.0.0.1 - - [01/Dec/2026:00:00:01.250 +0000]  "GET /x?y HTTP/1.1" 404 0 "r" "say \"hi\"" 0.25`,
		`10.0.0.1 - - 1796083200.123 "GET / HTTP/1.1" 200 1`,
		`10.0.0.1 - - [01/Dec/2026:00:00:01 +0000] GET / 200`,
	}
	head := Key{parts: []string{"ip", "ident", "user"}, named: []bool{false, true, false}}
	whole := Key{parts: []string{"ip", "ident", "user", "agent", "extra1"}, named: []bool{false, true, false, true, true}}
	for range 20_000 {
		line := seeds[r.IntN(len(seeds))]
		for range r.IntN(3) {
			i, j := r.IntN(len(line)+1), r.IntN(len(line)+1)
			if r.IntN(2) == 0 {
				line = line[:min(i, j)] + line[max(i, j):]
			} else {
				line = line[:i] + seeds[r.IntN(len(seeds))][j%20:] // spliced
			}
		}
		hp, wp := &combinedParser{key: head}, &combinedParser{key: whole}
		hparts, wparts := make([][]byte, 3), make([][]byte, 5)
		hst, herr := hp.parse([]byte(line), hparts)
		wst, werr := wp.parse([]byte(line), wparts)
		if fmt.Sprint(herr) != fmt.Sprint(werr) || hst != wst {
			t.Fatalf("%q: head-only key %v %v, whole line %v %v", line, hst, herr, wst, werr)
		}
		if herr == nil && !slices.EqualFunc(hparts, wparts[:3], func(a, b []byte) bool { return string(a) == string(b) }) {
			t.Fatalf("%q: parts %q and %q", line, hparts, wparts[:3])
		}
	}
}

// The short keys' table answers as a Go map through its growth: 200,000
// keys, clustered and random, 0 and all ones among them, each asked before
// and after it is added, and absent ones throughout.
func TestShortTableAsAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 6))
	var tab shortTable
	want := map[uint64]int32{}
	check := func(k uint64) {
		c, ok := tab.find(k)
		w, wok := want[k]
		if ok != wok || c != w {
			t.Fatalf("find(%#x) = %d %v, want %d %v (%d held)", k, c, ok, w, wok, len(want))
		}
	}
	for i := range 200_000 {
		var k uint64
		switch r.IntN(4) {
		case 0:
			k = 0xffff_ffff_0000_0000 | uint64(r.IntN(1<<12)) // clustered: probes collide
		case 1:
			k = []uint64{0, ^uint64(0), 1, 1 << 63}[r.IntN(4)]
		default:
			k = r.Uint64()
		}
		check(k)
		check(r.Uint64())
		if _, ok := want[k]; !ok {
			want[k] = int32(i)
			tab.add(k, int32(i))
		}
		check(k)
	}
	for k := range want {
		check(k)
	}
}
