#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The guest half of `make bench-trace` (run in a VM by vmtest/run --cmd):
# open+close with and without jr2-trace attached, ROUNDS runs alternated in
# the same boot (goal: ratio <= 1.05; the ratio of the minimums is the one
# least hurt by other load on the host, the medians' is printed beside it),
# then a burst of BURST denials: events received against denials made (goal:
# none lost).
set -u
N=${N:-10000}
ROUNDS=${ROUNDS:-11}
BURST=${BURST:-100000}
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/trace-bench
file=$here/bench.sh

if ! jr2-trace --probe >/tmp/probe.out 2>&1; then
	echo "bench-trace: SKIP: $(grep '^verdict' /tmp/probe.out)"
	exit 0
fi
median() {
	echo "$@" | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
minimum() {
	echo "$@" | tr ' ' '\n' | sort -n | head -n 1
}
untraced= traced=
for round in $(seq "$ROUNDS"); do
	untraced="$untraced $("$bench" open "$N" "$file" | awk '{ print $3 }')"
	traced="$traced $(jr2-trace -o /dev/null -- "$bench" open "$N" "$file" 2>/dev/null | awk '{ print $3 }')"
done
base=$(minimum $untraced)
with=$(minimum $traced)
ratio=$(awk "BEGIN { printf \"%.3f\", $with / $base }")
median_ratio=$(awk "BEGIN { printf \"%.3f\", $(median $traced) / $(median $untraced) }")
echo "kernel $(uname -r), $ROUNDS rounds of $N"
echo "open+close ns/op, untraced:$untraced (min $base, median $(median $untraced))"
echo "open+close ns/op, traced:  $traced (min $with, median $(median $traced))"
echo "ratio traced/untraced: $ratio of the minimums, $median_ratio of the medians (goal <= 1.05)"

jr2-trace -o /tmp/burst.jsonl -- "$bench" deny "$BURST" "$file" >/tmp/burst.out 2>/tmp/burst.err
made=$(awk '/^deny/ { print $3 }' /tmp/burst.out)
received=$(wc -l </tmp/burst.jsonl)
lost=$(sed -n 's/.* traced, \([0-9]*\) lost$/\1/p' /tmp/burst.err)
echo "burst: $made denials made, $received events received, $lost lost (ring buffer full) (goal: none lost)"
echo "{\"kernel\": \"$(uname -r)\", \"open_ns_untraced\": $base, \"open_ns_traced\": $with, \"ratio\": $ratio, \"median_ratio\": $median_ratio, \"burst_made\": ${made:-0}, \"burst_received\": $received, \"burst_lost\": ${lost:-null}}" >"$here/trace-bench.json"
cat "$here/trace-bench.json"
