#!/usr/bin/env bash
# run-corpus-blocks.sh - a real XLA dump pasted into a script loads as one
# block, to the same module as `load`: for every corpus module, the
# `stats` line and the exit status must be the same both ways.
#
# Usage: run-corpus-blocks.sh XLA_REPL CORPUS_DIR   (exit 77: no corpus)
set -u

. "$(dirname "$0")/lib.sh" # bin, here, work
corpus=${2:-${XR_CORPUS_DIR:-}}
if [ -z "$corpus" ] || [ ! -d "$corpus" ]; then
	echo "no corpus directory: skipped"
	exit 77
fi

# stats_of ARGS...: the stats line and the exit status of one run.
stats_of() {
	local out rc
	out=$("$bin" "$@" 2>/dev/null)
	rc=$?
	printf '%s exit %d' "$(grep '^stats:' <<<"$out")" "$rc"
}

pass=0
fail=0
while IFS= read -r -d '' f; do
	loaded=$(stats_of "$f" -e stats)
	{ cat "$f"; printf '\nstats\n'; } >"$work/pasted.xr"
	pasted=$(stats_of "$work/pasted.xr")
	if [ "$loaded" = "$pasted" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL ${f#"$corpus"/}"
		echo "  load:   $loaded"
		echo "  pasted: $pasted"
		fail=$((fail + 1))
	fi
done < <(find "$corpus" -type f -name '*.hlo' -print0 | sort -z)
echo "corpus blocks: $pass passed, $fail failed"
[ "$pass" -gt 0 ] && [ "$fail" -eq 0 ]
