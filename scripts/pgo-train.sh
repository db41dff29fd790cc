#!/usr/bin/env bash
# pgo-train.sh - the training run of a profile-guided build (make pgo):
# an xla-repl built with -fprofile-generate does what its users do, and
# GCC lays out and inlines the optimised build by the counts it leaves.
#
#   scripts/pgo-train.sh XLA_REPL [CORPUS_DIR]
#
# What it runs: every HLO module of CORPUS_DIR (real XLA, JAX and
# PyTorch/XLA dumps, when the directory is there) and of the repository's
# tests, through the default pipeline, stats, the fusion log and save;
# then the demo and the tour scripts. Not the benchmark's generated module:
# the profile is what users load, and `make bench` measures how that
# carries over. Output and exit statuses are ignored (malformed test
# inputs fail on purpose); a module that runs past 60 s is cut short.
set -uo pipefail
repl=$(realpath "${1:?usage: pgo-train.sh XLA_REPL [CORPUS_DIR]}")
corpus=${2:-}
cd "$(dirname "$0")/.."

run() { timeout 60 "$repl" --keep-going "$@" </dev/null >/dev/null 2>&1; }
modules() {
	if [[ -n "$corpus" && -d "$corpus" ]]; then
		find "$corpus" -name '*.hlo' -type f
	fi
	find tests scripts -name '*.hlo' -type f
}
mapfile -t files < <(modules | sort)
for f in "${files[@]}"; do
	run "$f" -e pipeline -e stats -e fusions -e 'save /dev/null'
done
# the demo as make demo runs it; each tour part in a scratch directory,
# as its test does (parts write files where they run)
scripts=(scripts/demo.xr scripts/tour/*.xr)
run scripts/demo.xr
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for s in scripts/tour/*.xr; do
	(cd "$scratch" && run "$OLDPWD/$s")
done
if [[ -n "$corpus" && ! -d "$corpus" ]]; then
	corpus="$corpus (not found)"
fi
echo "pgo-train: ${#files[@]} modules and ${#scripts[@]} scripts" \
	"(corpus: ${corpus:-none})"
