package redisstore

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

// The URL --store names may hold a password, and a malformed one must be
// refused without printing it: url.Parse and go-redis quote the whole URL
// in their errors. So nothing printed is ever made from the user name and
// password: errors are found on the URL with them masked, and what is
// wrong with them is said in words of windowlab's own.

// useURL is how a Redis URL is written, for the end of every message about one.
const useURL = "use redis://[:PASSWORD@]HOST:PORT/DB, for example redis://127.0.0.1:6379/0"

// mask is rawURL with everything between its scheme and its last @ (the
// user name and password, however malformed) replaced by xxxxx.
func mask(rawURL string) string {
	at := strings.LastIndex(rawURL, "@")
	if at < 0 {
		return rawURL
	}
	scheme := ""
	if i := strings.Index(rawURL, "://"); i >= 0 && i < at && validScheme(rawURL[:i]) {
		scheme = rawURL[:i+3]
	}
	return scheme + "xxxxx" + rawURL[at:]
}

func validScheme(s string) bool {
	for i, c := range s {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// Redact is rawURL with any password replaced by xxxxx: what may be printed.
// A URL whose user name and password do not parse as such is masked from
// its scheme to its last @.
func Redact(rawURL string) string {
	if mask(rawURL) == rawURL {
		return printable(rawURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil || !sameBeyondUser(rawURL) {
		return printable(mask(rawURL))
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return printable(u.String())
}

// printable is s with every byte of a control character, a character
// that reorders text, or invalid UTF-8 percent-escaped: a URL as it may
// reach a terminal.
func printable(s string) string {
	var b strings.Builder
	for i, r := range s {
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			size = 1
		}
		if r == utf8.RuneError || !unicode.IsGraphic(r) || unicode.Is(unicode.Bidi_Control, r) {
			for _, c := range []byte(s[i : i+size]) {
				fmt.Fprintf(&b, "%%%02X", c)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// sameBeyondUser reports whether rawURL and its mask parse to the same
// URL but for the user: whether its user name and password end where its
// last @ is, rather than at a '/', '?' or '#' inside them.
func sameBeyondUser(rawURL string) bool {
	u, err := url.Parse(rawURL)
	m, merr := url.Parse(mask(rawURL))
	if err != nil || merr != nil || u.User == nil {
		return false
	}
	u.User, m.User = nil, nil
	return u.String() == m.String()
}

// parseURL is the options rawURL gives go-redis, and the URL as it may be
// printed; or the reason it cannot be used, which never holds its user
// name or password.
func parseURL(rawURL string) (opt *redis.Options, shown string, reason error) {
	shown = Redact(rawURL)
	if !strings.HasPrefix(rawURL, "redis://") && !strings.HasPrefix(rawURL, "rediss://") {
		return nil, shown, errors.New("not a Redis URL; " + useURL)
	}
	masked := mask(rawURL)
	if _, err := redis.ParseURL(masked); err != nil { // wrong beyond the password: its error quotes only the mask
		return nil, shown, fmt.Errorf("%s; %s", parseError(err), useURL)
	}
	opt, err := redis.ParseURL(rawURL)
	if masked != rawURL && (err != nil || !sameBeyondUser(rawURL)) {
		userinfo := rawURL[strings.Index(rawURL, "://")+3 : strings.LastIndex(rawURL, "@")]
		return nil, shown, fmt.Errorf("%s; %s", userinfoError(userinfo), useURL)
	}
	if err != nil {
		return nil, shown, fmt.Errorf("%s; %s", parseError(err), useURL)
	}
	return opt, shownURL(rawURL, opt), nil
}

// parseError is url.Parse's or go-redis's error without the URL it
// quotes (the message names it first) and without the package's name.
func parseError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := strings.TrimPrefix(err.Error(), "redis: ")
	return strings.TrimPrefix(msg, "net/url: ")
}

// userinfoError says what is wrong with the user name and password
// (userinfo, everything before the last @) without quoting any of it.
func userinfoError(userinfo string) string {
	for i := 0; i < len(userinfo); i++ {
		c := userinfo[i]
		switch {
		case c < 0x20 || c == 0x7f:
			return "the user name or password holds a control character, which a URL cannot"
		case c == '%' && (i+2 >= len(userinfo) || !isHex(userinfo[i+1]) || !isHex(userinfo[i+2])):
			return "the user name or password holds a % that is not followed by two hex digits (write % itself as %25)"
		case c == '/' || c == '?' || c == '#':
			return "the user name or password holds a '/', '?' or '#', which ends it early: write them %2F, %3F and %23 (and any @ but the one before the host as %40)"
		case c == ' ':
			return "the user name or password holds a space: write it %20"
		case !allowedInUserinfo(c):
			return "the user name or password holds a character a URL cannot hold there as it is: percent-encode it (a \" is %22, a space %20)"
		}
	}
	return "the user name or password is not valid in a URL: percent-encode every character but letters, digits and -._~!$&'()*+,;=:@"
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// allowedInUserinfo is what net/url takes as it is in a user name or
// password (RFC 3986's unreserved and sub-delims, ':', '@' and '%').
func allowedInUserinfo(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~!$&'()*+,;=:@%", c) >= 0
}

// shownURL is where opt connects, written out whole (a URL that leaves
// out the host or the database gets the defaults), its password hidden.
func shownURL(rawURL string, opt *redis.Options) string {
	u := url.URL{Scheme: "redis", Host: opt.Addr, Path: "/" + strconv.Itoa(opt.DB)}
	if opt.TLSConfig != nil {
		u.Scheme = "rediss"
	}
	if p, err := url.Parse(rawURL); err == nil && p.User != nil {
		u.User = url.User(p.User.Username())
		if _, ok := p.User.Password(); ok {
			u.User = url.UserPassword(p.User.Username(), "xxxxx")
		}
	}
	return printable(u.String())
}
