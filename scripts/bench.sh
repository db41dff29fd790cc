#!/usr/bin/env bash
# bench.sh - run the benchmark: load (parse + verify) of generated modules
# and the default pipeline over them as `pipeline` runs it (pass_run).
# Usage: scripts/bench.sh [XR_BENCH] [ARGS...]   (make bench)
#   XR_BENCH defaults to build/xr_bench; ARGS go to it (--check, --runs R,
#   --pipeline-only, sizes; default sizes 10000 100000).
# A benchmark, not a test: it prints figures (medians; the host may be
# shared, so compare runs on a quiet machine) and exits 0 unless a load or
# a pass fails (or a target is missed with --check). When `make venv` has
# installed jax, the same module then goes through real XLA and its
# figures are printed beside ours (scripts/xla_reference.py).
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rc=0
"$bench" "$@" | tee "$work/ours.txt" || rc=$?
[[ $rc -eq 0 ]] || exit "$rc"

# The reference, in the same run: the smallest size benchmarked through
# real XLA (jaxlib, from the virtual environment `make venv` makes).
py=${XR_VENV:-build/venv}/bin/python
n=$(sed -n 's/^bench: pipeline n=\([0-9]*\).*/\1/p' "$work/ours.txt" | head -1)
if [[ -z "$n" ]]; then
	exit 0
elif [[ ! -x "$py" ]] || ! "$py" -c 'import jax' 2>/dev/null; then
	echo "bench: xla reference skipped: no jax (make venv installs it)"
	exit 0
fi
"$bench" --print "$n" >"$work/m.hlo"
"$py" scripts/xla_reference.py "$n" "$work/m.hlo" "$work/ours.txt"
