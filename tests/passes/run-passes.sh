#!/usr/bin/env bash
# run-passes.sh - golden transcripts for the passes (tests/passes/*.xr):
# each loads a tiny module, runs it, applies a pass, prints the result and
# runs it again, so NAME.expected shows the rewrite, the rules that fired
# and the same values before and after.
#
# Usage: run-passes.sh XLA_REPL [CORPUS_DIR] (XR_UPDATE=1 rewrites the
# .expected files of this directory only).
XR_TRANSCRIPTS="$(cd "$(dirname "$0")" && pwd)" exec bash "$(dirname "$0")/../repl/run-transcripts.sh" "$@"
