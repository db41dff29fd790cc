#!/usr/bin/env bash
# run-demo.sh - `make demo` must keep working: scripts/demo.xr runs from
# the repository root in batch mode with exit 0 and prints no error.
#
# Usage: run-demo.sh XLA_REPL [CORPUS_DIR]
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 XLA_REPL [CORPUS_DIR]" >&2
	exit 2
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 1
out=$("$bin" scripts/demo.xr 2>&1)
status=$?
if [ "$status" -ne 0 ] || grep -q "error:" <<<"$out"; then
	echo "FAIL demo (exit $status)"
	grep -n "error:" <<<"$out" | head -5
	exit 1
fi
echo "demo: ok ($(wc -l <<<"$out") lines)"
