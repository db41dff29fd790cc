#!/usr/bin/env bash
# run-transcripts.sh - transcript tests for the REPL.
#
# Usage: run-transcripts.sh XLA_REPL [CORPUS_DIR]
#
# Every tests/repl/NAME.xr runs as `xla-repl --keep-going NAME.xr` with the
# test files as working directory (a scratch copy, so `save` never writes
# into the source tree). Its stdout and stderr together must equal
# NAME.expected, whose first line is `# exit N`: the expected exit status.
# The figures of `timing:` lines and the time_ms= of `pass:` lines are
# replaced by T before comparing.
# XR_UPDATE=1 rewrites the .expected files from the actual output instead.
# XR_TRANSCRIPTS=DIR runs the transcripts of DIR instead of this directory
# (other test folders reuse this runner that way).
set -u

. "$(dirname "$0")/lib.sh" # bin, here, work
here=${XR_TRANSCRIPTS:-$here}

pass=0
fail=0
for xr in "$here"/*.xr; do
	name=$(basename "$xr" .xr)
	expected="$here/$name.expected"
	# A fresh copy per test: one test's saved files cannot leak into the next.
	rm -rf "$work/t" && mkdir "$work/t" && cp "$here"/*.xr "$here"/*.hlo "$work/t"/ 2>/dev/null
	# Timings vary from run to run: their figures become T.
	actual=$(cd "$work/t" && "$bin" --keep-going "$name.xr" 2>&1 |
		sed -E 's/(compile_ms|median_us|min_us|gbps|gflops|time_ms)=[0-9.e+-]+/\1=T/g'
		echo "# exit ${PIPESTATUS[0]}")
	# Status first, as in the .expected file.
	status=${actual##*$'\n'}
	[ "$status" = "$actual" ] && body="" || body=${actual%$'\n'*}
	if [ "${XR_UPDATE:-}" = 1 ]; then
		{ echo "$status"; [ -n "$body" ] && printf '%s\n' "$body"; } >"$expected"
		continue
	fi
	if [ ! -f "$expected" ]; then
		echo "FAIL $name: no $name.expected (run with XR_UPDATE=1)"
		fail=$((fail + 1))
		continue
	fi
	if diff -u "$expected" <(echo "$status"; [ -n "$body" ] && printf '%s\n' "$body") \
		>"$work/diff"; then
		pass=$((pass + 1))
	else
		echo "FAIL $name"
		cat "$work/diff"
		fail=$((fail + 1))
	fi
done
echo "transcripts: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
