#!/usr/bin/env bash
# fusion-parity.sh - this tool's fusion against XLA's, on the corpus
# modules XLA already fused: each one is loaded (XLA's kernels), taken
# apart with `pass defuser` (the unfused graph's kernels) and fused
# again with the default pipeline (ours). One line per module, then the
# totals. A report for people tuning the fusion rules, not a test: the
# corpus's fused modules are mostly XLA's GPU emitter tests (Triton
# fusions of a dot with its operands' producers, say), which this tool's
# rules do not aim to copy.
#
# Usage: scripts/fusion-parity.sh [XLA_REPL [CORPUS_DIR]]
#   defaults: build/xla-repl and ../shared/corpus/hlo
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/xla-repl}
corpus=${2:-$here/../shared/corpus/hlo}
if [ ! -x "$bin" ] || [ ! -f "$corpus/INDEX.tsv" ]; then
	echo "usage: $0 [XLA_REPL [CORPUS_DIR]] (no $bin or $corpus/INDEX.tsv)" >&2
	exit 2
fi
printf '%-8s %-8s %-8s %s\n' xla defused ours module
awk -F'\t' 'NR > 1 && $7 == 1 { print $1 }' "$corpus/INDEX.tsv" | {
	n=0 xla=0 ours=0 fewer=0 more=0 failed=0
	while read -r f; do
		k=$("$bin" -e "load $corpus/$f" -e stats -e "pass defuser" \
			-e stats -e pipeline -e stats 2>/dev/null |
			sed -n 's/^stats:.* kernels=\([0-9]*\).*/\1/p' | tr '\n' ' ')
		read -r a b c <<<"$k"
		n=$((n + 1))
		if [ -z "${c:-}" ]; then
			failed=$((failed + 1))
			printf '%-8s %-8s %-8s %s\n' - - - "$f (did not load or run)"
			continue
		fi
		xla=$((xla + a)) ours=$((ours + c))
		[ "$c" -lt "$a" ] && fewer=$((fewer + 1))
		[ "$c" -gt "$a" ] && more=$((more + 1))
		printf '%-8s %-8s %-8s %s\n' "$a" "$b" "$c" "$f"
	done
	echo "parity: modules=$n failed=$failed xla_kernels=$xla our_kernels=$ours fewer=$fewer more=$more same=$((n - failed - fewer - more))"
}
