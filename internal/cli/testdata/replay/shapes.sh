#!/bin/sh
# Writes to standard output, at any size, the access logs that went past
# windowlab's memory budget before replay counted bytes (issue 29); the
# tests run them scaled down (replay_budget_test.go). Pipe them in rather
# than keep them: at full size they are GBs.
#
#   testdata/replay/shapes.sh keys 1990000 | windowlab replay - --key field:agent
#   testdata/replay/shapes.sh same 49000000 | windowlab replay -
#   testdata/replay/shapes.sh day 25000000 | windowlab replay - --reorder 100h
#   testdata/replay/shapes.sh merged 12500000 | windowlab replay - --reorder 100h
set -eu
shape=${1:?"give a shape: keys, same, day or merged, and a count"}
n=${2:?"give a count"}
case $shape in
keys) # n clients, each keyed by a 1 KiB agent (--key field:agent), a millisecond apart
	awk -v n="$n" 'BEGIN { pad = sprintf("%1014s", ""); gsub(/ /, "x", pad)
		for (i = 0; i < n; i++) printf "{\"ts\":%d.%03d,\"agent\":\"%s%010d\"}\n", 1796083200 + int(i / 1000), i % 1000, pad, i }' ;;
same) # n identical lines: one client, one second
	yes '10.0.0.1 - - [01/Dec/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "-"' | head -n "$n" ;;
day) # n lines in time order over a day, from 100,000 clients
	awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) { s = int(i * 86400 / n); c = i % 100000
		printf "10.%d.%d.%d - - [01/Dec/2026:%02d:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", int(c / 65536), int(c / 256) % 256, c % 256, int(s / 3600), int(s / 60) % 60, s % 60 } }' ;;
merged) # two servers' logs of n lines each over a day, one after the other: the second goes back in time
	awk -v n="$n" 'BEGIN { for (h = 0; h < 2; h++) for (i = 0; i < n; i++) { s = int(i * 86400 / n); c = i % 50000
		printf "10.%d.%d.%d - - [01/Dec/2026:%02d:%02d:%02d +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"-\"\n", h, int(c / 256), c % 256, int(s / 3600), int(s / 60) % 60, s % 60 } }' ;;
*)
	echo "unknown shape $shape: keys, same, day or merged" >&2
	exit 2 ;;
esac
