#!/usr/bin/env bash
# bench.sh - run the load benchmark (parse + verify of generated modules).
# Usage: scripts/bench.sh [XR_BENCH] [ARGS...]   (make bench)
#   XR_BENCH defaults to build/xr_bench; ARGS go to it (--check, sizes).
# A benchmark, not a test: it prints figures and exits 0 unless the load
# itself fails (or a target is missed with --check).
set -euo pipefail
cd "$(dirname "$0")/.."
bench=build/xr_bench
if [[ $# -gt 0 && "$1" != -* && ! "$1" =~ ^[0-9]+$ ]]; then
	bench=$1
	shift
fi
if [[ ! -x "$bench" ]]; then
	echo "bench.sh: $bench not built (run: make build)" >&2
	exit 1
fi
echo "bench: host $(uname -m) $(nproc) cpus," \
	"$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //')"
exec "$bench" "$@"
