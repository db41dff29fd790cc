#!/usr/bin/env bash
# run-tour.sh - every part of the guided tour (scripts/tour/NN-*.xr) runs
# in batch mode as a test: the `expect` lines in it check what its prose
# says, so a part fails when a command fails or an expectation does not
# hold. Each part runs alone in a fresh scratch directory (parts write
# files such as tour-result.npy). A part with no `expect` or no `echo`
# fails too: a tour part must both explain and check.
#
# Usage: run-tour.sh XLA_REPL [CORPUS_DIR]
set -u

. "$(dirname "$0")/../repl/lib.sh" # bin, here, work
tour=$(cd "$here/../../scripts/tour" && pwd)

pass=0
fail=0
shopt -s nullglob
parts=("$tour"/[0-9][0-9]-*.xr)
if [ ${#parts[@]} -eq 0 ]; then
	echo "FAIL: no tour scripts in $tour"
	exit 1
fi
for xr in "${parts[@]}"; do
	name=$(basename "$xr")
	if ! grep -q '^expect ' "$xr" || ! grep -q '^echo ' "$xr"; then
		echo "FAIL $name: a tour part needs both echo and expect lines"
		fail=$((fail + 1))
		continue
	fi
	rm -rf "$work/run" && mkdir "$work/run"
	(cd "$work/run" && "$bin" "$xr" >"$work/out" 2>&1)
	status=$?
	if [ "$status" -eq 0 ]; then
		pass=$((pass + 1))
	else
		echo "FAIL $name (exit $status)"
		tail -n 20 "$work/out"
		fail=$((fail + 1))
	fi
done
echo "tour: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
