#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# cli_test.sh JR2_TRACE: a bad flag gets one line naming the flag and the fix
# on stderr, nothing on stdout, and exit 2 (as jr2-confine and jr2-harness do).
set -u
trace=${1:?usage: cli_test.sh path/to/jr2-trace}
n=0 failed=0
check() { # check ARGS... :: WANTED-SUBSTRING
	local args=() want out err rc
	while [ "$1" != :: ]; do args+=("$1"); shift; done
	want=$2
	n=$((n + 1))
	name=$(printf '%s' "${args[*]}" | tr -c 'A-Za-z0-9.+-' '_')
	err=$("$trace" "${args[@]}" 2>&1 >/dev/null); rc=$?
	out=$("$trace" "${args[@]}" 2>/dev/null)
	if [ "$rc" = 2 ] && [ -z "$out" ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] &&
		[[ "$err" == *"$want"* ]]; then
		echo "ok $n trace_cli.$name"
	else
		echo "# exit $rc, stdout '${out:0:80}', stderr: ${err:0:300}"
		echo "not ok $n trace_cli.$name"
		failed=1
	fi
}
echo "TAP version 13"
echo "1..15"
check --bogus :: "unknown flag '--bogus': see 'jr2-trace --help'"
check -x :: "unknown flag '-x' in '-x'"
check --pid :: "--pid needs a value: write '--pid VALUE'"
check --verbose=1 :: "flag '--verbose' takes no value"
check --avoid nothing --pid 1 :: "--avoid"
check --points nothing --pid 1 :: "'nothing' is not a point"
# Numbers: digits only, checked before the kernel is probed (not exit 3).
check --max-abi 99 -- true :: "--max-abi '99' is not an ABI"
check --max-abi +3 -- true :: "--max-abi '+3' is not an ABI"
check --max-abi " 3" -- true :: "--max-abi ' 3' is not an ABI"
check --max-abi "3 " -- true :: "--max-abi '3 ' is not an ABI"
check --pid +1 :: "--pid '+1' is not a number"
check --pid " 1" :: "--pid ' 1' is not a number"
check --pid 1x :: "--pid '1x' is not a number"
check --pid 99999999999999999999 :: "is not a number from 1"
# Control: a number as written passes the parse (the probe may still refuse).
n=$((n + 1))
err=$("$trace" --max-abi 3 --probe 2>&1 >/dev/null); rc=$?
if [ "$rc" != 2 ] && [[ "$err" != *"is not an ABI"* ]]; then
	echo "ok $n trace_cli.--max-abi_3_control"
else
	echo "# exit $rc, stderr: ${err:0:300}"
	echo "not ok $n trace_cli.--max-abi_3_control"
	failed=1
fi
exit $failed
