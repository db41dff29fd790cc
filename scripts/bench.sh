#!/usr/bin/env bash
# bench.sh - run the benchmark: load (parse + verify) of generated modules
# and the default pipeline over them, pass by pass through pass_apply.
# Usage: scripts/bench.sh [XR_BENCH] [ARGS...]   (make bench)
#   XR_BENCH defaults to build/xr_bench; ARGS go to it (--check, --runs R,
#   --pipeline-only, sizes; default sizes 10000 100000).
# A benchmark, not a test: it prints figures (medians; the host may be
# shared, so compare runs on a quiet machine) and exits 0 unless a load or
# a pass fails (or a target is missed with --check).
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
