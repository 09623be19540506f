#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cli_test.sh JR2_TRACE: a bad flag gets one line naming the flag and the fix
# on stderr, nothing on stdout, and exit 2 (as jr2-confine and jr2-harness do).
set -u
trace=${1:?usage: cli_test.sh path/to/jr2-trace}
n=0 failed=0
check() { # check ARGS... -- WANTED-SUBSTRING
	local args=() want out err rc
	while [ "$1" != -- ]; do args+=("$1"); shift; done
	want=$2
	n=$((n + 1))
	err=$("$trace" "${args[@]}" 2>&1 >/dev/null); rc=$?
	out=$("$trace" "${args[@]}" 2>/dev/null)
	if [ "$rc" = 2 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		[[ "$err" == *"$want"* ]]; then
		echo "ok $n trace_cli.${args[0]}"
	else
		echo "# exit $rc, stdout '${out:0:80}', stderr: ${err:0:300}"
		echo "not ok $n trace_cli.${args[0]}"
		failed=1
	fi
}
echo "TAP version 13"
echo "1..6"
check --bogus -- "unknown flag '--bogus': see 'jr2-trace --help'"
check -x -- "unknown flag '-x' in '-x'"
check --pid -- "--pid needs a value: write '--pid VALUE'"
check --verbose=1 -- "flag '--verbose' takes no value"
check --avoid nothing --pid 1 -- "--avoid"
check --points nothing --pid 1 -- "'nothing' is not a point"
exit $failed
