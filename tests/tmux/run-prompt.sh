#!/usr/bin/env bash
# run-prompt.sh - the real prompt, driven through tmux: keys are sent to
# xla-repl running in a detached tmux session on a terminal, and the pane
# is read back.
#
# Usage: run-prompt.sh XLA_REPL [CORPUS_DIR]
#
# Checks: tab completion of a command, an example, a pass and an
# instruction name; a multi-line HLO block under the secondary prompt;
# Ctrl-C cancelling a half-typed line and a half-typed block; Ctrl-C
# stopping a long `run` with the session intact; `quit` and Ctrl-D
# ending the session with status 0; the history file, capped; a coloured
# prompt on a terminal and none under NO_COLOR. Every wait polls the pane
# with a timeout. Exits 77 (skipped) when tmux is missing or the binary
# was built without Readline.
set -u

if [ $# -lt 1 ]; then
	echo "usage: $0 XLA_REPL [CORPUS_DIR]" >&2
	exit 2
fi
if ! command -v tmux >/dev/null 2>&1; then
	echo "tmux not found: skipped"
	exit 77
fi
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$(mktemp -d)
sock="$work/tmux.sock"
home="$work/home"
mkdir -p "$home"
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server >/dev/null 2>&1; sleep 0.1; rm -rf "$work"' EXIT

TIMEOUT=${XR_TMUX_TIMEOUT:-20} # seconds for any one wait (ASan is slow)
session=""

fail() {
	echo "FAIL: $*"
	echo "--- pane ---"
	pane
	exit 1
}

# The pane's text, scrollback included; -e keeps escape sequences.
pane() { T capture-pane -p -J -t "$session" -S -500 "$@"; }

# Polls until the pane matches the extended regular expression.
wait_for() {
	local deadline=$((SECONDS + TIMEOUT))
	until pane | grep -qE -- "$1"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for /$1/"
		sleep 0.05
	done
}

# How many lines of the pane match.
count() { pane | grep -cE -- "$1"; }

# Waits until the pane has more than n lines matching (for prompts that
# look alike: the next one, not an earlier one).
wait_more() {
	local n=$1 pat=$2 deadline=$((SECONDS + TIMEOUT))
	until [ "$(count "$pat")" -gt "$n" ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for another /$pat/"
		sleep 0.05
	done
}

# Starts xla-repl in session $1 with extra environment $2; the shell
# around it reports the exit status and keeps the pane open.
start() {
	session=$1
	T new-session -d -s "$session" -x 160 -y 50 \
		"env -u NO_COLOR HOME='$home' TERM=xterm $2 '$bin'; echo \"exit-status=\$?\"; sleep 600"
	wait_for '^(\S*xla>|xla-repl .*without Readline)'
	if pane | grep -q 'without Readline'; then
		echo "xla-repl was built without Readline: skipped"
		exit 77
	fi
}

# Sends keys, then waits for the pattern.
type_wait() {
	local pat=$1
	shift
	T send-keys -t "$session" "$@"
	wait_for "$pat"
}

# --- history file with more lines than the cap -----------------------------
for i in $(seq 1 1200); do echo "old-command-$i"; done >"$home/.xla_repl_history"

# --- session 1: completion, blocks, Ctrl-C, quit ----------------------------
start one "NO_COLOR=1"
pane -e | grep -q $'\033\\[' && fail "escape sequences under NO_COLOR"

# A command name, then an example name.
type_wait '^xla> example $' 'exa' Tab
type_wait '^xla> example softmax $' 'so' Tab
type_wait "^loaded module 'jit_softmax'" Enter

# A pass name, then an instruction name of the current module.
type_wait '^xla> pass tuple-simplifier $' 'pass tu' Tab
type_wait '^pass: name=tuple-simplifier changed=no' Enter
type_wait '^xla> info exponential.11 $' 'info expo' Tab
type_wait '^  opcode +exponential$' Enter

# A multi-line block: the secondary prompt until the braces balance.
n=$(count '^\.\.\.> ')
T send-keys -t "$session" 'HloModule typed' Enter
wait_more "$n" '^\.\.\.> '
type_wait '^\.\.\.> ENTRY e \{$' 'ENTRY e {' Enter
type_wait '^\.\.\.> +p = f32\[4\] parameter\(0\)$' '  p = f32[4] parameter(0)' Enter
type_wait '^\.\.\.> +ROOT n = f32\[4\] negate\(p\)$' '  ROOT n = f32[4] negate(p)' Enter
type_wait "^loaded module 'typed' \(1 computation, 2 instructions\)" '}' Enter

# Ctrl-C cancels a half-typed line: it never runs.
type_wait '^xla> this line never runs$' 'this line never runs'
type_wait '^xla> this line never runs\^C$' C-c
n=$(count '^xla> ')
T send-keys -t "$session" 'stats' Enter
wait_for '^stats: instructions=2 computations=1 fusions=0 kernels=1 kernels_all=1$'
pane | grep -q "unknown command 'this'" && fail "the cancelled line ran"

# Ctrl-C cancels a half-typed block: nothing is loaded, no error.
n=$(count '^\.\.\.> ')
T send-keys -t "$session" 'ENTRY dropped {' Enter
wait_more "$n" '^\.\.\.> '
type_wait '^\.\.\.> +q = f32\[2\] parameter\(0\)$' '  q = f32[2] parameter(0)'
T send-keys -t "$session" C-c
wait_for '^\.\.\.> +q = f32\[2\] parameter\(0\)\^C$'
type_wait '^ENTRY %e ' 'print' Enter
pane | grep -qE 'unterminated|dropped.*error' && fail "the cancelled block was run"

# Ctrl-C stops a long run (100000 runs of a 100-step loop: minutes) and
# the session goes on with its module.
type_wait "^loaded module 'jit_fori_loop'" 'example while-loop' Enter
type_wait '^xla> run interp -n 100000$' 'run interp -n 100000' Enter
sleep 0.5 # let the run get going; the wait below is what is checked
T send-keys -t "$session" C-c
wait_for 'error: .*interrupted'
n=$(count '^stats: ')
T send-keys -t "$session" 'stats' Enter
wait_for '^stats: instructions=22 computations=3 fusions=0 kernels=2 kernels_all=7$'
pane | grep -q '^timing: backend=interp' && fail "the interrupted run printed a timing line"

type_wait '^exit-status=0$' 'quit' Enter

# The history file: this session's lines at the end, capped at 1000.
hist="$home/.xla_repl_history"
[ -f "$hist" ] || fail "no history file"
lines=$(wc -l <"$hist")
[ "$lines" -le 1000 ] || fail "history file has $lines lines (cap 1000)"
grep -qE '^example softmax *$' "$hist" || fail "history lacks 'example softmax'"
grep -qx 'this line never runs' "$hist" && fail "a cancelled line went into the history"
grep -qx 'old-command-1200' "$hist" || fail "history lost its newest old lines"

# --- session 2: colour on a terminal, Ctrl-D --------------------------------
T kill-session -t one
start two ""
# (tmux writes the SGR codes back in its own way: 1;36 as 1 then 36)
pane -e | grep -qE $'^\033\\[[0-9;]*m.*xla>' || fail "no coloured prompt on a terminal"
type_wait '^exit-status=0$' C-d

echo "prompt: all checks passed"
