#!/usr/bin/env bash
# run-fusion.sh - golden transcripts of the fusion passes: kernel counts
# of the classic models, every rule of the decision vocabulary, `why`,
# `fusions` and `fuse` answers, and the numbers before and after fusion
# (each transcript checks them with `expect close`).
#
# Usage: run-fusion.sh XLA_REPL [CORPUS_DIR]   (XR_UPDATE=1 regenerates)
XR_TRANSCRIPTS="$(cd "$(dirname "$0")" && pwd)" \
	exec bash "$(dirname "$0")/../repl/run-transcripts.sh" "$@"
