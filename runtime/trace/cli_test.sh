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
echo "1..19"
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
# Without CAP_BPF and CAP_PERFMON (and CAP_SYS_ADMIN) the kernel loads no BPF
# program: the message names the missing privilege first, not the kernel.
# Root drops them from its bounding and inheritable sets (setpriv), then as
# nobody; the control keeps them: no word of them, whatever the kernel says.
privilege() { # NAME WANTED|-UNWANTED SETPRIV-ARGS... -- JR2-TRACE-ARGS...
	local name=$1 want=$2 pre=() err rc
	shift 2
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	n=$((n + 1))
	if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
		echo "ok $n trace_cli.$name # SKIP needs root and setpriv(1) to drop capabilities"
		return
	fi
	err=$(setpriv "${pre[@]}" "$trace" "$@" 2>&1 >/dev/null); rc=$?
	[ "$1" = --probe ] && err=$(setpriv "${pre[@]}" "$trace" "$@" 2>/dev/null | grep '^verdict:')
	if [ "${want:0:1}" = - ]; then
		[ "$rc" != 2 ] && [[ "$err" != *"${want:1}"* ]] && [ -n "$err$rc" ]
	else
		[ "$rc" = 3 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && [[ "$err" == *"$want"* ]]
	fi
	if [ $? = 0 ]; then
		echo "ok $n trace_cli.$name"
	else
		echo "# exit $rc, stderr: ${err:0:400}"
		echo "not ok $n trace_cli.$name"
		failed=1
	fi
}
drop=(--bounding-set=-bpf,-perfmon,-sys_admin --inh-caps=-bpf,-perfmon,-sys_admin)
privilege no_caps_names_them "jr2-trace: cannot trace: this process (uid 0) lacks CAP_BPF and CAP_PERFMON," \
	"${drop[@]}" -- -- true
privilege no_perfmon_names_it "this process (uid 0) lacks CAP_PERFMON," \
	--bounding-set=-perfmon,-sys_admin --inh-caps=-perfmon,-sys_admin -- -- true
privilege nobody_probe_names_them "verdict: cannot trace: this process (uid 65534) lacks CAP_BPF and CAP_PERFMON," \
	--reuid=65534 --regid=65534 --clear-groups -- --probe
privilege root_control_names_none "-lacks CAP_" --inh-caps=-sys_rawio -- -- true
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
