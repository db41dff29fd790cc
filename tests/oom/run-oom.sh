#!/usr/bin/env bash
# run-oom.sh XLA_REPL [CORPUS_DIR] - running out of memory anywhere is a
# clean error: each session*.xr here (load, passes, pipelines, history,
# fusion questions, analyses, pictures, the interpreter, typing, save) is
# run by xr_oom_repl (xla-repl whose own allocations fail on request:
# failalloc.c) once for every allocation it makes, that one failing
# (XR_FAIL_ALLOC=N), and for a sample of N with every allocation from N
# on failing (N+). Each run must end with exit 0 or 1 (not a signal, not
# 86 = a sanitizer report, not a timeout), and the first line of its
# output that differs from the run without failures must say "out of
# memory" (or the system's "Cannot allocate memory"): a failure is
# reported where it happens, or changes nothing that shows.
#
# xr_oom_repl is found in XR_BUILD_DIR (ctest sets it); without it the
# test is skipped (77). XLA_REPL and CORPUS_DIR are not used.
# A session tries at most 800 of its allocations (400 in a sanitizer
# build): every K-th, K as small as that allows (CI's time).
#   XR_OOM_STRIDE=K   try every K-th allocation (overrides the above;
#                     1: every one, as a deeper run)
#   XR_OOM_JOBS=J     runs at once (default 2)
#   XR_OOM_SESSIONS="session2.xr ..."   only these (default: all)
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${XR_BUILD_DIR:-}/xr_oom_repl
if [ -z "${XR_BUILD_DIR:-}" ] || [ ! -x "$bin" ]; then
	echo "skipped: no xr_oom_repl in XR_BUILD_DIR"
	exit 77
fi
cd "$here" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
limit=${XR_OOM_TIMEOUT:-120}
max=800 # allocations tried a session
grep -q -a __asan_init "$bin" && max=400
jobs=${XR_OOM_JOBS:-2}

# one N of session $xr: runs it and prints one verdict line, "ok N" or
# "FAIL N: why"
one() {
	local n=$1 out=$tmp/out.$1 rc why=""
	XR_FAIL_ALLOC=$n timeout "$limit" "$bin" --keep-going "$xr" \
		>"$out" 2>&1 </dev/null
	rc=$?
	if [ "$rc" -eq 124 ]; then
		why="timed out after $limit s"
	elif [ "$rc" -eq 86 ] || grep -a -q -E \
		'runtime error:|AddressSanitizer|LeakSanitizer' "$out"; then
		why="sanitizer report (exit $rc)"
	elif [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		why="exit $rc"
	else
		# the first line that differs from the run without failures
		# (numbers with a point masked: timings) must say so
		local at first
		norm <"$out" >"$out.norm"
		at=$(cmp "$tmp/base.norm" "$out.norm" 2>&1 |
			sed -n 's/.* line \([0-9]*\).*/\1/p; s/.*EOF on .*/eof/p')
		if [ "$at" = eof ]; then
			first=$(cmp "$tmp/base.norm" "$out.norm" 2>&1)
		elif [ -n "$at" ]; then
			first=$(sed -n "${at}p" "$out.norm")
		fi
		if [ -n "$at" ] && ! printf '%s' "$first" | grep -q -i -E \
			"out of memory|cannot allocate memory"; then
			why="the output changed before any 'out of memory': $first"
		fi
	fi
	if [ -n "$why" ]; then
		echo "FAIL $xr $n: $why"
		grep -a -E -m 8 'error|ERROR|runtime error|SUMMARY|#[0-9] ' "$out" |
			sed 's/^/    /'
	else
		echo "ok $xr $n"
	fi
	rm -f "$out" "$out.norm"
}
norm() { sed -E 's/[0-9]+\.[0-9]+/N.N/g' | grep -v '^failalloc: '; }
export -f one norm
export tmp limit bin

bad=0
for xr in ${XR_OOM_SESSIONS:-session*.xr}; do
	# The allocations a run makes when none fails; it must pass cleanly.
	XR_FAIL_ALLOC=0 timeout "$limit" "$bin" "$xr" >"$tmp/base.txt" 2>&1 \
		</dev/null
	rc=$?
	total=$(sed -n 's/^failalloc: \([0-9]*\) allocations$/\1/p' \
		"$tmp/base.txt")
	if [ "$rc" -ne 0 ] || [ -z "$total" ]; then
		echo "FAIL $xr without failures: exit $rc"
		tail -n 20 "$tmp/base.txt"
		bad=$((bad + 1))
		continue
	fi
	norm <"$tmp/base.txt" >"$tmp/base.norm"
	stride=${XR_OOM_STRIDE:-1}
	if [ -z "${XR_OOM_STRIDE:-}" ]; then
		stride=$(((total + max - 1) / max))
	fi
	export xr
	{
		seq 1 "$stride" "$total"
		# every allocation from N on failing: a sample of 60
		seq 1 $(((total + 59) / 60)) "$total" | sed 's/$/+/'
	} | xargs -P "$jobs" -I{} bash -c 'one {}' >"$tmp/verdicts.txt" \
		2>/dev/null
	runs=$(grep -c -E '^(ok|FAIL) ' "$tmp/verdicts.txt")
	nbad=$(grep -c '^FAIL' "$tmp/verdicts.txt")
	echo "oom: $xr: $total allocations, stride $stride; $runs runs; $nbad failed"
	if [ "$nbad" -ne 0 ]; then
		grep -A8 '^FAIL' "$tmp/verdicts.txt" | head -n 120
		bad=$((bad + nbad))
	fi
done
[ "$bad" -eq 0 ]
